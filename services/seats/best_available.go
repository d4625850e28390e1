package seats

import (
	"math"

	"seatflow/services"
)

// BestAvailable picks quantity free seats side by side (consecutive columns, no aisle
// between them) in one row of zone, the block nearest the hall's sweet spot: about 60 %
// of the way back, centred. A plain request takes only standard seats; an accessible
// request takes a block holding at least one wheelchair space (standard seats, and
// companion seats next to a wheelchair space of the block, may fill it). states maps
// seat id to its stored value (see SeatValue). It returns the seat ids of the block (nil
// when none fits) and how many matching seats of the zone are free in all.
func BestAvailable(hall *services.Hall, states map[int64]string, zone string, quantity int, accessible bool) ([]int64, int) {
	return BestBlock(hall, freeSeats(hall, states), zone, quantity, accessible, true)
}

// freeSeats turns seat values into a slice parallel to hall.Seats: true where free.
func freeSeats(hall *services.Hall, states map[int64]string) []bool {
	free := make([]bool, len(hall.Seats))
	for i := range hall.Seats {
		free[i] = states[hall.Seats[i].ID] == SeatFree
	}
	return free
}

// BestBlock is BestAvailable on free, a slice parallel to hall.Seats (true: free).
// It visits the zone's rows nearest the sweet spot first (hall.index orders them) and
// stops at the first row whose distance alone scores worse than the best block found,
// so an early choice in a big hall looks at a few rows, not at every seat. The free
// count is exact when count is set or no block is found; otherwise it is 0.
func BestBlock(hall *services.Hall, free []bool, zone string, quantity int, accessible, count bool) ([]int64, int) {
	eligible := func(i int32) bool {
		if !free[i] {
			return false
		}
		if accessible {
			return hall.Seats[i].Kind != services.KindBlocked
		}
		return hall.Seats[i].Kind == services.KindStandard
	}
	rows := hall.ZoneRows(zone)
	freeCount := func() int {
		n := 0
		for _, row := range rows {
			for _, i := range row {
				if eligible(i) {
					n++
				}
			}
		}
		return n
	}
	total := 0
	if count {
		total = freeCount()
		if quantity < 1 || total < quantity {
			return nil, total
		}
	}
	if quantity < 1 {
		return nil, freeCount()
	}
	centre := float64(hall.Cols+1) / 2
	var best []*services.Seat
	bestScore := math.Inf(1)
	var seats []*services.Seat
	for _, row := range rows {
		penalty := hall.RowPenalty(hall.Seats[row[0]].Row)
		if penalty > bestScore {
			break // every later row is as far or farther
		}
		seats = seats[:0]
		for _, i := range row {
			if eligible(i) {
				seats = append(seats, &hall.Seats[i])
			}
		}
		for start := 0; start+quantity <= len(seats); start++ {
			block := seats[start : start+quantity]
			if block[quantity-1].Col-block[0].Col != quantity-1 {
				continue // a gap (aisle or taken seat) splits it
			}
			if accessible && !HasWheelchair(block) {
				continue
			}
			if hasKind(block, services.KindCompanion) && len(unaccompanied(block)) > 0 {
				continue // a companion seat goes only with its wheelchair space
			}
			score := penalty + math.Abs(float64(block[0].Col+block[quantity-1].Col)/2-centre)
			// on a tie the lower row, then the lower column, wins
			if score < bestScore || (score == bestScore && (block[0].Row < best[0].Row || (block[0].Row == best[0].Row && block[0].Col < best[0].Col))) {
				bestScore, best = score, append(best[:0:0], block...)
			}
		}
	}
	if best == nil {
		if !count {
			total = freeCount()
		}
		return nil, total
	}
	ids := make([]int64, len(best))
	for i, s := range best {
		ids[i] = s.ID
	}
	return ids, total
}

// HasWheelchair reports whether the block has a wheelchair space.
func HasWheelchair(block []*services.Seat) bool { return hasKind(block, services.KindWheelchair) }

func hasKind(block []*services.Seat, kind string) bool {
	for _, s := range block {
		if s.Kind == kind {
			return true
		}
	}
	return false
}
