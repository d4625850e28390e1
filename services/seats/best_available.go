package seats

import (
	"math"
	"sort"

	"seatflow/services"
)

// BestAvailable picks quantity free seats side by side (consecutive columns, no aisle
// between them) in one row of zone, the block nearest the hall's sweet spot: about 60 %
// of the way back, centred, among the blocks that strand no seat (Stranded) when there
// is one; only when none is left does it fall back to the best block that does (as
// seats.io's best-available does). A plain request takes only standard seats; an
// accessible request takes a block holding at least one wheelchair space (standard
// seats, and companion seats next to a wheelchair space of the block, may fill it).
// states maps seat id to its stored value (see SeatValue). It returns the seat ids of
// the block (nil when none fits) and how many matching seats of the zone are free in
// all; ChooseBlock also says what a fallback strands.
func BestAvailable(hall *services.Hall, states map[int64]string, zone string, quantity int, accessible bool) ([]int64, int) {
	p := ChooseBlock(hall, FreeOf(hall, states), zone, quantity, accessible, true)
	return p.IDs, p.Free
}

// Pick is what best-available chose: the block's seat ids (nil: none fits), how many
// matching seats of the zone are free in all, and the seats the block strands (indexes
// in hall.Seats; not empty only when every block left strands one).
type Pick struct {
	IDs      []int64
	Free     int
	Stranded []int32
}

// FreeOf turns seat values (seat id -> stored value) into a slice parallel to
// hall.Seats: true where free.
func FreeOf(hall *services.Hall, states map[int64]string) []bool {
	free := make([]bool, len(hall.Seats))
	for i := range hall.Seats {
		free[i] = states[hall.Seats[i].ID] == SeatFree
	}
	return free
}

// BestBlock is ChooseBlock's ids and free count.
func BestBlock(hall *services.Hall, free []bool, zone string, quantity int, accessible, count bool) ([]int64, int) {
	p := ChooseBlock(hall, free, zone, quantity, accessible, count)
	return p.IDs, p.Free
}

// ChooseBlock is BestAvailable on free, a slice parallel to hall.Seats (true: free).
// It visits the zone's rows nearest the sweet spot first (hall.index orders them) and
// stops at the first row whose distance alone scores worse than the best block found
// that strands nothing, so an early choice in a big hall looks at a few rows, not at
// every seat. A block can strand only the seat just beyond each of its ends, so each
// block costs two lookups. The free count is exact when count is set or no block is
// found; otherwise it is 0.
func ChooseBlock(hall *services.Hall, free []bool, zone string, quantity int, accessible, count bool) Pick {
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
			return Pick{Free: total}
		}
	}
	if quantity < 1 {
		return Pick{Free: freeCount()}
	}
	centre := float64(hall.Cols+1) / 2
	c := newChooser(hall, free)
	valid := func(block []int32) bool {
		for _, i := range block {
			if !eligible(i) {
				return false
			}
		}
		first, last := &hall.Seats[block[0]], &hall.Seats[block[quantity-1]]
		if last.Col-first.Col != quantity-1 {
			return false // a gap (an aisle) splits it
		}
		if accessible || hasKindAt(hall, block, services.KindCompanion) {
			if accessible && !hasKindAt(hall, block, services.KindWheelchair) {
				return false
			}
			if hasKindAt(hall, block, services.KindCompanion) && len(unaccompanied(seatsAt(hall, block))) > 0 {
				return false // a companion seat goes only with its wheelchair space
			}
		}
		return true
	}
	for _, row := range rows {
		penalty := hall.RowPenalty(hall.Seats[row[0]].Row)
		if penalty > c.bound() {
			break // every later row is as far or farther
		}
		if len(row) < quantity {
			continue
		}
		// the row's blocks (row[s:s+quantity]) nearest the centre first: two runs of
		// starts walking away from it, merged, so the row stops at the first block whose
		// distance alone scores worse than the best block stranding nothing
		dist := func(s int) float64 {
			return math.Abs(float64(hall.Seats[row[s]].Col+hall.Seats[row[s+quantity-1]].Col)/2 - centre)
		}
		last := len(row) - quantity
		right := sort.Search(last+1, func(s int) bool {
			return float64(hall.Seats[row[s]].Col+hall.Seats[row[s+quantity-1]].Col)/2 >= centre
		})
		left := right - 1
		for left >= 0 || right <= last {
			var s int
			if right > last || (left >= 0 && dist(left) <= dist(right)) {
				s, left = left, left-1
			} else {
				s, right = right, right+1
			}
			score := penalty + dist(s)
			if score > c.bound() {
				break // every block left in the row is farther
			}
			if block := row[s : s+quantity]; valid(block) {
				c.consider(block, score)
			}
		}
	}
	return c.pick(total, count, freeCount)
}

func hasKindAt(hall *services.Hall, block []int32, kind string) bool {
	for _, i := range block {
		if hall.Seats[i].Kind == kind {
			return true
		}
	}
	return false
}

func seatsAt(hall *services.Hall, block []int32) []*services.Seat {
	out := make([]*services.Seat, len(block))
	for k, i := range block {
		out[k] = &hall.Seats[i]
	}
	return out
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
