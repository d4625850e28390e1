package web

import (
	"bytes"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"seatflow/views"
)

// childShow makes ticket type child (with its door note) and prices it in the first
// zone of a show in Hall 1 at child minor units; it returns the show, the zone's adult
// price and currency, and two free seats side by side in that zone.
func (a *testApp) childShow(t *testing.T, child int64) (show string, adult int64, currency, s1, s2 string) {
	t.Helper()
	staff := a.demoToken("staff")
	if r := a.do("POST", "/api/v1/admin/ticket-types", staff, map[string]any{"code": "child", "name": "Child", "name_zh": "儿童",
		"note": "ID required at the door", "note_zh": "入场时请出示证件"}, nil); r.status != 201 {
		t.Fatalf("create child: %d %s", r.status, r.body)
	}
	show = a.showInHall("Hall 1")
	zone := a.do("GET", "/api/v1/shows/"+show, "", nil, nil).json(t)["zones"].([]any)[0].(map[string]any)
	code := zone["code"].(string)
	adult, currency = int64(zone["price_minor"].(float64)), zone["currency"].(string)
	if r := a.do("PATCH", "/api/v1/admin/shows/"+show, staff, map[string]any{"ticket_prices": []map[string]any{{"type": "child", "zone": code, "price_minor": child}}}, nil); r.status != 200 {
		t.Fatalf("price child: %d %s", r.status, r.body)
	}
	row, ids := a.freeRow(show)
	return show, adult, currency, ids[row+"3"], ids[row+"4"]
}

// TestPages_TicketsWithoutScriptShowTheTypedTotalThenBook walks the picker without
// JavaScript: two seats ticked and one child typed, "Show the total" brings the page
// back with the seats still ticked, the count kept, and every total on it (the
// selection summary, the phones' bottom bar, the line under the counts) the typed
// total, the child seat named in the summary at the child price; booking then gives a
// pending order of that total. Counts that ask for more tickets than seats show no
// total but say so.
func TestPages_TicketsWithoutScriptShowTheTypedTotalThenBook(t *testing.T) {
	a := newTestApp(t, nil)
	const child = 2500
	show, adult, currency, s1, s2 := a.childShow(t, child)
	want := views.Money(adult+child, currency)
	token := a.newUser()
	page := "/shows/" + show
	form := url.Values{"seat": {s1, s2}, "tickets_child": {"1"}, "preview": {"1"}}
	r := a.postPage(page, "/shows/"+show+"/book", token, form)
	if r.status != 303 {
		t.Fatalf("show the total: %d %s", r.status, r.body)
	}
	back := r.header.Get("Location")
	if !strings.Contains(back, "tickets_child=1") || !strings.Contains(back, "seat="+s1) {
		t.Fatalf("show the total went to %q", back)
	}
	doc := a.pageDoc(t, back, token)
	for what, sel := range map[string]string{"summary": "[data-summary-total]", "bar": "[data-bar-summary]", "counts": ".seat-form [data-ticket-total]"} {
		if got := strings.TrimSpace(doc.Find(sel).Text()); !strings.Contains(got, want) {
			t.Errorf("the %s says %q, want the typed total %s", what, got, want)
		}
	}
	if _, hidden := doc.Find(".seat-form [data-ticket-total]").Attr("hidden"); hidden {
		t.Error("the line under the counts is hidden")
	}
	if v, _ := doc.Find("#seat-tickets-child").Attr("value"); v != "1" {
		t.Errorf("the child count came back as %q", v)
	}
	if n := doc.Find(`.seat-form input[name="seat"][checked]`).Length(); n != 2 {
		t.Errorf("%d seats ticked, want 2", n)
	}
	rows := doc.Find("[data-summary-rows]").Text()
	if !strings.Contains(rows, "Child") || !strings.Contains(rows, views.Money(child, currency)) {
		t.Errorf("the summary lists %q, want a child seat at %s", rows, views.Money(child, currency))
	}
	if doc.Find(`noscript`).Length() == 0 || !strings.Contains(doc.Find("noscript").Text(), "Show the total") {
		t.Error(`no "Show the total" button for a browser without JavaScript`)
	}

	tooMany := a.postPage(page, "/shows/"+show+"/book", token, url.Values{"seat": {s1, s2}, "tickets_child": {"3"}, "preview": {"1"}})
	doc = a.pageDoc(t, tooMany.header.Get("Location"), token)
	if got := doc.Find("[data-summary-total]").Text(); strings.Contains(got, views.Money(adult*2, currency)) || strings.Contains(got, want) {
		t.Errorf("with more tickets than seats the summary says %q", got)
	}
	if got := doc.Find(".seat-form [data-ticket-total]").Text(); !strings.Contains(got, "More tickets") {
		t.Errorf("with more tickets than seats the counts say %q", got)
	}

	delete(form, "preview")
	r = a.postPage(back, "/shows/"+show+"/book", token, form)
	if r.status != 303 || !strings.HasPrefix(r.header.Get("Location"), "/orders/") {
		t.Fatalf("book: %d %s %s", r.status, r.header.Get("Location"), r.body)
	}
	doc = a.pageDoc(t, r.header.Get("Location"), token)
	if got := strings.TrimSpace(doc.Find("table.order-seats .total").Text()); got != want {
		t.Errorf("the order's total is %q, want %s", got, want)
	}
}

// pageDoc GETs a browser page with the session of token and parses it.
func (a *testApp) pageDoc(t *testing.T, path, token string) *goquery.Document {
	t.Helper()
	r := a.getPage(path, token)
	if r.status != 200 {
		t.Fatalf("GET %s: %d", path, r.status)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
