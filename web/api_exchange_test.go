package web

import (
	"strings"
	"testing"
)

// TestAPI_ExchangeErrors: POST /api/v1/orders/{no}/exchange answers each refusal in the
// contract's shape (checked against openapi.json by a.do) and changes nothing: the order
// keeps its seats and the seat map is as it was; then an exchange goes through and
// answers the order on its new seats, the old seat free.
func TestAPI_ExchangeErrors(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(6)
	buyer, other := a.newUser(), a.newUser()
	no := a.orderSeats(buyer, show, seats[:2])
	a.orderSeats(other, show, seats[2:3])
	ended := a.orderSeats(buyer, show, seats[3:4])
	if r := a.do("POST", "/api/v1/orders/"+ended+"/cancel", buyer, nil, nil); r.status != 200 {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	body := func(ids ...string) map[string]any { return map[string]any{"seat_ids": ids} }
	cases := []struct {
		name   string
		token  string
		no     string
		body   any
		status int
		code   string
		seats  string
	}{
		{"signed out", "", no, body(seats[0], seats[4]), 401, "UNAUTHENTICATED", ""},
		{"another buyer's order", other, no, body(seats[0], seats[4]), 404, "NOT_FOUND", ""},
		{"no body", buyer, no, nil, 400, "INVALID_REQUEST", ""},
		{"empty list", buyer, no, body(), 400, "INVALID_REQUEST", ""},
		{"not ids", buyer, no, body("x1", seats[4]), 400, "INVALID_REQUEST", ""},
		{"a seat twice", buyer, no, body(seats[4], seats[4]), 400, "INVALID_REQUEST", ""},
		{"fewer seats", buyer, no, body(seats[4]), 400, "INVALID_REQUEST", ""},
		{"the same seats", buyer, no, body(seats[1], seats[0]), 400, "INVALID_REQUEST", ""},
		{"a seat of no hall", buyer, no, body(seats[0], "999999999"), 422, "SEAT_NOT_IN_SHOW", ""},
		{"a taken seat", buyer, no, body(seats[0], seats[2]), 409, "SEAT_TAKEN", "taken"},
		{"an ended order", buyer, ended, body(seats[5]), 409, "ORDER_STATE", ""},
	}
	before := a.seatMap(show)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := a.do("POST", "/api/v1/orders/"+c.no+"/exchange", c.token, c.body, nil)
			if r.status != c.status || r.code() != c.code {
				t.Fatalf("%d %s, want %d %s", r.status, r.body, c.status, c.code)
			}
			if c.seats != "" && !strings.Contains(string(r.body), `"seats":[`) {
				t.Errorf("SEAT_TAKEN without the seats: %s", r.body)
			}
			after := a.seatMap(show)
			for i := range before {
				if before[i] != after[i] {
					t.Errorf("seat %s went from %s to %s", before[i].Label, before[i].State, after[i].State)
				}
			}
		})
	}
	r := a.do("POST", "/api/v1/orders/"+no+"/exchange", buyer, body(seats[0], seats[4]), nil)
	if r.status != 200 {
		t.Fatalf("exchange: %d %s", r.status, r.body)
	}
	if a.seatState(show, seats[1]) != "free" || a.seatState(show, seats[4]) != "held" {
		t.Errorf("after the exchange: old seat %s, new seat %s", a.seatState(show, seats[1]), a.seatState(show, seats[4]))
	}
}
