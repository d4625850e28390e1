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
