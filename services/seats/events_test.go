package seats

import (
	"reflect"
	"testing"

	"seatflow/services"
)

// TestParseSeatChange reads what lua/notify.lua publishes, and skips what it cannot.
func TestParseSeatChange(t *testing.T) {
	cases := []struct {
		name, channel, payload string
		want                   SeatChange
		ok                     bool
	}{
		{"hold", "sf:{show:42}:changes", "7=H,8=H|standard=10,premium=0",
			SeatChange{ShowID: 42, Seats: map[int64]string{7: services.StateHeld, 8: services.StateHeld}, ZoneFree: map[string]int{"standard": 10, "premium": 0}}, true},
		{"every state", "x:{show:3}:changes", "1=F,2=S,3=B|",
			SeatChange{ShowID: 3, Seats: map[int64]string{1: services.StateFree, 2: services.StateSold, 3: services.StateBlocked}, ZoneFree: map[string]int{}}, true},
		{"reload", "sf:{show:9}:changes", "reload", SeatChange{ShowID: 9, Reload: true}, true},
		{"junk parts skipped", "sf:{show:5}:changes", "a=H,6=Q,7=S|z=x,y=2",
			SeatChange{ShowID: 5, Seats: map[int64]string{7: services.StateSold}, ZoneFree: map[string]int{"y": 2}}, true},
		{"no show", "sf:changes", "1=H|", SeatChange{}, false},
		{"bad show", "sf:{show:x}:changes", "1=H|", SeatChange{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ParseSeatChange(tc.channel, tc.payload)
			if ok != tc.ok || (ok && !reflect.DeepEqual(got, tc.want)) {
				t.Errorf("got %+v %v, want %+v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
