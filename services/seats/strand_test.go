package seats

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"seatflow/services"
)

// rowHall is a one-row hall typed as a layout line: S standard, W wheelchair space, C
// companion, B blocked, . aisle; seats are labelled by column ("A3").
func rowHall(line string) *services.Hall {
	kinds := map[byte]string{'S': services.KindStandard, 'W': services.KindWheelchair, 'C': services.KindCompanion, 'B': services.KindBlocked}
	h := &services.Hall{Rows: 1, Cols: len(line)}
	for c := 0; c < len(line); c++ {
		if k, ok := kinds[line[c]]; ok {
			h.Seats = append(h.Seats, services.Seat{ID: int64(c + 1), ZoneCode: "standard", Row: 1, Col: c + 1, Label: "A" + strconv.Itoa(c+1), Kind: k})
		}
	}
	h.Index()
	return h
}

// rowState marks seats taken by column ('x' taken, anything else free) and returns the
// free slice and the indexes of the chosen columns ('o').
func rowState(h *services.Hall, state string) (free []bool, chosen []int32) {
	free = make([]bool, len(h.Seats))
	for i, s := range h.Seats {
		free[i] = state[s.Col-1] != 'x'
		if state[s.Col-1] == 'o' {
			chosen = append(chosen, int32(i))
		}
	}
	return free, chosen
}

// TestStranded_Definition: the cases API.md names, one by one.
func TestStranded_Definition(t *testing.T) {
	for _, tc := range []struct {
		name, layout, state string
		want                []string // labels of stranded seats
		refuse              bool     // under enforce
	}{
		{"between two taken seats", "SSSSSS", "x-oo--", []string{"A2"}, true},
		{"at the row's end", "SSSSSS", "-oo---", []string{"A1"}, true},
		{"beside an aisle (every pair of that block strands one)", "SSS.SSS", "---.-oo", []string{"A5"}, false},
		{"beside a blocked seat", "SBSSSS", "-x-oo-", []string{"A3", "A6"}, true},
		{"two free seats left: nobody is alone", "SSSSSS", "--oo--", nil, false},
		{"a lone seat already there is not this order's", "SSSSSSS", "-x--oo-", []string{"A7"}, true},
		{"between the order's own seats", "SSSSS", "o-o--", []string{"A2"}, true},
		{"a wheelchair space is never stranded", "WSSSS", "-oo--", nil, false},
		{"beside a wheelchair space counts as the row's end", "SWSSSS", "---oo-", []string{"A3", "A6"}, true},
		{"companion seats take no part", "CSSSS", "-oo--", nil, false},
		{"every choice strands one: accepted", "SSS", "oo-", []string{"A3"}, false},
		{"three of four free, two wanted: every pair strands one", "SSSS", "x-oo", []string{"A2"}, false},
		{"a clean pair exists elsewhere in the row", "SSSSSSS.SS", "-oo----.--", []string{"A1"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := rowHall(tc.layout)
			free, chosen := rowState(h, tc.state)
			got := SeatLabels(h, Stranded(h, free, chosen))
			if !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Errorf("stranded %v, want %v", got, tc.want)
			}
			if _, refuse := GapRefused(h, free, chosen); refuse != tc.refuse {
				t.Errorf("enforce refuses: %v, want %v", refuse, tc.refuse)
			}
		})
	}
}

// TestBestAvailable_PropertiesOnRandomHalls: on random halls and seat maps, whatever the
// zone and quantity, a pick is free seats, side by side in one row and zone, never
// across an aisle, and strands nothing whenever some block of the same kind strands
// nothing; when it falls back, it says what it strands.
func TestBestAvailable_PropertiesOnRandomHalls(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for n := 0; n < 400; n++ {
		h := randomHall(rng, 1+rng.IntN(10), 2+rng.IntN(24))
		free := make([]bool, len(h.Seats))
		share := rng.IntN(9)
		for i := range free {
			free[i] = rng.IntN(10) >= share
		}
		for _, zone := range []string{"standard", "premium"} {
			for q := 1; q <= 5; q++ {
				for _, acc := range []bool{false, true} {
					p := ChooseBlock(h, free, zone, q, acc, true)
					clean, any := blocksExist(h, free, zone, q, acc)
					if p.IDs == nil {
						if any {
							t.Fatalf("hall %d %s x%d acc %v: no pick though a block exists", n, zone, q, acc)
						}
						continue
					}
					idx := Indexes(h, p.IDs)
					for k, i := range idx {
						s := &h.Seats[i]
						first := &h.Seats[idx[0]]
						if !free[i] || s.ZoneCode != zone || s.Row != first.Row || s.Col != first.Col+k {
							t.Fatalf("hall %d %s x%d: seat %s is not free, not in zone or not beside the others", n, zone, q, s.Label)
						}
					}
					stranded := Stranded(h, free, idx)
					if clean && len(stranded) > 0 {
						t.Fatalf("hall %d %s x%d acc %v: pick %v strands %v though a block stranding none exists",
							n, zone, q, acc, p.IDs, SeatLabels(h, stranded))
					}
					if !slices.Equal(stranded, p.Stranded) && (len(stranded) > 0 || len(p.Stranded) > 0) {
						t.Fatalf("hall %d: pick says it strands %v, the definition says %v", n, p.Stranded, stranded)
					}
				}
			}
		}
	}
}

// blocksExist is the plain statement of which blocks best-available may pick from:
// whether a block of q eligible seats side by side exists, and whether one of them
// strands nothing (Stranded, the definition itself).
func blocksExist(h *services.Hall, free []bool, zone string, q int, acc bool) (clean, any bool) {
	at := map[[2]int]int32{}
	for i, s := range h.Seats {
		at[[2]int{s.Row, s.Col}] = int32(i)
	}
	for i := range h.Seats {
		var block []int32
		for k := 0; k < q; k++ {
			j, ok := at[[2]int{h.Seats[i].Row, h.Seats[i].Col + k}]
			if !ok {
				break
			}
			s := &h.Seats[j]
			if !free[j] || s.ZoneCode != zone || s.Kind == services.KindBlocked || (!acc && s.Kind != services.KindStandard) {
				break
			}
			block = append(block, j)
		}
		if len(block) < q {
			continue
		}
		seats := seatsAt(h, block)
		if (acc && !HasWheelchair(seats)) || len(unaccompanied(seats)) > 0 {
			continue
		}
		any = true
		if len(Stranded(h, free, block)) == 0 {
			clean = true
		}
	}
	return clean, any
}

// TestRuleArgs_RowsAsRanges: RuleArgs writes seats side by side whose ids count up by
// one and share a zone as one "first-last:zone" range, and a seat that breaks the count
// or the zone starts a new item; aisles and non-standard seats still split runs.
func TestRuleArgs_RowsAsRanges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		layout string
		edit   func(h *services.Hall) // ids or zones changed before indexing
		chosen []int64
		want   string
	}{
		{"a plain row is one range; the window is a range too", "SSSSSSSSSS", nil, []int64{5, 6},
			"3-8:standard/1-10:standard"},
		{"an aisle splits the run", "SSSS.SSSSS", nil, []int64{2},
			"1-4:standard/1-4:standard;6-10:standard"},
		{"a seat re-added with a new id breaks the count", "SSSSSS", func(h *services.Hall) { h.Seats[3].ID = 40 }, []int64{1},
			"1-3:standard/1-3:standard,40:standard,5-6:standard"},
		{"a zone change breaks the range", "SSSSSS", func(h *services.Hall) {
			for i := 3; i < 6; i++ {
				h.Seats[i].ZoneCode = "premium"
			}
		}, []int64{3}, "1-3:standard,4-5:premium/1-3:standard,4-6:premium"},
		{"a lone seat between taken kinds is a single item", "WSW", nil, []int64{2},
			"2:standard/2:standard"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := rowHall(tc.layout)
			if tc.edit != nil {
				tc.edit(h)
				h.Index()
			}
			rule, rows := RuleArgs(h, RuleEnforce, tc.chosen)
			if rule != RuleEnforce || len(rows) != 1 || rows[0] != tc.want {
				t.Errorf("RuleArgs = %q %q, want %q", rule, rows, tc.want)
			}
		})
	}
}
