package seats

import (
	"math"
	"math/bits"
	"sort"

	"seatflow/services"
)

// FreeBits is best-available's index of a seat map: per zone, parallel to
// Hall.ZoneRows, one bitset per row with bit p set when seat p of the row is free and
// standard (what a plain request may take). With the hall's side-by-side bits
// (Hall.ZoneRowsJoined) a row's blocks of q such seats are q word-wide ANDs, so a choice
// in a 90,000-seat stadium looks at a few words per row instead of every seat.
// The best-available snapshot keeps it in step with its free slice (best_snapshot.go).
type FreeBits map[string][][]uint64

// NewFreeBits indexes free (parallel to hall.Seats: true where free).
func NewFreeBits(hall *services.Hall, free []bool) FreeBits {
	b := FreeBits{}
	for i := range hall.Seats {
		w := hall.Where(int32(i))
		rows, ok := b[w.Zone]
		if !ok {
			zr := hall.ZoneRows(w.Zone)
			rows = make([][]uint64, len(zr))
			for r, row := range zr {
				rows[r] = make([]uint64, (len(row)+63)/64)
			}
			b[w.Zone] = rows
		}
		if free[i] && hall.Seats[i].Kind == services.KindStandard {
			rows[w.Row][w.Pos/64] |= 1 << (w.Pos % 64)
		}
	}
	return b
}

// Set marks seat index i free (on) or taken in the index (a seat that is not standard
// is never set).
func (b FreeBits) Set(hall *services.Hall, i int32, on bool) {
	w := hall.Where(i)
	rows := b[w.Zone]
	if int(w.Row) >= len(rows) {
		return
	}
	word, bit := &rows[w.Row][w.Pos/64], uint64(1)<<(w.Pos%64)
	if on && hall.Seats[i].Kind == services.KindStandard {
		*word |= bit
	} else {
		*word &^= bit
	}
}

// shiftRight sets dst to src shifted right by k bits (bit p of dst is bit p+k of src).
func shiftRight(dst, src []uint64, k int) {
	words, rest := k/64, uint(k%64)
	for i := range dst {
		var lo, hi uint64
		if i+words < len(src) {
			lo = src[i+words]
		}
		if i+words+1 < len(src) {
			hi = src[i+words+1]
		}
		if rest == 0 {
			dst[i] = lo
		} else {
			dst[i] = lo>>rest | hi<<(64-rest)
		}
	}
}

// setAtOrBelow is the highest set bit of s at or below p, or -1.
func setAtOrBelow(s []uint64, p int) int {
	for ; p >= 0; p = p/64*64 - 1 {
		w := s[p/64] & (^uint64(0) >> (63 - p%64))
		if w != 0 {
			return p/64*64 + 63 - bits.LeadingZeros64(w)
		}
	}
	return -1
}

// setAtOrAbove is the lowest set bit of s at or above p, or -1.
func setAtOrAbove(s []uint64, p int) int {
	for ; p < len(s)*64; p = (p/64 + 1) * 64 {
		w := s[p/64] &^ (1<<(p%64) - 1)
		if w != 0 {
			return p/64*64 + bits.TrailingZeros64(w)
		}
	}
	return -1
}

// ChoosePlain is ChooseBlock for a plain request (standard seats only, not accessible)
// over free and its index fb (NewFreeBits of free, kept in step): the same pick, found
// with word-wide operations (TestChoosePlain_SameAsChooseBlock).
func ChoosePlain(hall *services.Hall, free []bool, fb FreeBits, zone string, quantity int, count bool) Pick {
	rows, joined, zb := hall.ZoneRows(zone), hall.ZoneRowsJoined(zone), fb[zone]
	cols, penalties := hall.ZoneRowCols(zone), hall.ZoneRowPenalties(zone)
	freeCount := func() int {
		n := 0
		for _, r := range zb {
			for _, w := range r {
				n += bits.OnesCount64(w)
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
	var starts, tmp [5]uint64
	for r, row := range rows {
		penalty := penalties[r]
		if penalty > c.bound() {
			break // every later row is as far or farther
		}
		if len(row) < quantity {
			continue
		}
		w := zb[r]
		s, t := starts[:len(w)], tmp[:len(w)]
		if len(w) > len(starts) {
			s, t = make([]uint64, len(w)), make([]uint64, len(w))
		}
		// starts of quantity free seats side by side: free at p..p+q-1, joined at p..p+q-2
		copy(s, w)
		any := false
		for k := 1; k < quantity; k++ {
			shiftRight(t, w, k)
			for i := range s {
				s[i] &= t[i]
			}
			shiftRight(t, joined[r], k-1)
			for i := range s {
				s[i] &= t[i]
			}
		}
		for _, x := range s {
			any = any || x != 0
		}
		if !any {
			continue
		}
		last, rc := len(row)-quantity, cols[r]
		mid := func(p int) float64 { return float64(rc[p]+rc[p+quantity-1]) / 2 }
		pivot := sort.Search(last+1, func(p int) bool { return mid(p) >= centre })
		left, right := setAtOrBelow(s, pivot-1), setAtOrAbove(s, pivot)
		for left >= 0 || right >= 0 {
			var p int
			if right < 0 || (left >= 0 && centre-mid(left) <= mid(right)-centre) {
				p, left = left, setAtOrBelow(s, left-1)
			} else {
				p, right = right, setAtOrAbove(s, right+1)
			}
			score := penalty + math.Abs(mid(p)-centre)
			if score > c.bound() {
				break // every block left in the row is farther
			}
			c.consider(row[p:p+quantity], score)
		}
	}
	return c.pick(total, count, freeCount)
}
