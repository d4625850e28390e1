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
		`{"seat_ids":["1"]}]`, `{"seat_ids":["1"]}}`, `{"seat_ids":["1"]} x`,
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

// TestParseExchangeBody_OneObjectOnly: an exchange body is one JSON object with
// seat_ids; anything after it (another value, a stray "]" or "}") is INVALID_REQUEST, as
// is a body that is not an object, and a well-formed one gives its seat ids.
func TestParseExchangeBody_OneObjectOnly(t *testing.T) {
	for _, b := range []string{`{"seat_ids":["1"]}]`, `{"seat_ids":["1"]}}`, `{"seat_ids":["1"]} {}`, `[]`, `{seat_ids`, `{}`} {
		t.Run(b, func(t *testing.T) {
			if _, err := parseExchangeBody([]byte(b)); services.ErrorCode(err) != services.CodeInvalidRequest {
				t.Errorf("%v, want INVALID_REQUEST", err)
			}
		})
	}
	ids, err := parseExchangeBody([]byte(" {\"seat_ids\":[\"12\",\"7\"]}\n"))
	if err != nil || len(ids) != 2 || ids[0] != 12 || ids[1] != 7 {
		t.Fatalf("%v %v, want [12 7]", ids, err)
	}
}

// BenchmarkParseOrderBody reads the body every buyer's order sends (two chosen seats):
// it runs once per order and per refusal, so its ns and allocations are part of a
// taken-seat answer's server CPU (BENCHMARKS.md).
func BenchmarkParseOrderBody(b *testing.B) {
	body := []byte(`{"seat_ids":["10234","10235"]}`)
	b.ReportAllocs()
	for b.Loop() {
		var req orders.CreateOrderRequest
		if err := parseOrderBody(body, &req); err != nil {
			b.Fatal(err)
		}
	}
}
