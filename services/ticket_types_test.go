package services

import (
	"reflect"
	"testing"
)

// TestShow_DealTicketCounts: each type, by code, goes to the seats in order whose zone
// sells it and no other type took; the rest are adult; a type short of seats says how
// many it lacks.
func TestShow_DealTicketCounts(t *testing.T) {
	s := &Show{Zones: []Zone{{Code: "standard", PriceMinor: 4000}, {Code: "vip", PriceMinor: 9000}},
		TicketPrices: []TicketPrice{{Type: "child", Zone: "standard", PriceMinor: 2500},
			{Type: "senior", Zone: "standard", PriceMinor: 3000}, {Type: "senior", Zone: "vip", PriceMinor: 7000}}}
	for _, tc := range []struct {
		name      string
		zones     []string
		counts    map[string]int
		want      []string
		shortType string
		short     int
	}{
		{"none", []string{"standard", "standard"}, nil, []string{"adult", "adult"}, "", 0},
		{"one child", []string{"standard", "standard"}, map[string]int{"child": 1}, []string{"child", "adult"}, "", 0},
		{"child skips a zone without its price", []string{"vip", "standard"}, map[string]int{"child": 1}, []string{"adult", "child"}, "", 0},
		{"types by code", []string{"standard", "vip", "standard"}, map[string]int{"senior": 2, "child": 1}, []string{"child", "senior", "senior"}, "", 0},
		{"short", []string{"vip", "vip"}, map[string]int{"child": 1}, []string{"adult", "adult"}, "child", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, st, n := s.DealTicketCounts(tc.zones, tc.counts)
			if !reflect.DeepEqual(got, tc.want) || st != tc.shortType || n != tc.short {
				t.Errorf("got %v %q %d, want %v %q %d", got, st, n, tc.want, tc.shortType, tc.short)
			}
		})
	}
}
