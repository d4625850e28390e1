package seats

import (
	"strings"

	"seatflow/services"
)

// unaccompanied returns the labels of the companion seats in seats that have no
// wheelchair space of the same batch right next to them (same row, neighbouring
// column): a companion seat is sold only with the wheelchair space it accompanies, in
// the same order.
func unaccompanied(seats []*services.Seat) []string {
	type pos struct{ row, col int }
	wheelchair := map[pos]bool{}
	for _, s := range seats {
		if s.Kind == services.KindWheelchair {
			wheelchair[pos{s.Row, s.Col}] = true
		}
	}
	var bad []string
	for _, s := range seats {
		if s.Kind == services.KindCompanion && !wheelchair[pos{s.Row, s.Col - 1}] && !wheelchair[pos{s.Row, s.Col + 1}] {
			bad = append(bad, s.Label)
		}
	}
	return bad
}

// CheckCompanions refuses a batch holding a companion seat without the wheelchair
// space next to it (INVALID_REQUEST naming the seats). Unknown ids are left to
// checkSeatsInShow.
func CheckCompanions(hall *services.Hall, ids []int64) error {
	seats := make([]*services.Seat, 0, len(ids))
	for _, id := range ids {
		if s, ok := hall.Seat(id); ok {
			seats = append(seats, s)
		}
	}
	if bad := unaccompanied(seats); len(bad) > 0 {
		return &services.Error{Code: services.CodeInvalidRequest, Seats: bad, Message: "a companion seat is sold only together with the wheelchair space next to it: " +
			strings.Join(bad, ", ") + " needs its wheelchair space in the same order"}
	}
	return nil
}
