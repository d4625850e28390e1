package web

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"seatflow/views"
)

// uxPost loads page with the session and posts vals (plus the form's CSRF token) to
// the action of the page's form ending in suffix, with the cookies the page set.
func (a *testApp) uxPost(page, suffix, session string, vals url.Values) apiResp {
	a.t.Helper()
	hdr := map[string]string{"Cookie": "sf_session=" + session}
	p := a.do("GET", page, "", nil, hdr)
	if p.status != 200 {
		a.t.Fatalf("GET %s: %d", page, p.status)
	}
	var action, token string
	for _, f := range regexp.MustCompile(`(?is)<form\b([^>]*)>(.*?)</form>`).FindAllStringSubmatch(string(p.body), -1) {
		if act := html.UnescapeString(htmlAttr(f[1], "action")); strings.HasSuffix(act, suffix) {
			action = act
			for _, in := range regexp.MustCompile(`(?is)<input\b[^>]*>`).FindAllString(f[2], -1) {
				if htmlAttr(in, "name") == "_csrf" {
					token = htmlAttr(in, "value")
				}
			}
		}
	}
	if action == "" || token == "" {
		a.t.Fatalf("no form posting to *%s on %s", suffix, page)
	}
	vals.Set("_csrf", token)
	req, _ := http.NewRequest("POST", a.base+action, strings.NewReader(vals.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, c := range p.header.Values("Set-Cookie") {
		req.Header.Add("Cookie", strings.SplitN(c, ";", 2)[0])
	}
	req.Header.Add("Cookie", "sf_session="+session)
	return a.sendReq(req)
}

func (a *testApp) sendReq(req *http.Request) apiResp {
	a.t.Helper()
	res, err := noRedirect.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return apiResp{status: res.StatusCode, body: []byte(b.String()), header: res.Header}
}

// follow GETs a redirect's Location with the session and the cookies it set.
func (a *testApp) follow(r apiResp, session string) apiResp {
	a.t.Helper()
	req, _ := http.NewRequest("GET", a.base+r.header.Get("Location"), nil)
	for _, c := range r.header.Values("Set-Cookie") {
		req.Header.Add("Cookie", strings.SplitN(c, ";", 2)[0])
	}
	req.Header.Add("Cookie", "sf_session="+session)
	return a.sendReq(req)
}

func TestUXPages_RefusedBookingRedirectsToTheShow(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(2)
	other, me := a.newUser(), a.newUser()
	if r := a.do("POST", "/api/v1/shows/"+show+"/orders", other, map[string]any{"seat_ids": []string{seats[0]}}, nil); r.status != 201 {
		t.Fatalf("other buyer: %d %s", r.status, r.body)
	}
	r := a.uxPost("/shows/"+show, "/book", me, url.Values{"seat": seats})
	if r.status != 303 || r.header.Get("Location") != "/shows/"+show {
		t.Fatalf("refused booking: %d %q (want 303 to the show)", r.status, r.header.Get("Location"))
	}
	p := a.follow(r, me)
	body := string(p.body)
	if p.status != 200 || !strings.Contains(body, "was just taken by someone else") {
		t.Errorf("show page after the refusal: %d", p.status)
	}
	if !regexp.MustCompile(`value="` + seats[1] + `"[^>]*checked`).MatchString(body) {
		t.Error("the pick still free is not ticked")
	}
	if regexp.MustCompile(`value="` + seats[0] + `"[^>]*checked`).MatchString(body) {
		t.Error("the lost seat is ticked")
	}
	// reloading the address bar is a plain GET of the show
	if s := a.page("/shows/"+show, me); s != 200 {
		t.Errorf("reload: %d", s)
	}
}

func TestUXPages_BestAvailableFormCreatesAnOrder(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(2)
	zone := ""
	for _, s := range a.seatMap(show) {
		if s.ID == seats[0] {
			zone = s.Zone
		}
	}
	me := a.newUser()
	r := a.uxPost("/shows/"+show, "/best", me, url.Values{"zone": {zone}, "quantity": {"2"}})
	loc := r.header.Get("Location")
	if r.status != 303 || !strings.HasPrefix(loc, "/orders/") || !strings.HasSuffix(loc, "?chosen=1") {
		t.Fatalf("best available: %d %q", r.status, loc)
	}
	no := strings.TrimSuffix(strings.TrimPrefix(loc, "/orders/"), "?chosen=1")
	var o struct {
		Status string
		Seats  []struct{ Zone string }
	}
	json.Unmarshal(a.do("GET", "/api/v1/orders/"+no, me, nil, nil).body, &o)
	if o.Status != "pending" || len(o.Seats) != 2 || o.Seats[0].Zone != zone {
		t.Errorf("order = %+v", o)
	}
	body := string(a.follow(r, me).body)
	if !strings.Contains(body, "We chose these seats for you") || !strings.Contains(body, "Pay now") {
		t.Error("the order page does not show the chosen seats before paying")
	}
}

func TestUXPages_BrowseByDayAndMovie(t *testing.T) {
	a := newTestApp(t, nil)
	loc := a.Cfg.Location()
	tomorrow := a.clock.Now().In(loc).AddDate(0, 0, 1).Format(time.DateOnly)
	body := a.pageBody("/?date="+tomorrow, "")
	if !strings.Contains(body, `id="day-`+tomorrow+`"`) || strings.Count(body, `class="day-heading"`) != 1 {
		t.Errorf("?date=%s does not keep that one day", tomorrow)
	}
	if !regexp.MustCompile(`href="/\?date=` + tomorrow + `"[^>]*aria-current="page"`).MatchString(body) {
		t.Error("the chosen day is not marked in the date strip")
	}
	if n := strings.Count(body, `class="date-strip"`); n != 1 || strings.Count(body, `href="/?date=`) != 7 {
		t.Errorf("date strip: %d strips, %d day links", n, strings.Count(body, `href="/?date=`))
	}
	m := regexp.MustCompile(`<option value="(\d+)">([^<]+)</option>`).FindAllStringSubmatch(body, -1)
	if len(m) < 2 {
		t.Fatalf("movie filter options: %v", m)
	}
	id, title := m[0][1], html.UnescapeString(m[0][2])
	body = a.pageBody("/?movie="+id, "")
	titles := regexp.MustCompile(`<h3 class="show-title"><a [^>]*>([^<]+)</a></h3>`).FindAllStringSubmatch(body, -1)
	if len(titles) == 0 {
		t.Fatalf("no shows of movie %s", title)
	}
	for _, tt := range titles {
		if html.UnescapeString(tt[1]) != title {
			t.Errorf("?movie=%s lists %q", id, tt[1])
		}
	}
	if !strings.Contains(body, `<option value="`+id+`" selected>`) {
		t.Error("the chosen movie is not selected in the filter")
	}
}

func TestUXPages_LatePaymentIsToldAsRefunded(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(2)
	me := a.newUser()
	r := a.do("POST", "/api/v1/shows/"+show+"/orders", me, map[string]any{"seat_ids": seats}, nil)
	if r.status != 201 {
		t.Fatalf("order: %d %s", r.status, r.body)
	}
	no := r.json(t)["order_no"].(string)
	amount := views.Money(int64(r.json(t)["total_minor"].(float64)), a.Cfg.Currency)
	pay := a.uxPost("/orders/"+no, "/pay", me, url.Values{})
	if pay.status != 303 || !strings.HasPrefix(pay.header.Get("Location"), "/pay/demo/") {
		t.Fatalf("pay: %d %q", pay.status, pay.header.Get("Location"))
	}
	provider := pay.header.Get("Location")
	a.clock.Set(30 * time.Minute) // the buyer approves long after the deadline
	back := a.uxPost(provider, "/approve", me, url.Values{})
	if back.status != 303 || !strings.Contains(back.header.Get("Location"), "?payment=") {
		t.Fatalf("approve: %d %q", back.status, back.header.Get("Location"))
	}
	body := html.UnescapeString(string(a.follow(back, me).body))
	if !strings.Contains(body, "Your payment of "+amount+" arrived after the payment deadline, so it was refunded; the order expired") {
		t.Errorf("order page does not tell the refund:\n%s", body[strings.Index(body, "<main"):])
	}
}
