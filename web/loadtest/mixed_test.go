package loadtest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestMixedOrderBody: the typed sale's bodies are the contract's order bodies: chosen
// seats name every other seat child in "tickets", best-available splits "ticket_counts"
// to add up to the quantity, and both carry the voucher.
func TestMixedOrderBody(t *testing.T) {
	type body struct {
		SeatIDs      []string          `json:"seat_ids"`
		Tickets      map[string]string `json:"tickets"`
		Zone         string            `json:"zone"`
		Quantity     int               `json:"quantity"`
		TicketCounts map[string]int    `json:"ticket_counts"`
		Voucher      string            `json:"voucher"`
	}
	for _, tc := range []struct {
		name  string
		seats []int64
		zone  string
		q     int
		want  body
	}{
		{"one chosen seat", []int64{7}, "", 1, body{SeatIDs: []string{"7"}, Tickets: map[string]string{"7": mixedChildType}, Voucher: "LT-1"}},
		{"three chosen seats", []int64{7, 8, 9}, "", 3, body{SeatIDs: []string{"7", "8", "9"},
			Tickets: map[string]string{"7": mixedChildType, "9": mixedChildType}, Voucher: "LT-1"}},
		{"best available, one seat", nil, zoneStandard, 1, body{Zone: zoneStandard, Quantity: 1, TicketCounts: map[string]int{mixedChildType: 1}, Voucher: "LT-1"}},
		{"best available, four seats", nil, zonePremium, 4, body{Zone: zonePremium, Quantity: 4,
			TicketCounts: map[string]int{mixedChildType: 2, "adult": 2}, Voucher: "LT-1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := mixedOrderBody(tc.seats, tc.zone, tc.q, "LT-1")
			var got body
			dec := json.NewDecoder(strings.NewReader(string(raw)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&got); err != nil {
				t.Fatalf("%s: %v", raw, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s\n got %+v\nwant %+v", raw, got, tc.want)
			}
		})
	}
}

// TestMixedVsPlain: the typed flash sale is stated against the plain one of the same
// run, as a target (PASS from 0.90x, not run without either) and as a table beside the
// ceilings' ratios, which is left out when either scenario did not run.
func TestMixedVsPlain(t *testing.T) {
	ceilings := []*Result{res(CeilingMySQL, 2000, time.Millisecond), res(CeilingRedis, 20000, time.Millisecond)}
	for _, tc := range []struct {
		name         string
		plain, mixed *Result
		status       string
		table        []string
	}{
		{"at the floor", res(ScenarioFlash, 1000, 20*time.Millisecond), res(ScenarioFlashMixed, 900, 30*time.Millisecond), StatusPass,
			[]string{"| created orders/s | 1000 | 900 | 0.90 |", "| ratio to the mysql ceiling (2000/s) | 0.50 | 0.45 | 0.90 |", "| p99 | 20.00 ms | 30.00 ms | 1.50 |"}},
		{"just short", res(ScenarioFlash, 1000, 0), res(ScenarioFlashMixed, 899, 0), StatusMiss, []string{"| created orders/s | 1000 | 899 | 0.90 |"}},
		{"typed sale not run", res(ScenarioFlash, 1000, 0), nil, StatusNotRun, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scen := []*Result{tc.plain}
			if tc.mixed != nil {
				scen = append(scen, tc.mixed)
			}
			if got := statusOf(EvaluateTargets(ceilings, scen, 0, false), "flash sale with ticket types"); got.Status != tc.status {
				t.Errorf("target %+v, want %s", got, tc.status)
			}
			var b strings.Builder
			(&Report{Ceilings: ceilings, Scenarios: scen}).writeMixedVsPlain(&b)
			if tc.table == nil && b.Len() > 0 {
				t.Errorf("a table without the typed sale:\n%s", b.String())
			}
			for _, row := range tc.table {
				if !strings.Contains(b.String(), row) {
					t.Errorf("no row %q in\n%s", row, b.String())
				}
			}
		})
	}
}
