package web

import (
	"context"
	"encoding/json"
	"testing"
)

// paidOrderOf orders the seats for buyer on show, pays through the demo provider and
// returns the order number.
func (a *testApp) paidOrderOf(show, buyer string, seats []string) string {
	a.t.Helper()
	r := a.do("POST", "/api/v1/shows/"+show+"/orders", buyer, map[string]any{"seat_ids": seats}, nil)
	if r.status != 201 {
		a.t.Fatalf("order: %d %s", r.status, r.body)
	}
	no := r.json(a.t)["order_no"].(string)
	pr := a.do("POST", "/api/v1/orders/"+no+"/pay", buyer, nil, nil)
	if pr.status != 200 {
		a.t.Fatalf("pay: %d %s", pr.status, pr.body)
	}
	if _, err := a.Payments.DemoDecide(context.Background(), pr.json(a.t)["payment_id"].(string), true); err != nil {
		a.t.Fatal(err)
	}
	return no
}

// seatPricesOf is what the order charged for each of its seats (price_minor by seat id),
// as the buyer reads the order: the demo's prices depend on the hour a show starts, so a
// test that picks a show by the clock reads them rather than assume one.
func (a *testApp) seatPricesOf(no, token string) map[string]float64 {
	a.t.Helper()
	var o struct {
		Seats []struct {
			ID         string  `json:"id"`
			PriceMinor float64 `json:"price_minor"`
		}
	}
	if r := a.do("GET", "/api/v1/orders/"+no, token, nil, nil); r.status != 200 || json.Unmarshal(r.body, &o) != nil {
		a.t.Fatalf("order %s: %d %s", no, r.status, r.body)
	}
	prices := map[string]float64{}
	for _, s := range o.Seats {
		prices[s.ID] = s.PriceMinor
	}
	return prices
}

// seatStateFor is a seat's state in the show's seat map as a signed-in user reads it:
// an anonymous reader may get a map up to 100 ms old while the show is busy.
func (a *testApp) seatStateFor(show, id, token string) string {
	a.t.Helper()
	var m struct{ Seats []struct{ ID, State string } }
	if r := a.do("GET", "/api/v1/shows/"+show+"/seats", token, nil, nil); r.status != 200 || json.Unmarshal(r.body, &m) != nil {
		a.t.Fatalf("seat map: %d", r.status)
	}
	for _, s := range m.Seats {
		if s.ID == id {
			return s.State
		}
	}
	return "missing"
}

// TestRefundSeats_API: staff refund two of three seats of a paid order through
// POST /api/v1/admin/orders/{no}/refund with seat_ids: the order stays paid, its seats
// carry refunded true or false and the order refunded_minor, in the staff and the
// buyer's views, the seats are free on the seat map; bad bodies and seats are refused in
// the contract's shape (table below) and change nothing; the ticket check lists only the
// kept seat; without seat_ids the rest is
// refunded and the order ends refunded.
func TestRefundSeats_API(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	show, seats := a.onSaleShow(5)
	buyer := a.newUser()
	no := a.paidOrderOf(show, buyer, seats[:3])
	other := a.paidOrderOf(show, a.newUser(), seats[3:4])
	_ = other
	url := "/api/v1/admin/orders/" + no + "/refund"
	price := a.seatPricesOf(no, buyer)
	firstTwo, all := price[seats[0]]+price[seats[1]], price[seats[0]]+price[seats[1]]+price[seats[2]]
	if firstTwo == 0 || price[seats[2]] == 0 {
		t.Fatalf("the order's seat prices %v lack a seat of %v", price, seats[:3])
	}
	labels := map[string]string{}
	for _, s := range a.seatMap(show) {
		labels[s.ID] = s.Label
	}
	labelOf := func(id string) string { return labels[id] }

	r := a.do("POST", url, staff, map[string]any{"reason": "two cannot come", "seat_ids": seats[:2]}, nil)
	if r.status != 200 {
		t.Fatalf("part refund: %d %s", r.status, r.body)
	}
	check := func(who string, o map[string]any, status string, refunded float64, seatRefunded ...bool) {
		t.Helper()
		if o["status"] != status || o["refunded_minor"] != refunded {
			t.Errorf("%s: status %v, refunded_minor %v; want %s, %v", who, o["status"], o["refunded_minor"], status, refunded)
		}
		for i, s := range o["seats"].([]any) {
			if got := s.(map[string]any)["refunded"]; got != seatRefunded[i] {
				t.Errorf("%s: seat %d refunded %v, want %v", who, i, got, seatRefunded[i])
			}
		}
	}
	check("staff's answer", r.json(t), "paid", firstTwo, true, true, false)
	check("buyer's view", a.do("GET", "/api/v1/orders/"+no, buyer, nil, nil).json(t), "paid", firstTwo, true, true, false)
	found := a.do("GET", "/api/v1/admin/orders?order_no="+no, staff, nil, nil).json(t)["orders"].([]any)
	check("staff search", found[0].(map[string]any), "paid", firstTwo, true, true, false)
	for _, id := range seats[:2] {
		if st := a.seatStateFor(show, id, buyer); st != "free" {
			t.Errorf("refunded seat %s is %s", id, st)
		}
	}
	// the door's check lists only the seats the ticket still holds: a refunded seat may
	// be sold again, and must not stand on two valid tickets
	ref, _ := a.do("GET", "/api/v1/orders/"+no, buyer, nil, nil).json(t)["ticket_ref"].(string)
	tk := a.do("GET", "/api/v1/admin/tickets/"+ref, staff, nil, nil).json(t)
	if got, _ := json.Marshal(tk["seats"]); tk["valid"] != true || string(got) != `["`+labelOf(seats[2])+`"]` {
		t.Errorf("ticket check after the part refund: valid %v, seats %s; want valid, only %s", tk["valid"], got, labelOf(seats[2]))
	}

	for _, tc := range []struct {
		name   string
		body   any
		status int
		code   string
		seats  []any
	}{
		{"seat_ids not a list", `{"seat_ids":"101"}`, 400, "INVALID_REQUEST", nil},
		{"seat_ids empty", map[string]any{"seat_ids": []string{}}, 400, "INVALID_REQUEST", nil},
		{"seat id not digits", map[string]any{"seat_ids": []string{"A1"}}, 400, "INVALID_REQUEST", nil},
		{"seat named twice", map[string]any{"seat_ids": []string{seats[2], seats[2]}}, 400, "INVALID_REQUEST", nil},
		{"unknown field", map[string]any{"seats": []string{seats[2]}}, 400, "INVALID_REQUEST", nil},
		{"seat of another order", map[string]any{"seat_ids": []string{seats[3]}}, 400, "INVALID_REQUEST", []any{labelOf(seats[3])}},
		{"seat already refunded", map[string]any{"seat_ids": []string{seats[0], seats[2]}}, 409, "ORDER_STATE", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := a.do("POST", url, staff, tc.body, nil)
			if r.status != tc.status || r.code() != tc.code {
				t.Fatalf("%d %s, want %d %s", r.status, r.body, tc.status, tc.code)
			}
			if tc.seats != nil {
				if got := r.json(t)["error"].(map[string]any)["seats"]; len(got.([]any)) != 1 || got.([]any)[0] != tc.seats[0] {
					t.Errorf("error seats %v, want %v", got, tc.seats)
				}
			}
			if tc.code == "ORDER_STATE" {
				if got, _ := r.json(t)["error"].(map[string]any)["seats"].([]any); len(got) != 1 {
					t.Errorf("error seats %v, want the refunded seat's label", got)
				}
			}
			check("after a refused refund", a.do("GET", "/api/v1/orders/"+no, buyer, nil, nil).json(t), "paid", firstTwo, true, true, false)
		})
	}

	r = a.do("POST", url, staff, map[string]any{"reason": "the rest"}, nil)
	if r.status != 200 {
		t.Fatalf("refund of the rest: %d %s", r.status, r.body)
	}
	check("after the rest", r.json(t), "refunded", all, true, true, true)
	if r := a.do("POST", url, staff, map[string]any{"seat_ids": seats[2:3]}, nil); r.status != 409 || r.code() != "ORDER_STATE" {
		t.Errorf("a part refund of a refunded order: %d %s", r.status, r.body)
	}
}

// TestSelfRefund_API: a show's self_refund_until_h set through PATCH lets the buyer's
// POST /api/v1/orders/{no}/cancel refund a paid order (200, refunded, end_reason
// refunded_by_buyer); null again makes it 409 ORDER_STATE as before; the show's JSON
// carries the value; a bad value is 400.
func TestSelfRefund_API(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	show, seats := a.onSaleShow(2)
	buyer := a.newUser()
	first := a.paidOrderOf(show, buyer, seats[:1])
	if r := a.do("POST", "/api/v1/orders/"+first+"/cancel", buyer, nil, nil); r.status != 409 || r.code() != "ORDER_STATE" {
		t.Fatalf("cancel of a paid order without self-refund: %d %s", r.status, r.body)
	}
	for _, bad := range []any{-1, 8761, "24", 1.5} {
		if r := a.do("PATCH", "/api/v1/admin/shows/"+show, staff, map[string]any{"self_refund_until_h": bad}, nil); r.status != 400 || r.code() != "INVALID_REQUEST" {
			t.Errorf("self_refund_until_h %v: %d %s", bad, r.status, r.body)
		}
	}
	r := a.do("PATCH", "/api/v1/admin/shows/"+show, staff, map[string]any{"self_refund_until_h": 0}, nil)
	if r.status != 200 || r.json(t)["self_refund_until_h"] != float64(0) {
		t.Fatalf("set self_refund_until_h: %d %s", r.status, r.body)
	}
	r = a.do("POST", "/api/v1/orders/"+first+"/cancel", buyer, nil, nil)
	if o := r.json(t); r.status != 200 || o["status"] != "refunded" || o["end_reason"] != "refunded_by_buyer" || o["refunded_minor"] == float64(0) {
		t.Fatalf("self-refund: %d %s", r.status, r.body)
	}
	second := a.paidOrderOf(show, buyer, seats[1:2])
	if r := a.do("PATCH", "/api/v1/admin/shows/"+show, staff, map[string]any{"self_refund_until_h": nil}, nil); r.status != 200 || r.json(t)["self_refund_until_h"] != nil {
		t.Fatalf("clear self_refund_until_h: %d %s", r.status, r.body)
	}
	if r := a.do("POST", "/api/v1/orders/"+second+"/cancel", buyer, nil, nil); r.status != 409 || r.code() != "ORDER_STATE" {
		t.Errorf("cancel after self-refund was turned off: %d %s", r.status, r.body)
	}
}
