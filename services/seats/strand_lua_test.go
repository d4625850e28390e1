package seats_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/seats"
)

// TestStranded_LuaAgreesWithGo: the hold script's single-seat check (lua/hold.lua) and
// the Go definition (seats.Stranded, seats.GapRefused) give the same stranded seats and
// the same enforce verdict, on random rows (aisles, blocked seats, wheelchair spaces and
// companion seats) and random seat maps made with the real scripts. The script checks
// against the values it holds over, in the same step; this proves it checks the same
// rule.
func TestStranded_LuaAgreesWithGo(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 8))
	const cells = "SSSSSSSS.BWC"
	refused, stranding := 0, 0
	for h := 0; h < 6; h++ {
		var rows []testenv.RowSpec
		for r := 0; r < 4; r++ {
			var b strings.Builder
			for c := 0; c < 6+rng.IntN(14); c++ {
				b.WriteByte(cells[rng.IntN(len(cells))])
			}
			zone := "standard"
			if r%2 == 1 {
				zone = "premium"
			}
			rows = append(rows, testenv.RowSpec{Zone: zone, Seats: b.String()})
		}
		hall := e.MakeLayout(fmt.Sprintf("Strand hall %d", h), rows...)
		show := e.OnSaleShow(hall.ID, h)
		var sellable []services.Seat
		for _, s := range hall.Seats {
			if s.Sellable() {
				sellable = append(sellable, s)
			}
		}
		if len(sellable) < 3 {
			continue
		}
		// a random seat map: others hold about a third of the seats, one at a time
		for i, s := range sellable {
			if rng.IntN(3) == 0 {
				if _, err := e.Seats.Hold(ctx, show.ID, fmt.Sprintf("OTHER%04d", i), 900+int64(i), 100, []seats.SeatRef{{ID: s.ID, Zone: s.ZoneCode}}); err != nil {
					t.Fatal(err)
				}
			}
		}
		for try := 0; try < 40; try++ {
			states, err := e.Seats.States(ctx, show.ID)
			if err != nil {
				t.Fatal(err)
			}
			free := make([]bool, len(hall.Seats))
			var freeIDs []int64
			for i, s := range hall.Seats {
				free[i] = states[s.ID] == seats.SeatFree
				if free[i] && s.Sellable() {
					freeIDs = append(freeIDs, s.ID)
				}
			}
			if len(freeIDs) == 0 {
				break
			}
			rng.Shuffle(len(freeIDs), func(i, j int) { freeIDs[i], freeIDs[j] = freeIDs[j], freeIDs[i] })
			chosen := freeIDs[:1+rng.IntN(min(3, len(freeIDs)))]
			refs := make([]seats.SeatRef, len(chosen))
			for i, id := range chosen {
				s, _ := hall.Seat(id)
				refs[i] = seats.SeatRef{ID: id, Zone: s.ZoneCode}
			}
			wantStranded, wantRefuse := seats.GapRefused(hall, free, seats.Indexes(hall, chosen))
			if wantRefuse {
				refused++
			}
			if len(wantStranded) > 0 {
				stranding++
			}
			for _, rule := range []string{seats.RuleEnforce, seats.RuleWarn} {
				no := fmt.Sprintf("T%d%d%s", h, try, rule[:1])
				name, args := seats.RuleArgs(hall, rule, chosen)
				out, err := e.Seats.HoldUnderRule(ctx, show.ID, no, 1, 100, refs, name, args, seats.HoldPublic)
				if err != nil {
					t.Fatal(err)
				}
				got := seats.SeatLabels(hall, seats.Indexes(hall, out.Stranded))
				want := seats.SeatLabels(hall, wantStranded)
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Fatalf("hall %d %v, %s of %v: script strands %v, Go %v", h, rows, rule, chosen, got, want)
				}
				if out.Gap != (rule == seats.RuleEnforce && wantRefuse) {
					t.Fatalf("hall %d %v, %s of %v: script refuses %v, Go %v", h, rows, rule, chosen, out.Gap, wantRefuse)
				}
				if out.OK() {
					if _, err := e.Seats.Release(ctx, show.ID, no, refs, false); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	if refused < 5 || stranding < 20 {
		t.Errorf("only %d refusals and %d stranding choices were compared: the cases prove little", refused, stranding)
	}
	t.Logf("compared %d stranding choices, %d refused under enforce", stranding, refused)
}
