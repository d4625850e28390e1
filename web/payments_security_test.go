package web

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"seatflow/services/orders"
)

const demoBanner = "Demo payments — no real money moves"

func demoOff(c *Config) { c.DemoPayments = false }

// submitForm loads page (with the session cookie when session is not "") and posts
// its form whose action ends with suffix to target (the form's own action when ""),
// as a browser would: the form's inputs, the page's cookies and the session cookie.
func (a *testApp) submitForm(page, suffix, target, session string) apiResp {
	a.t.Helper()
	hdr := map[string]string{}
	if session != "" {
		hdr["Cookie"] = "sf_session=" + session
	}
	p := a.do("GET", page, "", nil, hdr)
	if p.status != 200 {
		a.t.Fatalf("GET %s: %d", page, p.status)
	}
	var action string
	vals := url.Values{}
	for _, f := range regexp.MustCompile(`(?is)<form\b([^>]*)>(.*?)</form>`).FindAllStringSubmatch(string(p.body), -1) {
		if act := html.UnescapeString(htmlAttr(f[1], "action")); strings.HasSuffix(act, suffix) {
			action = act
			for _, in := range regexp.MustCompile(`(?is)<input\b[^>]*>`).FindAllString(f[2], -1) {
				if n := htmlAttr(in, "name"); n != "" {
					vals.Set(n, htmlAttr(in, "value"))
				}
			}
			break
		}
	}
	if action == "" || vals.Get("_csrf") == "" {
		a.t.Fatalf("no form posting to *%s with a CSRF token on %s", suffix, page)
	}
	if target == "" {
		target = action
	}
	req, err := http.NewRequest("POST", a.base+target, strings.NewReader(vals.Encode()))
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, c := range p.header.Values("Set-Cookie") {
		req.Header.Add("Cookie", strings.SplitN(c, ";", 2)[0])
	}
	if session != "" {
		req.Header.Add("Cookie", "sf_session="+session)
	}
	res, err := noRedirect.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return apiResp{status: res.StatusCode, body: b, header: res.Header}
}

// orderStatus reads an order's and its payments' statuses from MySQL.
func (a *testApp) orderStatus(no string) (string, []string) {
	a.t.Helper()
	var st string
	var pays []string
	if err := a.DB.Get(&st, "SELECT status FROM orders WHERE order_no = ?", no); err != nil {
		a.t.Fatal(err)
	}
	a.DB.Select(&pays, "SELECT p.status FROM payments p JOIN orders o ON o.id = p.order_id WHERE o.order_no = ? ORDER BY p.id", no)
	return st, pays
}

// signedEvent is the provider's event for a payment, sent at sentAt, with its signature.
func (a *testApp) signedEvent(paymentID string, amount int64, status string, sentAt time.Time) ([]byte, string) {
	body, _ := json.Marshal(orders.WebhookEvent{PaymentID: paymentID, Status: status, AmountMinor: amount, SentAt: sentAt.UTC().Format(time.RFC3339)})
	return body, a.Payments.Sign(body)
}

// TestDemoPaymentsOff_NothingBecomesPaid: without SEATFLOW_DEMO_PAYMENTS, /pay answers
// 503, the Pay button says why, the demo provider's pages and webhook answer 404 even
// for a demo payment started before, no banner shows, and the order stays unpaid.
func TestDemoPaymentsOff_NothingBecomesPaid(t *testing.T) {
	a := newTestApp(t, demoOff)
	tok := a.newUser()
	show, seats := a.onSaleShow(1)
	r := a.do("POST", "/api/v1/shows/"+show+"/orders", tok, map[string]any{"seat_ids": seats}, nil)
	if r.status != 201 {
		t.Fatalf("order: %d %s", r.status, r.body)
	}
	no := r.json(t)["order_no"].(string)

	for _, body := range []any{nil, map[string]string{"provider": "demo"}} {
		p := a.do("POST", "/api/v1/orders/"+no+"/pay", tok, body, nil)
		if p.status != 503 || p.code() != "UNAVAILABLE" || !strings.Contains(string(p.body), "no payment provider is configured") {
			t.Errorf("pay (%v): %d %s, want 503 UNAVAILABLE", body, p.status, p.body)
		}
	}
	// the browser's Pay button: the order page again, saying why
	res := a.submitForm("/orders/"+no, "/pay", "", tok)
	if res.status != 503 || !strings.Contains(string(res.body), "No payment provider is configured.") || !strings.Contains(string(res.body), no) {
		t.Errorf("Pay button: %d %s", res.status, res.body)
	}

	// a demo payment started while the demo provider was on (before a restart)
	demo := orders.NewPayments(a.DB, a.Orders, a.clock, []byte(a.Cfg.PaymentWebhookSecret), orders.DemoProvider{})
	var userID int64
	if err := a.DB.Get(&userID, "SELECT user_id FROM orders WHERE order_no = ?", no); err != nil {
		t.Fatal(err)
	}
	pay, url, err := demo.Start(context.Background(), userID, no, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if g := a.do("GET", url, "", nil, nil); g.status != 404 {
		t.Errorf("GET %s: %d, want 404", url, g.status)
	}
	for _, action := range []string{"/approve", "/decline"} {
		// a valid CSRF token (from the order page) does not make the page exist
		if f := a.submitForm("/orders/"+no, "/cancel", url+action, tok); f.status != 404 {
			t.Errorf("POST %s%s: %d, want 404", url, action, f.status)
		}
	}
	body, sig := a.signedEvent(pay.PaymentID, pay.AmountMinor, "approved", a.clock.Now())
	if w := a.do("POST", "/api/v1/payments/demo/webhook", "", body, map[string]string{"X-Signature": sig}); w.status != 404 {
		t.Errorf("demo webhook: %d %s, want 404", w.status, w.body)
	}
	if st, pays := a.orderStatus(no); st != "pending" || strings.Join(pays, ",") != "started" {
		t.Errorf("order %s, payments %v; want pending, [started]", st, pays)
	}
	if st := a.seatState(show, seats[0]); st != "held" {
		t.Errorf("seat is %s, want held", st)
	}
	for _, path := range []string{"/", "/login", "/orders/" + no} {
		if p := a.do("GET", path, "", nil, map[string]string{"Cookie": "sf_session=" + tok}); strings.Contains(string(p.body), "Demo payments") {
			t.Errorf("GET %s shows the demo banner with the demo provider off", path)
		}
	}
}

// TestDemoPaymentsOn_BannerAndPay: with the demo provider on, every page carries the
// banner and the Pay button leads to the provider's page, whose approval pays.
func TestDemoPaymentsOn_BannerAndPay(t *testing.T) {
	a := newTestApp(t, nil)
	tok := a.newUser()
	show, seats := a.onSaleShow(1)
	no := a.do("POST", "/api/v1/shows/"+show+"/orders", tok, map[string]any{"seat_ids": seats}, nil).json(t)["order_no"].(string)
	for _, path := range []string{"/", "/login", "/orders/" + no, "/no-such-page"} {
		hdr := map[string]string{"Cookie": "sf_session=" + tok}
		if path == "/login" {
			hdr = nil // signed in, it redirects
		}
		p := a.do("GET", path, "", nil, hdr)
		if !strings.Contains(string(p.body), demoBanner) {
			t.Errorf("GET %s (%d) has no demo banner", path, p.status)
		}
	}
	res := a.submitForm("/orders/"+no, "/pay", "", tok)
	loc := res.header.Get("Location")
	if res.status != 303 || !strings.HasPrefix(loc, "/pay/demo/") {
		t.Fatalf("Pay button: %d %q", res.status, loc)
	}
	if ap := a.submitForm(loc, "/approve", "", ""); ap.status != 303 {
		t.Fatalf("approve: %d %s", ap.status, ap.body)
	}
	if st, pays := a.orderStatus(no); st != "paid" || strings.Join(pays, ",") != "approved" {
		t.Errorf("order %s, payments %v; want paid, [approved]", st, pays)
	}
}

// TestWebhookHTTP_StaleForgedAndReplayed: over HTTP, an event too old or from the
// future, or with a wrong or malformed signature, is 401 and changes nothing; a replay
// of an applied event is accepted and changes nothing.
func TestWebhookHTTP_StaleForgedAndReplayed(t *testing.T) {
	a := newTestApp(t, nil)
	tok := a.newUser()
	show, seats := a.onSaleShow(1)
	no := a.do("POST", "/api/v1/shows/"+show+"/orders", tok, map[string]any{"seat_ids": seats}, nil).json(t)["order_no"].(string)
	p := a.do("POST", "/api/v1/orders/"+no+"/pay", tok, nil, nil).json(t)
	id := p["payment_id"].(string)
	var amount int64
	a.DB.Get(&amount, "SELECT amount_minor FROM payments WHERE payment_id = ?", id)
	post := func(body []byte, sig string) apiResp {
		return a.do("POST", "/api/v1/payments/demo/webhook", "", body, map[string]string{"X-Signature": sig})
	}
	unchanged := func(what string) {
		t.Helper()
		if st, pays := a.orderStatus(no); st != "pending" || strings.Join(pays, ",") != "started" {
			t.Fatalf("%s: order %s, payments %v; want pending, [started]", what, st, pays)
		}
	}
	now := a.clock.Now()
	for name, at := range map[string]time.Time{"6 minutes old": now.Add(-6 * time.Minute), "2 minutes ahead": now.Add(2 * time.Minute)} {
		body, sig := a.signedEvent(id, amount, "approved", at)
		if r := post(body, sig); r.status != 401 || r.code() != "UNAUTHENTICATED" || !strings.Contains(string(r.body), "stale webhook") {
			t.Errorf("%s: %d %s, want 401 stale webhook", name, r.status, r.body)
		}
		unchanged(name)
	}
	undated := []byte(`{"payment_id":"` + id + `","status":"approved","amount_minor":` + jsonInt(amount) + `}`)
	if r := post(undated, a.Payments.Sign(undated)); r.status != 401 {
		t.Errorf("event without sent_at: %d %s", r.status, r.body)
	}
	unchanged("undated")

	body, sig := a.signedEvent(id, amount, "approved", now)
	for name, bad := range map[string]string{"wrong": strings.Repeat("ab", 32), "malformed": "not-hex!", "missing": "", "truncated": sig[:10]} {
		if r := post(body, bad); r.status != 401 || r.code() != "UNAUTHENTICATED" {
			t.Errorf("%s signature: %d %s, want 401", name, r.status, r.body)
		}
		unchanged(name + " signature")
	}

	if r := post(body, sig); r.status != 200 {
		t.Fatalf("fresh event: %d %s", r.status, r.body)
	}
	var paidAt time.Time
	a.DB.Get(&paidAt, "SELECT paid_at FROM orders WHERE order_no = ?", no)
	a.clock.Set(2 * time.Minute) // still inside the window
	if r := post(body, sig); r.status != 200 {
		t.Fatalf("replay: %d %s", r.status, r.body)
	}
	var again time.Time
	a.DB.Get(&again, "SELECT paid_at FROM orders WHERE order_no = ?", no)
	if st, pays := a.orderStatus(no); st != "paid" || strings.Join(pays, ",") != "approved" || !again.Equal(paidAt) {
		t.Errorf("after the replay: order %s, payments %v, paid at %v (was %v)", st, pays, again, paidAt)
	}
	if st := a.seatState(show, seats[0]); st != "sold" {
		t.Errorf("seat is %s, want sold", st)
	}
	a.clock.Set(6 * time.Minute) // the same event, now too old
	if r := post(body, sig); r.status != 401 {
		t.Errorf("replay after the window: %d %s, want 401", r.status, r.body)
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }
