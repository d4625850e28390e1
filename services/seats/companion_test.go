package seats

import (
	"strconv"
	"testing"

	"seatflow/services"
)

// companionHall is one row: W C S S C W . C (col 8 is a companion seat with no
// wheelchair space next to it).
func companionHall() *services.Hall {
	h := &services.Hall{ID: 1, Rows: 1, Cols: 8}
	for i, k := range []string{services.KindWheelchair, services.KindCompanion, services.KindStandard, services.KindStandard, services.KindCompanion, services.KindWheelchair, "", services.KindCompanion} {
		if k == "" {
			continue
		}
		h.Seats = append(h.Seats, services.Seat{ID: int64(i + 1), ZoneCode: "standard", Row: 1, Col: i + 1, Label: "A" + strconv.Itoa(i+1), Kind: k})
	}
	h.Index()
	return h
}

// TestCompanionSeats_OnlyWithTheirWheelchairSpace: a batch with a companion seat must
// hold the wheelchair space right next to it; the hold path refuses it otherwise.
func TestCompanionSeats_OnlyWithTheirWheelchairSpace(t *testing.T) {
	h := companionHall()
	cases := []struct {
		name string
		ids  []int64
		ok   bool
	}{
		{"companion with its wheelchair space", []int64{1, 2}, true},
		{"companion alone", []int64{2}, false},
		{"companion with a standard seat", []int64{2, 3}, false},
		{"companion on the right of its space", []int64{5, 6}, true},
		{"wheelchair space alone", []int64{1}, true},
		{"companion with a space two seats away", []int64{1, 5}, false},
		{"companion with no space in its row", []int64{8, 6}, false},
		{"standard seats", []int64{3, 4}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckCompanions(h, tc.ids)
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok=%v", err, tc.ok)
			}
			if err != nil && (services.ErrorCode(err) != services.CodeInvalidRequest || len(err.(*services.Error).Seats) == 0) {
				t.Errorf("refusal %v does not name the seats", err)
			}
		})
	}
}

// TestBestAvailable_NeverSplitsACompanionFromItsSpace: an accessible block never holds
// a companion seat without the wheelchair space next to it.
func TestBestAvailable_NeverSplitsACompanionFromItsSpace(t *testing.T) {
	h := companionHall()
	states := map[int64]string{}
	for _, s := range h.Seats {
		states[s.ID] = SeatFree
	}
	states[1] = "S|X|1" // A1's wheelchair space is sold: A2 may only go with... nobody
	for q := 1; q <= 4; q++ {
		ids, _ := BestAvailable(h, states, "standard", q, true)
		var seats []*services.Seat
		for _, id := range ids {
			s, _ := h.Seat(id)
			seats = append(seats, s)
		}
		if bad := unaccompanied(seats); len(bad) > 0 {
			t.Errorf("quantity %d: block %v leaves %v without its wheelchair space", q, ids, bad)
		}
	}
}
