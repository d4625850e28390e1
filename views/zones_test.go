package views

import (
	"testing"

	"seatflow/services"
)

// TestZoneSlots_LayoutZonesKeepTheirColour: standard, premium and vip take the hall
// editor's colours whatever order the show lists them in; other zones take free slots.
func TestZoneSlots_LayoutZonesKeepTheirColour(t *testing.T) {
	s := &services.Show{Zones: []services.Zone{{Code: "vip"}, {Code: "balcony"}, {Code: "premium"}, {Code: "standard"}}}
	got := ZoneSlots(s)
	want := map[string]int{"standard": 0, "premium": 1, "vip": 2, "balcony": 3}
	for code, slot := range want {
		if got[code] != slot {
			t.Errorf("%s: slot %d, want %d (all %v)", code, got[code], slot, got)
		}
	}
}

// TestMinPrice_CheaperTicketTypes: the home page's "from" price is the lowest price a
// seat sells at: a cheaper ticket type counts, a type priced in a zone the show does not
// sell does not, and a show without zones has none.
func TestMinPrice_CheaperTicketTypes(t *testing.T) {
	zones := []services.Zone{{Code: "standard", PriceMinor: 4500}, {Code: "premium", PriceMinor: 6500}}
	for _, tc := range []struct {
		name   string
		show   *services.Show
		want   int64
		wantOK bool
	}{
		{"adult only", &services.Show{Zones: zones}, 4500, true},
		{"a cheaper child ticket", &services.Show{Zones: zones, TicketPrices: []services.TicketPrice{{Type: "child", Zone: "premium", PriceMinor: 2500}}}, 2500, true},
		{"a dearer type", &services.Show{Zones: zones, TicketPrices: []services.TicketPrice{{Type: "vip", Zone: "standard", PriceMinor: 9000}}}, 4500, true},
		{"a type in a zone not sold", &services.Show{Zones: zones, TicketPrices: []services.TicketPrice{{Type: "child", Zone: "balcony", PriceMinor: 100}}}, 4500, true},
		{"a free ticket type", &services.Show{Zones: zones, TicketPrices: []services.TicketPrice{{Type: "companion", Zone: "standard", PriceMinor: 0}}}, 0, true},
		{"no zones", &services.Show{}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, ok := MinPrice(tc.show); got != tc.want || ok != tc.wantOK {
				t.Errorf("MinPrice = %d, %v; want %d, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}
