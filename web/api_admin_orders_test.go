package web

import (
	"context"
	"encoding/json"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// TestAdminOrders_API drives the staff order endpoints: roles (anonymous 401, customer
// 403, staff and admin allowed), search with its filters and bad values, refund of a
// paid order (seats free again, a second refund 409, an unknown order 404), and
// cancelling a show (pending orders cancelled, paid ones refunded, the show as the
// public reads it, cancelled; a second cancel counts zero).
func TestAdminOrders_API(t *testing.T) {
	a := newTestApp(t, nil)
	staff, admin, cust := a.demoToken("staff"), a.demoToken("admin"), a.newUser()
	show, seats := a.onSaleShow(3)

	for _, ep := range []struct{ method, path string }{
		{"GET", "/api/v1/admin/orders"},
		{"POST", "/api/v1/admin/orders/NOSUCHORDER/refund"},
		{"POST", "/api/v1/admin/shows/" + show + "/cancel"},
	} {
		if r := a.do(ep.method, ep.path, "", map[string]any{}, nil); r.status != 401 || r.code() != "UNAUTHENTICATED" {
			t.Errorf("anonymous %s %s: %d %s", ep.method, ep.path, r.status, r.body)
		}
		if r := a.do(ep.method, ep.path, cust, map[string]any{}, nil); r.status != 403 || r.code() != "FORBIDDEN" {
			t.Errorf("customer %s %s: %d %s", ep.method, ep.path, r.status, r.body)
		}
	}
	for _, tok := range []string{staff, admin} {
		if r := a.do("POST", "/api/v1/admin/orders/NOSUCHORDER/refund", tok, map[string]any{}, nil); r.status != 404 || r.code() != "NOT_FOUND" {
			t.Errorf("refund of an unknown order: %d %s", r.status, r.body)
		}
	}

	// a paid order and a pending one on the show
	buyer := a.newUser()
	paid := a.do("POST", "/api/v1/shows/"+show+"/orders", buyer, map[string]any{"seat_ids": seats[:2]}, nil)
	if paid.status != 201 {
		t.Fatalf("order: %d %s", paid.status, paid.body)
	}
	paidNo := paid.json(t)["order_no"].(string)
	pr := a.do("POST", "/api/v1/orders/"+paidNo+"/pay", buyer, nil, nil)
	if pr.status != 200 {
		t.Fatalf("pay: %d %s", pr.status, pr.body)
	}
	if _, err := a.Payments.DemoDecide(context.Background(), pr.json(t)["payment_id"].(string), true); err != nil {
		t.Fatal(err)
	}
	other := a.newUser()
	pend := a.do("POST", "/api/v1/shows/"+show+"/orders", other, map[string]any{"seat_ids": seats[2:3]}, nil)
	if pend.status != 201 {
		t.Fatalf("order: %d %s", pend.status, pend.body)
	}
	pendNo := pend.json(t)["order_no"].(string)

	// search
	type found struct {
		Orders []struct {
			OrderNo string `json:"order_no"`
			Status  string `json:"status"`
			ShowID  string `json:"show_id"`
			Seats   []struct{ ID, Label string }
			User    struct{ ID, Email string }
		}
	}
	search := func(q string) found {
		t.Helper()
		r := a.do("GET", "/api/v1/admin/orders"+q, staff, nil, nil)
		var v found
		if r.status != 200 || json.Unmarshal(r.body, &v) != nil {
			t.Fatalf("search %s: %d %s", q, r.status, r.body)
		}
		return v
	}
	v := search("?show_id=" + show)
	if len(v.Orders) != 2 || v.Orders[0].OrderNo != pendNo || v.Orders[1].OrderNo != paidNo {
		t.Fatalf("orders of the show, newest first: %+v", v.Orders)
	}
	if o := v.Orders[1]; o.Status != "paid" || o.ShowID != show || len(o.Seats) != 2 || o.User.ID == "" || o.User.Email == "" {
		t.Errorf("paid order as staff see it: %+v", o)
	}
	if v := search("?status=paid&order_no=" + paidNo); len(v.Orders) != 1 {
		t.Errorf("search by status and number: %+v", v.Orders)
	}
	if v := search("?email=" + v.Orders[1].User.Email + "&limit=5"); len(v.Orders) != 1 || v.Orders[0].OrderNo != paidNo {
		t.Errorf("search by email: %+v", v.Orders)
	}
	for _, q := range []string{"?status=lost", "?show_id=abc", "?show_id=-1", "?limit=0", "?limit=501", "?limit=x", "?limit=", "?show_id=", "?status="} {
		if r := a.do("GET", "/api/v1/admin/orders"+q, staff, nil, nil); r.status != 400 || r.code() != "INVALID_REQUEST" {
			t.Errorf("search %s: %d %s", q, r.status, r.body)
		}
	}

	// refund
	if r := a.do("POST", "/api/v1/admin/orders/"+pendNo+"/refund", staff, map[string]any{"reason": "x"}, nil); r.status != 409 || r.code() != "ORDER_STATE" {
		t.Errorf("refund of a pending order: %d %s", r.status, r.body)
	}
	if r := a.do("POST", "/api/v1/admin/orders/"+paidNo+"/refund", staff, `{"reason": 7}`, nil); r.status != 400 {
		t.Errorf("refund with a bad body: %d %s", r.status, r.body)
	}
	r := a.do("POST", "/api/v1/admin/orders/"+paidNo+"/refund", staff, map[string]any{"reason": "double booking"}, nil)
	if r.status != 200 {
		t.Fatalf("refund: %d %s", r.status, r.body)
	}
	if o := r.json(t); o["status"] != "refunded" || o["order_no"] != paidNo || o["cancel_reason"] != "double booking" {
		t.Errorf("refunded order: %s", r.body)
	}
	for _, id := range seats[:2] {
		if st := a.seatState(show, id); st != "free" {
			t.Errorf("refunded seat %s is %s", id, st)
		}
	}
	if r := a.do("POST", "/api/v1/admin/orders/"+paidNo+"/refund", admin, nil, nil); r.status != 409 || r.code() != "ORDER_STATE" {
		t.Errorf("second refund: %d %s", r.status, r.body)
	}
	if o := a.do("GET", "/api/v1/orders/"+paidNo, buyer, nil, nil).json(t); o["status"] != "refunded" {
		t.Errorf("the buyer sees %v", o["status"])
	}

	// cancel the show
	if r := a.do("POST", "/api/v1/admin/shows/999999999/cancel", staff, nil, nil); r.status != 404 {
		t.Errorf("cancel of an unknown show: %d %s", r.status, r.body)
	}
	if r := a.do("POST", "/api/v1/admin/shows/"+show+"/cancel", staff, `["x"]`, nil); r.status != 400 {
		t.Errorf("cancel with a bad body: %d %s", r.status, r.body)
	}
	type cancelled struct {
		Show            map[string]any `json:"show"`
		CancelledOrders *int           `json:"cancelled_orders"`
		RefundedOrders  *int           `json:"refunded_orders"`
	}
	r = a.do("POST", "/api/v1/admin/shows/"+show+"/cancel", staff, map[string]any{"reason": "flooded"}, nil)
	var c cancelled
	if r.status != 200 || json.Unmarshal(r.body, &c) != nil || c.CancelledOrders == nil || c.RefundedOrders == nil {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	if c.Show["status"] != "cancelled" || c.Show["id"] != show || *c.CancelledOrders != 1 || *c.RefundedOrders != 0 {
		t.Errorf("cancel: %s", r.body)
	}
	public := a.do("GET", "/api/v1/shows/"+show, "", nil, nil).json(t)
	if !reflect.DeepEqual(public, c.Show) {
		t.Errorf("show in the answer %v differs from GET /shows/{id} %v", c.Show, public)
	}
	if st := a.seatStateFor(show, seats[2], staff); st != "free" { // signed in: an anonymous read may be up to 100 ms old
		t.Errorf("seat of the cancelled pending order is %s", st)
	}
	if o := a.do("GET", "/api/v1/orders/"+pendNo, other, nil, nil).json(t); o["status"] != "cancelled" {
		t.Errorf("pending order after the cancel: %v", o["status"])
	}
	r = a.do("POST", "/api/v1/admin/shows/"+show+"/cancel", admin, nil, nil)
	c = cancelled{}
	if r.status != 200 || json.Unmarshal(r.body, &c) != nil || c.Show["status"] != "cancelled" || c.CancelledOrders == nil ||
		*c.CancelledOrders != 0 || *c.RefundedOrders != 0 {
		t.Errorf("second cancel: %d %s", r.status, r.body)
	}
	if r := a.do("POST", "/api/v1/shows/"+show+"/orders", other, map[string]any{"seat_ids": seats[:1]}, nil); r.status != 422 || r.code() != "NOT_ON_SALE" {
		t.Errorf("order on a cancelled show: %d %s", r.status, r.body)
	}
}

// TestAdminOrders_SearchAnyText: an order number typed in any text (an accented letter,
// full-width digits from a Chinese input method, emoji, NUL, 10 KB) is searched for,
// never a fault: the API answers 200 with no match (MariaDB refused to compare the ASCII
// order_no column with such text, a 500) and the console's search shows its page, not
// the error page. The full-width spelling of a real order number finds that order.
func TestAdminOrders_SearchAnyText(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	show, seats := a.onSaleShow(1)
	no := a.orderSeats(a.newUser(), show, seats[:1])
	wide := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' {
			return r + 0xFEE0 // the full-width form
		}
		return r
	}, no)
	for _, q := range []string{"é", "１２３", "😀", "选座购票", "\x00", "a\x00b", strings.Repeat("9", 10<<10), strings.Repeat("é", 2000), "' OR 1=1 --"} {
		r := a.do("GET", "/api/v1/admin/orders?order_no="+url.QueryEscape(q), staff, nil, nil)
		var v struct{ Orders []any }
		if r.status != 200 || json.Unmarshal(r.body, &v) != nil || len(v.Orders) != 0 {
			t.Errorf("API search for %.40q: %d %.300s, want 200 and no order", q, r.status, r.body)
		}
		p := a.getPage("/admin/orders?order_no="+url.QueryEscape(q), staff)
		if p.status != 200 || len(orderLinks(p.body)) != 0 {
			t.Errorf("console search for %.40q: %d, want 200 and no order", q, p.status)
		}
	}
	r := a.do("GET", "/api/v1/admin/orders?order_no="+url.QueryEscape(wide), staff, nil, nil)
	var v struct {
		Orders []struct {
			OrderNo string `json:"order_no"`
		}
	}
	if r.status != 200 || json.Unmarshal(r.body, &v) != nil || len(v.Orders) != 1 || v.Orders[0].OrderNo != no {
		t.Errorf("API search for the full-width %q: %d %s, want order %s", wide, r.status, r.body, no)
	}
	if got := orderLinks(a.getPage("/admin/orders?order_no="+url.QueryEscape(wide), staff).body); len(got) != 1 || got[0] != no {
		t.Errorf("console search for the full-width %q: %v, want %s", wide, got, no)
	}
	if r := a.do("GET", "/api/v1/admin/orders/"+url.PathEscape(wide), staff, nil, nil); r.status != 200 {
		t.Errorf("GET the order by its full-width number: %d %.300s", r.status, r.body)
	}
}
