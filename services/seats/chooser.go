package seats

import (
	"math"

	"seatflow/services"
)

// chooser keeps what a best-available search found so far (ChooseBlock, ChoosePlain):
// the best block that strands no seat, and the best that does, taken only when no
// block stranding none is found. Scores are a block's distance from the sweet spot;
// on a tie the lower row, then the lower column, wins.
type chooser struct {
	hall            *services.Hall
	free            []bool
	clean, fallback choice
	scratch         []int32
}

type choice struct {
	block    []int32
	score    float64
	stranded []int32
}

func newChooser(hall *services.Hall, free []bool) *chooser {
	return &chooser{hall: hall, free: free, clean: choice{score: math.Inf(1)}, fallback: choice{score: math.Inf(1)}}
}

// bound is the score beyond which no block can win: the best block stranding none.
func (c *chooser) bound() float64 { return c.clean.score }

// better reports whether block at score beats what ch holds.
func (c *chooser) better(ch *choice, block []int32, score float64) bool {
	if ch.block == nil || score < ch.score {
		return true
	}
	if score > ch.score {
		return false
	}
	a, b := &c.hall.Seats[block[0]], &c.hall.Seats[ch.block[0]]
	return a.Row < b.Row || (a.Row == b.Row && a.Col < b.Col)
}

// consider weighs a block of seats side by side (indexes in hall.Seats) at score.
func (c *chooser) consider(block []int32, score float64) {
	c.scratch = strandedBeyond(c.hall, c.free, block[0], block[len(block)-1], c.scratch[:0])
	if len(c.scratch) == 0 {
		if c.better(&c.clean, block, score) {
			c.clean = choice{block: append(c.clean.block[:0:0], block...), score: score}
		}
	} else if c.clean.block == nil && c.better(&c.fallback, block, score) {
		c.fallback = choice{block: append(c.fallback.block[:0:0], block...), score: score, stranded: append([]int32(nil), c.scratch...)}
	}
}

// pick is the search's answer: the best block stranding none, else the fallback; total
// is the free count known so far (counted by freeCount when nothing fits and count was
// not asked for).
func (c *chooser) pick(total int, count bool, freeCount func() int) Pick {
	best := c.clean
	if best.block == nil {
		best = c.fallback
	}
	if best.block == nil {
		if !count {
			total = freeCount()
		}
		return Pick{Free: total}
	}
	ids := make([]int64, len(best.block))
	for i, s := range best.block {
		ids[i] = c.hall.Seats[s].ID
	}
	return Pick{IDs: ids, Free: total, Stranded: best.stranded}
}

// strandedBeyond appends to out the seats that taking the block first..last (one run of
// seats side by side) strands: only the seat just beyond either end can be (Stranded).
func strandedBeyond(hall *services.Hall, free []bool, first, last int32, out []int32) []int32 {
	if l, _ := hall.Beside(first); l >= 0 && free[l] {
		if ll, _ := hall.Beside(l); ll < 0 || !free[ll] {
			out = append(out, l)
		}
	}
	if _, r := hall.Beside(last); r >= 0 && free[r] {
		if _, rr := hall.Beside(r); rr < 0 || !free[rr] {
			out = append(out, r)
		}
	}
	return out
}
