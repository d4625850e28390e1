package handlers

import (
	"testing"

	"seatflow/services"
	"seatflow/services/orders"
)

// TestParseOrderBody_RejectsWrongTypes: every malformed body is INVALID_REQUEST, and
// the well-formed ones parse to the request the service gets.
func TestParseOrderBody_RejectsWrongTypes(t *testing.T) {
	bad := []string{
		`{seat_ids:`, `[]`, `{"seat_ids":[]}`, `{"seat_ids":[101]}`, `{"seat_ids":["101","101"]}`,
		`{"seat_ids":["-1"]}`, `{"seat_ids":["1.5"]}`, `{"seat_ids":["101\u0000"]}`, `{"seat_ids":["99999999999999999999"]}`,
		`{"zone":"standard","quantity":0}`, `{"zone":"standard","quantity":-2}`, `{"zone":"standard","quantity":1.5}`,
		`{"zone":"standard","quantity":"2"}`, `{"zone":"standard","quantity":1e1}`, `{"zone":"standard"}`, `{"quantity":2}`,
		`{"zone":2,"quantity":2}`, `{"seat_ids":["1"],"zone":"standard","quantity":1}`,
		`{"seat_ids":["1"],"expected_total_minor":"9000"}`, `{"seat_ids":["1"],"expected_total_minor":90.5}`,
		`{"zone":"standard","quantity":2,"accessible":"yes"}`, `{"seat_ids":["1"]} {}`,
	}
	for _, b := range bad {
		var req orders.CreateOrderRequest
		if err := parseOrderBody([]byte(b), &req); services.ErrorCode(err) != services.CodeInvalidRequest {
			t.Errorf("%s: %v, want INVALID_REQUEST", b, err)
		}
	}
	var req orders.CreateOrderRequest
	if err := parseOrderBody([]byte(`{"seat_ids":["101","7"],"expected_total_minor":9000}`), &req); err != nil {
		t.Fatal(err)
	}
	if len(req.SeatIDs) != 2 || req.SeatIDs[0] != 101 || req.ExpectedTotalMinor == nil || *req.ExpectedTotalMinor != 9000 {
		t.Errorf("parsed %+v", req)
	}
	req = orders.CreateOrderRequest{}
	if err := parseOrderBody([]byte(`{"zone":"premium","quantity":3,"accessible":true}`), &req); err != nil || req.Zone != "premium" || req.Quantity != 3 || !req.Accessible {
		t.Errorf("best available parsed %+v, %v", req, err)
	}
	req = orders.CreateOrderRequest{}
	if err := parseOrderBody([]byte(`{"seat_ids":["5"],"voucher":" summer-15 "}`), &req); err != nil || req.Voucher != "summer-15" {
		t.Errorf("voucher parsed %q, %v", req.Voucher, err)
	}
	if err := parseOrderBody([]byte(`{"seat_ids":["5"],"voucher":15}`), &orders.CreateOrderRequest{}); services.ErrorCode(err) != services.CodeInvalidRequest {
		t.Errorf("a voucher that is not a string: %v", err)
	}
}
