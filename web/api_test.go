package web

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"seatflow/services/reconcile"
)

// TestAPI_BookPayAndSeeSold walks the buyer's whole path through the JSON API and the
// demo provider's page: order -> pay -> approve -> paid, seat sold, cancel refused.
func TestAPI_BookPayAndSeeSold(t *testing.T) {
	a := newTestApp(t, nil)
	tok := a.newUser()
	show, seats := a.onSaleShow(2)
	r := a.do("POST", "/api/v1/shows/"+show+"/orders", tok, map[string]any{"seat_ids": seats}, nil)
	if r.status != 201 {
		t.Fatalf("order: %d %s", r.status, r.body)
	}
	no := r.json(t)["order_no"].(string)
	r = a.do("POST", "/api/v1/orders/"+no+"/pay", tok, nil, nil)
	if r.status != 200 {
		t.Fatalf("pay: %d %s", r.status, r.body)
	}
	redirect := r.json(t)["redirect_url"].(string)
	page := a.do("GET", redirect, "", nil, nil)
	if page.status != 200 || !strings.Contains(strings.ToLower(string(page.body)), "approve") {
		t.Fatalf("demo page: %d %s", page.status, page.body)
	}
	// submit the approve form as the contract checker does: its inputs (the CSRF token
	// among them) and the page's Set-Cookie values sent back, one Cookie header each
	var action string
	vals := url.Values{}
	for _, f := range regexp.MustCompile(`(?is)<form\b([^>]*)>(.*?)</form>`).FindAllStringSubmatch(string(page.body), -1) {
		act := htmlAttr(f[1], "action")
		if !strings.Contains(act, "approve") {
			continue
		}
		action = act
		for _, in := range regexp.MustCompile(`(?is)<input\b[^>]*>`).FindAllString(f[2], -1) {
			if n := htmlAttr(in, "name"); n != "" && !strings.EqualFold(htmlAttr(in, "type"), "submit") {
				vals.Set(n, htmlAttr(in, "value"))
			}
		}
		break
	}
	if action == "" {
		t.Fatalf("no approve form: %s", page.body)
	}
	if vals.Get("_csrf") == "" || len(page.header.Values("Set-Cookie")) == 0 {
		t.Fatalf("the demo page issued no CSRF token: inputs %v, cookies %q", vals, page.header.Values("Set-Cookie"))
	}
	// a forged approve (no CSRF token) is refused and changes nothing
	if f := a.do("POST", action, "", "", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}); f.status != 403 ||
		!strings.Contains(string(f.body), "came from another site") {
		t.Fatalf("forged approve: %d %s", f.status, f.body)
	}
	if o := a.do("GET", "/api/v1/orders/"+no, tok, nil, nil).json(t); o["status"] != "pending" {
		t.Fatalf("order after a forged approve: %v", o)
	}
	req, err := http.NewRequest("POST", a.base+action, strings.NewReader(vals.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, c := range page.header.Values("Set-Cookie") {
		req.Header.Add("Cookie", strings.SplitN(c, ";", 2)[0])
	}
	res, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode >= 400 {
		t.Fatalf("approve: %d", res.StatusCode)
	}
	o := a.do("GET", "/api/v1/orders/"+no, tok, nil, nil).json(t)
	if o["status"] != "paid" || o["paid_at"] == nil {
		t.Fatalf("order after approval: %v", o)
	}
	for _, s := range seats {
		if st := a.seatState(show, s); st != "sold" {
			t.Errorf("seat %s is %s after payment", s, st)
		}
	}
	if c := a.do("POST", "/api/v1/orders/"+no+"/cancel", tok, nil, nil); c.status != 409 || c.code() != "ORDER_STATE" {
		t.Errorf("cancel of a paid order: %d %s", c.status, c.body)
	}
}

// htmlAttr is a tag's attribute value, as the contract checker reads it.
func htmlAttr(tag, name string) string {
	m := regexp.MustCompile(`(?is)\s` + name + `\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))`).FindStringSubmatch(tag)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1] + m[2] + m[3])
}

// TestAPI_ExpiryTaskEndsUnpaidOrder proves the asynq task (invariant 8's fast path)
// expires an order at its deadline and frees its seats, with the real worker.
func TestAPI_ExpiryTaskEndsUnpaidOrder(t *testing.T) {
	a := newTestApp(t, func(c *Config) { c.HoldMinutes = 1 })
	tok := a.newUser()
	show, seats := a.onSaleShow(1)
	a.clock.Set(-58 * time.Second) // the deadline is 2 s of real time away
	r := a.do("POST", "/api/v1/shows/"+show+"/orders", tok, map[string]any{"seat_ids": seats}, nil)
	if r.status != 201 {
		t.Fatalf("order: %d %s", r.status, r.body)
	}
	a.clock.Set(0)
	no := r.json(t)["order_no"].(string)
	deadline := time.Now().Add(20 * time.Second)
	status := ""
	for time.Now().Before(deadline) {
		// read MySQL directly: GET /orders/{no} would expire the order itself
		if err := a.DB.Get(&status, "SELECT status FROM orders WHERE order_no = ?", no); err != nil {
			t.Fatal(err)
		}
		if status == "expired" {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if status != "expired" {
		t.Fatalf("order is %q 20 s after its deadline", status)
	}
	if st := a.seatState(show, seats[0]); st != "free" {
		t.Errorf("seat of the expired order is %s", st)
	}
}

// TestAPI_LatePaymentIsRefunded: an approval that arrives after the buyer cancelled is
// recorded and refunded, and the seat stays with whoever holds it now.
func TestAPI_LatePaymentIsRefunded(t *testing.T) {
	a := newTestApp(t, nil)
	tok, other := a.newUser(), a.newUser()
	show, seats := a.onSaleShow(1)
	no := a.do("POST", "/api/v1/shows/"+show+"/orders", tok, map[string]any{"seat_ids": seats}, nil).json(t)["order_no"].(string)
	pay := a.do("POST", "/api/v1/orders/"+no+"/pay", tok, nil, nil).json(t)
	if c := a.do("POST", "/api/v1/orders/"+no+"/cancel", tok, nil, nil); c.status != 200 {
		t.Fatalf("cancel: %d %s", c.status, c.body)
	}
	if r := a.do("POST", "/api/v1/shows/"+show+"/orders", other, map[string]any{"seat_ids": seats}, nil); r.status != 201 {
		t.Fatalf("second buyer: %d %s", r.status, r.body)
	}
	if _, err := a.Payments.DemoDecide(context.Background(), pay["payment_id"].(string), true); err != nil {
		t.Fatal(err)
	}
	var pst, ost string
	a.DB.Get(&pst, "SELECT status FROM payments WHERE payment_id = ?", pay["payment_id"])
	a.DB.Get(&ost, "SELECT status FROM orders WHERE order_no = ?", no)
	if pst != "refunded" || ost != "cancelled" {
		t.Errorf("late payment %s, order %s; want refunded, cancelled", pst, ost)
	}
	if st := a.seatState(show, seats[0]); st != "held" {
		t.Errorf("seat is %s, want still held by the second buyer", st)
	}
}

// TestAPI_ErrorShapes checks statuses and the contract's error body for requests that
// fail before any service work, and that they write nothing.
func TestAPI_ErrorShapes(t *testing.T) {
	a := newTestApp(t, nil)
	tok := a.newUser()
	show, seats := a.onSaleShow(1)
	big := `{"seat_ids":["` + strings.Repeat("1", 70<<10) + `"]}`
	cases := []struct {
		name, method, path, token string
		body                      any
		hdr                       map[string]string
		status                    int
		code                      string
	}{
		{"oversized body", "POST", "/api/v1/shows/" + show + "/orders", tok, big, nil, 413, "PAYLOAD_TOO_LARGE"},
		{"oversized before auth", "POST", "/api/v1/shows/" + show + "/orders", "", big, nil, 413, "PAYLOAD_TOO_LARGE"},
		{"no token", "POST", "/api/v1/shows/" + show + "/orders", "", map[string]any{"seat_ids": seats}, nil, 401, "UNAUTHENTICATED"},
		{"bad token", "GET", "/api/v1/orders", "nope", nil, nil, 401, "UNAUTHENTICATED"},
		{"malformed before 404", "POST", "/api/v1/shows/999999/orders", tok, "{", nil, 400, "INVALID_REQUEST"},
		{"unknown show", "POST", "/api/v1/shows/999999/orders", tok, map[string]any{"seat_ids": seats}, nil, 404, "NOT_FOUND"},
		{"unknown show page", "GET", "/api/v1/shows/abc", "", nil, nil, 404, "NOT_FOUND"},
		{"numeric seat id", "POST", "/api/v1/shows/" + show + "/orders", tok, `{"seat_ids":[1]}`, nil, 400, "INVALID_REQUEST"},
		{"bad date", "GET", "/api/v1/shows?date=2026-13-01", "", nil, nil, 400, "INVALID_REQUEST"},
		{"bad idempotency key", "POST", "/api/v1/shows/" + show + "/orders", tok, map[string]any{"seat_ids": seats}, map[string]string{"Idempotency-Key": strings.Repeat("k", 65)}, 400, "INVALID_REQUEST"},
		{"bad webhook signature", "POST", "/api/v1/payments/demo/webhook", "", `{"payment_id":"pay_x","status":"approved"}`, map[string]string{"X-Signature": "00"}, 401, "UNAUTHENTICATED"},
		{"customer on admin", "POST", "/api/v1/admin/reconcile", tok, nil, nil, 403, "FORBIDDEN"},
	}
	for _, c := range cases {
		r := a.do(c.method, c.path, c.token, c.body, c.hdr)
		if r.status != c.status || r.code() != c.code {
			t.Errorf("%s: %d %s, want %d %s", c.name, r.status, r.body, c.status, c.code)
		}
	}
	if st := a.seatState(show, seats[0]); st != "free" {
		t.Errorf("refused requests changed the seat to %s", st)
	}
	var n int
	a.DB.Get(&n, "SELECT COUNT(*) FROM orders WHERE order_no NOT LIKE 'DEMO%'")
	if n != 0 {
		t.Errorf("%d orders written by refused requests", n)
	}
}

// TestAPI_OpsEndpoints: health, readiness and the seatflow metrics.
func TestAPI_OpsEndpoints(t *testing.T) {
	a := newTestApp(t, nil)
	tok := a.newUser()
	show, seats := a.onSaleShow(1)
	a.do("POST", "/api/v1/shows/"+show+"/orders", tok, map[string]any{"seat_ids": seats}, nil)
	for _, p := range []string{"/healthz", "/readyz"} {
		if r := a.do("GET", p, "", nil, nil); r.status != 200 {
			t.Errorf("%s -> %d", p, r.status)
		}
	}
	if _, err := a.Reconciler.Run(context.Background(), reconcile.ReconcileOptions{Trigger: reconcile.TriggerCLI, ShowID: mustID(t, show)}); err != nil {
		t.Fatal(err)
	}
	r := a.do("GET", "/metrics", "", nil, nil)
	for _, m := range []string{"seatflow_orders_created_total 1", "seatflow_create_order_seconds_count", "seatflow_hold_conflicts_total", "seatflow_orders_expired_total",
		`seatflow_reconcile_runs_total{result="done",trigger="cli"} 1`, "seatflow_reconcile_run_seconds_count 1", "seatflow_reconcile_lease_lost_total 0",
		"seatflow_expiry_cancel_errors_total 0"} {
		if !strings.Contains(string(r.body), m) {
			t.Errorf("/metrics lacks %q", m)
		}
	}
}

// mustID parses an id from the API.
func mustID(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("id %q: %v", s, err)
	}
	return n
}
