package services

import (
	"math"
	"sort"
)

// BestAvailable picks quantity free seats side by side (consecutive columns, no aisle
// between them) in one row of zone, the block nearest the hall's sweet spot: about 60 %
// of the way back, centred. A plain request takes only standard seats; an accessible
// request takes a block holding at least one wheelchair space (standard seats, and
// companion seats next to a wheelchair space of the block, may fill it). states maps seat id to its stored value (see SeatValue).
// It returns the seat ids of the block (nil when none fits) and how many matching seats
// of the zone are free in all.
func BestAvailable(hall *Hall, states map[int64]string, zone string, quantity int, accessible bool) ([]int64, int) {
	rows := map[int][]*Seat{}
	free := 0
	for i := range hall.Seats {
		s := &hall.Seats[i]
		if s.ZoneCode != zone || states[s.ID] != seatFree {
			continue
		}
		if !accessible && s.Kind != KindStandard {
			continue
		}
		if accessible && s.Kind == KindBlocked {
			continue
		}
		rows[s.Row] = append(rows[s.Row], s)
		free++
	}
	if quantity < 1 || free < quantity {
		return nil, free
	}
	idealRow := 0.6 * float64(hall.Rows+1)
	centre := float64(hall.Cols+1) / 2
	var best []*Seat
	bestScore := math.Inf(1)
	for row, seats := range rows {
		sort.Slice(seats, func(i, j int) bool { return seats[i].Col < seats[j].Col })
		for start := 0; start+quantity <= len(seats); start++ {
			block := seats[start : start+quantity]
			if block[quantity-1].Col-block[0].Col != quantity-1 {
				continue // a gap (aisle or taken seat) splits it
			}
			if accessible && !hasWheelchair(block) {
				continue
			}
			if len(unaccompanied(block)) > 0 {
				continue // a companion seat goes only with its wheelchair space
			}
			mid := float64(block[0].Col+block[quantity-1].Col) / 2
			score := math.Abs(float64(row)-idealRow)*1.5 + math.Abs(mid-centre)
			if score < bestScore || (score == bestScore && (row < best[0].Row || (row == best[0].Row && block[0].Col < best[0].Col))) {
				bestScore, best = score, block
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

func hasWheelchair(block []*Seat) bool {
	for _, s := range block {
		if s.Kind == KindWheelchair {
			return true
		}
	}
	return false
}
