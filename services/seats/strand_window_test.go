package seats_test

import (
	"context"
	"strings"
	"testing"

	"seatflow/services/internal/testenv"
	"seatflow/services/seats"
)

// TestHold_RuleReadsTheWindowOfALongRow: under the single-seat rule the hold script reads
// the seats around the batch (two each side), not the whole row: a 2-seat hold in a row
// of 200 reads 6 seat values, and its arguments carry the whole row once. Only an order
// that strands a seat under enforce reads the whole row, to look for another block (and
// is refused when the row has one).
func TestHold_RuleReadsTheWindowOfALongRow(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	hall := e.MakeLayout("Long row hall", testenv.RowSpec{Zone: "standard", Seats: strings.Repeat("S", 200)})
	show := e.OnSaleShow(hall.ID, 0)
	if _, err := e.Seats.States(ctx, show.ID); err != nil { // loads the map
		t.Fatal(err)
	}
	seatsKey := e.Seats.Keys(show.ID)[0]
	idOf := func(col int) int64 { return hall.Seats[col-1].ID } // one row: seat index = column - 1
	cases := []struct {
		name       string
		cols       []int
		wantFields int  // seat values the script reads in all
		wantGap    bool // refused under enforce
	}{
		{"a block in the middle strands nothing: the window alone", []int{100, 101}, 6, false},
		{"a block at the row's start: the window is cut by the row's end", []int{1, 2}, 4, false},
		{"a block leaving one seat beside a held one: the window, then the whole row", []int{103, 104}, 6 + 200, true},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var refs []seats.SeatRef
			var ids []int64
			for _, c := range tc.cols {
				ids = append(ids, idOf(c))
				refs = append(refs, seats.SeatRef{ID: idOf(c), Zone: "standard"})
			}
			rule, rows := seats.RuleArgs(hall, seats.RuleEnforce, ids)
			var out seats.HoldOutcome
			watched := e.Watch(t, func() {
				var err error
				out, err = e.Seats.HoldUnderRule(ctx, show.ID, "WIN"+string(rune('A'+i)), 7, 100, refs, rule, rows, seats.HoldPublic)
				if err != nil {
					t.Fatal(err)
				}
			})
			fields := 0
			for _, w := range watched {
				if w.ByLua && len(w.Args) > 1 && strings.EqualFold(w.Args[0], "HMGET") && w.Args[1] == seatsKey {
					fields += len(w.Args) - 2
				}
			}
			if fields != tc.wantFields {
				t.Errorf("the script read %d seat values of the row, want %d", fields, tc.wantFields)
			}
			if out.Gap != tc.wantGap {
				t.Errorf("refused %v, want %v (stranded %v)", out.Gap, tc.wantGap, out.Stranded)
			}
			if n := strings.Count(strings.Join(rows, ""), ":standard"); n > 200+6 {
				t.Errorf("the arguments name %d seats: the whole row more than once", n)
			}
		})
	}
}
