package web

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestUXTruth_CancelledShowPageSaysWhy: staff cancel a show with a reason for buyers;
// its page then says it was cancelled with those words, and counts no seats left.
func TestUXTruth_CancelledShowPageSaysWhy(t *testing.T) {
	a := newTestApp(t, nil)
	show, _ := a.onSaleShow(2)
	reason := "The projector broke; every ticket is refunded."
	if r := a.do("POST", "/api/v1/admin/shows/"+show+"/cancel", a.demoToken("staff"), map[string]any{"reason": reason}, nil); r.status != 200 {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	r := a.do("GET", "/shows/"+show, "", nil, nil)
	page := string(r.body)
	if r.status != 200 || !strings.Contains(page, "This show was cancelled.") || !strings.Contains(page, "The projector broke; every ticket is refunded.") {
		t.Errorf("the cancelled show's page (%d) does not give the reason staff wrote", r.status)
	}
	if main := regexp.MustCompile(`(?s)<main.*</main>`).FindString(page); main == "" || strings.Contains(main, "seats left") {
		t.Error("the cancelled show's page still counts seats left")
	}
}

// TestUXTruth_EveryPageLinksItsIcon: the layout links the site's icon, and it is
// served, so no browser asks for a missing /favicon.ico.
func TestUXTruth_EveryPageLinksItsIcon(t *testing.T) {
	a := newTestApp(t, nil)
	for _, path := range []string{"/", "/login"} {
		page := string(a.do("GET", path, "", nil, nil).body)
		m := regexp.MustCompile(`<link rel="icon" href="([^"]+)"`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("%s links no icon", path)
		}
		res, err := http.Get(a.base + m[1])
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "image/svg+xml") {
			t.Errorf("%s: the icon %s answers %d %s", path, m[1], res.StatusCode, res.Header.Get("Content-Type"))
		}
	}
}

// TestUXTruth_WaitlistPanelReloadsThePageWhenThePlaceMoves: the waiting-list panel's
// refresh names the status the open page shows; when the place's status is another
// (an offer came, or it ended) the answer asks htmx to reload the whole page, so the
// show's state and seats left are told afresh; while it is the same, it does not.
func TestUXTruth_WaitlistPanelReloadsThePageWhenThePlaceMoves(t *testing.T) {
	a := newTestApp(t, nil)
	show, _ := a.onSaleShow(2)
	hx := map[string]string{"HX-Request": "true", "Cookie": "sf_session=" + a.newUser()}
	if r := a.do("GET", "/shows/"+show+"/waitlist?was=waiting", "", nil, hx); r.status != 200 || r.header.Get("HX-Refresh") != "true" {
		t.Errorf("a page showing a place that is gone: %d, HX-Refresh %q", r.status, r.header.Get("HX-Refresh"))
	}
	if r := a.do("GET", "/shows/"+show+"/waitlist?was=join", "", nil, hx); r.status != 200 || r.header.Get("HX-Refresh") != "" {
		t.Errorf("a page still right: %d, HX-Refresh %q", r.status, r.header.Get("HX-Refresh"))
	}
}
