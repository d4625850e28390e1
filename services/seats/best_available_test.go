package seats

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"testing"

	"seatflow/services"
)

// referenceBestAvailable is the plain statement of best-available's rule (every block
// of every row scored, ties to the lower row, then the lower column; a block stranding
// no seat, by Stranded, before any that does), kept to check the indexed scan against.
func referenceBestAvailable(hall *services.Hall, states map[int64]string, zone string, quantity int, accessible bool) ([]int64, int) {
	rows := map[int][]*services.Seat{}
	free := 0
	for i := range hall.Seats {
		s := &hall.Seats[i]
		if s.ZoneCode != zone || states[s.ID] != SeatFree || (!accessible && s.Kind != services.KindStandard) || (accessible && s.Kind == services.KindBlocked) {
			continue
		}
		rows[s.Row] = append(rows[s.Row], s)
		free++
	}
	if quantity < 1 || free < quantity {
		return nil, free
	}
	idealRow, centre := 0.6*float64(hall.Rows+1), float64(hall.Cols+1)/2
	freeNow := FreeOf(hall, states)
	var best []*services.Seat
	bestScore, bestClean := math.Inf(1), false
	for row, seats := range rows {
		sort.Slice(seats, func(i, j int) bool { return seats[i].Col < seats[j].Col })
		for start := 0; start+quantity <= len(seats); start++ {
			block := seats[start : start+quantity]
			if block[quantity-1].Col-block[0].Col != quantity-1 || (accessible && !HasWheelchair(block)) || len(unaccompanied(block)) > 0 {
				continue
			}
			score := math.Abs(float64(row)-idealRow)*1.5 + math.Abs(float64(block[0].Col+block[quantity-1].Col)/2-centre)
			idx := make([]int64, len(block))
			for k, s := range block {
				idx[k] = s.ID
			}
			clean := len(Stranded(hall, freeNow, Indexes(hall, idx))) == 0
			if bestClean && !clean {
				continue
			}
			if (clean && !bestClean) || score < bestScore || (score == bestScore && (row < best[0].Row || (row == best[0].Row && block[0].Col < best[0].Col))) {
				bestScore, best, bestClean = score, block, clean
			}
		}
	}
	if best == nil {
		return nil, free
	}
	ids := make([]int64, len(best))
	for i, s := range best {
		ids[i] = s.ID
	}
	return ids, free
}

// randomHall is a rows x cols hall with random aisles, zones and seat kinds, its seats
// listed in a shuffled order (the index must not rely on the order of Seats).
func randomHall(rng *rand.Rand, rows, cols int) *services.Hall {
	h := &services.Hall{Rows: rows, Cols: cols}
	kinds := []string{services.KindStandard, services.KindStandard, services.KindStandard, services.KindStandard, services.KindWheelchair, services.KindCompanion, services.KindBlocked}
	for r := 1; r <= rows; r++ {
		zone := "standard"
		if r > rows/2 {
			zone = "premium"
		}
		for c := 1; c <= cols; c++ {
			if rng.IntN(8) == 0 {
				continue // an aisle or a gap
			}
			h.Seats = append(h.Seats, services.Seat{ID: int64(len(h.Seats) + 1), ZoneCode: zone, Row: r, Col: c,
				Label: strconv.Itoa(r) + "-" + strconv.Itoa(c), Kind: kinds[rng.IntN(len(kinds))]})
		}
	}
	rng.Shuffle(len(h.Seats), func(i, j int) { h.Seats[i], h.Seats[j] = h.Seats[j], h.Seats[i] })
	h.Index()
	return h
}

// TestBestAvailable_MatchesTheRule: the indexed scan picks exactly the block the plain
// rule picks (and counts the same free seats), on random halls and seat maps.
func TestBestAvailable_MatchesTheRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 300; n++ {
		h := randomHall(rng, 1+rng.IntN(12), 1+rng.IntN(25))
		states := map[int64]string{}
		takenShare := rng.IntN(10)
		for _, s := range h.Seats {
			states[s.ID] = SeatFree
			if rng.IntN(10) < takenShare {
				states[s.ID] = "H|X|1"
			}
		}
		for _, zone := range []string{"standard", "premium", "none"} {
			for q := 0; q <= 6; q++ {
				for _, acc := range []bool{false, true} {
					got, gotFree := BestAvailable(h, states, zone, q, acc)
					want, wantFree := referenceBestAvailable(h, states, zone, q, acc)
					if !slices.Equal(got, want) || gotFree != wantFree {
						t.Fatalf("hall %d (%dx%d) zone %s x%d accessible %v: got %v (%d free), want %v (%d free)",
							n, h.Rows, h.Cols, zone, q, acc, got, gotFree, want, wantFree)
					}
					// the order path's call, without the full count, picks the same block
					if quick, quickFree := BestBlock(h, FreeOf(h, states), zone, q, acc, false); !slices.Equal(quick, want) || (quick == nil && quickFree != wantFree) {
						t.Fatalf("hall %d zone %s x%d accessible %v, no count: got %v (%d free), want %v (%d free)", n, zone, q, acc, quick, quickFree, want, wantFree)
					}
				}
			}
		}
	}
}

// BenchmarkBestAvailable_20kSeats: one choice on a 100 x 200 hall a third sold.
func BenchmarkBestAvailable_20kSeats(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	h := &services.Hall{Rows: 100, Cols: 200}
	for r := 1; r <= 100; r++ {
		for c := 1; c <= 200; c++ {
			h.Seats = append(h.Seats, services.Seat{ID: int64(len(h.Seats) + 1), ZoneCode: "standard", Row: r, Col: c, Kind: services.KindStandard})
		}
	}
	h.Index()
	states := map[int64]string{}
	for _, s := range h.Seats {
		states[s.ID] = SeatFree
		if rng.IntN(3) == 0 {
			states[s.ID] = "S|X|1"
		}
	}
	free := FreeOf(h, states)
	b.Run("indexed", func(b *testing.B) {
		for b.Loop() {
			BestBlock(h, free, "standard", 4, false, false)
		}
	})
	b.Run("rule", func(b *testing.B) {
		for b.Loop() {
			referenceBestAvailable(h, states, "standard", 4, false)
		}
	})
}
