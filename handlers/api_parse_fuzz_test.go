package handlers

import (
	"errors"
	"testing"

	"seatflow/services"
	"seatflow/services/orders"
)

// FuzzParseOrderBody: any body is either refused with INVALID_REQUEST or gives a
// request the order pipeline can trust: seat ids positive and distinct, at most
// MaxSeatsPerRequest of them, and a quantity (when asked for) in 1..MaxSeatsPerRequest.
func FuzzParseOrderBody(f *testing.F) {
	for _, s := range []string{
		`{"seat_ids":["101","102"]}`,
		`{"seat_ids":["101","101"]}`,
		`{"seat_ids":[101]}`,
		`{"zone":"standard","quantity":2,"accessible":true}`,
		`{"zone":"vip","quantity":0}`,
		`{"seat_ids":["9223372036854775808"]}`,
		`{"seat_ids":["1"],"expected_total_minor":9000}`,
		`{"seat_ids":["1"]} {"seat_ids":["2"]}`,
		`null`, `[]`, `"x"`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var req orders.CreateOrderRequest
		err := parseOrderBody(body, &req)
		if err != nil {
			var se *services.Error
			if !errors.As(err, &se) || se.Code != services.CodeInvalidRequest || se.Message == "" {
				t.Fatalf("refused with %v", err)
			}
			return
		}
		if len(req.SeatIDs) > orders.MaxSeatsPerRequest {
			t.Fatalf("%d seats accepted", len(req.SeatIDs))
		}
		seen := map[int64]bool{}
		for _, id := range req.SeatIDs {
			if id <= 0 || seen[id] {
				t.Fatalf("seat id %d accepted (positive and distinct wanted): %q", id, body)
			}
			seen[id] = true
		}
		if req.Quantity < 0 || req.Quantity > orders.MaxSeatsPerRequest {
			t.Fatalf("quantity %d accepted", req.Quantity)
		}
	})
}
