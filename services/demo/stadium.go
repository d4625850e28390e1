package demo

import (
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"seatflow/services"
	"seatflow/services/catalog"
)

// StadiumOptions shapes a stadium layout (StadiumLayout). Rows x Cols is the grid (grid
// lines x cells per line, each 1..catalog.MaxHallRows/MaxHallCols); every Block+1-th
// column is an aisle and every Block+1-th line a cross aisle, so seats come in blocks of
// Block rows x Block seats. The zero value of a field takes its default: 300 x 300 in
// blocks of 25.
type StadiumOptions struct {
	Rows, Cols int
	Block      int
}

func (o StadiumOptions) withDefaults() StadiumOptions {
	if o.Rows <= 0 {
		o.Rows = catalog.MaxHallRows
	}
	if o.Cols <= 0 {
		o.Cols = catalog.MaxHallCols
	}
	if o.Block <= 0 {
		o.Block = 25
	}
	return o
}

// StadiumLayout returns the layout text (catalog.ParseLayout, numbered left to right) of
// a stadium shaped by opt: blocks of seats between aisle columns and cross-aisle lines;
// zone "vip" (V) in the middle band (the central fifth of the lines, the central two
// fifths of the columns), "premium" (P) around it (the central half of the lines, 70 %
// of the columns), "standard" (S) elsewhere; and, on the first line after each cross
// aisle, a wheelchair space (W) with its companion seat (C) beside it at the aisle end
// of every third block. 300 x 300 in blocks of 25 is 289 rows of 289 seats: 83,521 seats
// (44 wheelchair spaces, each with its companion seat) in 90,000 grid cells, row labels A
// to KC. The text is about 87 KB.
func StadiumLayout(opt StadiumOptions) string {
	opt = opt.withDefaults()
	aisle := func(n int) bool { return n%(opt.Block+1) == 0 }
	var sb strings.Builder
	sb.Grow(opt.Rows * (opt.Cols + 1))
	for r := 1; r <= opt.Rows; r++ {
		if aisle(r) {
			sb.WriteString(".\n")
			continue
		}
		afterAisle := r > 1 && aisle(r-1)
		fr := float64(r-1) / float64(max(opt.Rows-1, 1))
		for c := 1; c <= opt.Cols; c++ {
			if aisle(c) {
				sb.WriteByte('.')
				continue
			}
			block, inBlock := (c-1)/(opt.Block+1), (c-1)%(opt.Block+1)
			if afterAisle && block%3 == 1 && inBlock < 2 {
				sb.WriteByte("WC"[inBlock])
				continue
			}
			fc := float64(c-1) / float64(max(opt.Cols-1, 1))
			switch {
			case math.Abs(fr-0.5) <= 0.1 && math.Abs(fc-0.5) <= 0.2:
				sb.WriteByte('V')
			case math.Abs(fr-0.5) <= 0.25 && math.Abs(fc-0.5) <= 0.35:
				sb.WriteByte('P')
			default:
				sb.WriteByte('S')
			}
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// StadiumGroup is one party's seats: indexes into the layout's Seats, side by side in
// one row with no aisle between, left to right; Sold says whether the party paid (else
// it holds them).
type StadiumGroup struct {
	Seats []int
	Sold  bool
}

// stadiumGroupSizes is how parties come: 1 to 6 seats, pairs most often.
var stadiumGroupSizes = []struct {
	size   int
	weight float64
}{{1, 0.10}, {2, 0.36}, {3, 0.16}, {4, 0.24}, {5, 0.08}, {6, 0.06}}

// stadiumAwayShare is the share of parties that never book, wherever they would sit.
const stadiumAwayShare = 0.04

// StadiumSoldShare is the share of taken parties that paid; the rest hold their seats.
const StadiumSoldShare = 0.85

// StadiumTaken picks about share (0..1) of l's sellable seats as taken, the same for the
// same layout and seed: each row's runs of seats side by side are cut into parties of 1
// to 6 seats (a wheelchair space and its companion seat are one party of 2), and the
// parties nearest the middle of the hall, with some randomness, are taken until share of
// the sellable seats is reached, so the middle fills up first; a few parties anywhere
// (stadiumAwayShare) stay free. About StadiumSoldShare of the parties paid. Groups are
// returned in layout order.
func StadiumTaken(l *catalog.Layout, seed uint64, share float64) []StadiumGroup {
	rng := rand.New(rand.NewPCG(seed, 0x5eedf10e))
	size := func() int {
		x := rng.Float64()
		for _, s := range stadiumGroupSizes {
			if x -= s.weight; x < 0 {
				return s.size
			}
		}
		return 1
	}
	type party struct {
		seats []int
		score float64
		away  bool // never came: a few seats stay free even where the hall is full
	}
	var parties []party
	sellable := 0
	cut := func(run []int) { // one run of seats side by side into parties
		for len(run) > 0 {
			n := min(size(), len(run))
			if k := l.Seats[run[0]].Kind; k == services.KindWheelchair || k == services.KindCompanion {
				n = 1
				for n < len(run) && n < 2 && l.Seats[run[n]].Kind != services.KindStandard {
					n++
				}
			} else {
				for i := 1; i < n; i++ { // a party of standard seats stops before a wheelchair space
					if l.Seats[run[i]].Kind != services.KindStandard {
						n = i
						break
					}
				}
			}
			p := party{seats: run[:n:n]}
			var dist float64
			for _, i := range p.seats {
				s := l.Seats[i]
				dr := (float64(s.Row) - 0.5*float64(l.Rows+1)) / float64(l.Rows)
				dc := (float64(s.Col) - 0.5*float64(l.Cols+1)) / float64(l.Cols)
				dist += math.Hypot(dr, dc) / math.Sqrt2 * 2 // 0 in the middle, 1 in a corner
			}
			p.score = 1 - dist/float64(n) + 0.9*rng.Float64()
			p.away = rng.Float64() < stadiumAwayShare
			parties = append(parties, p)
			run = run[n:]
		}
	}
	var run []int
	for i, s := range l.Seats {
		if s.Kind == services.KindBlocked {
			cut(run)
			run = nil
			continue
		}
		sellable++
		if len(run) > 0 {
			prev := l.Seats[run[len(run)-1]]
			if prev.Row != s.Row || prev.Col != s.Col-1 {
				cut(run)
				run = nil
			}
		}
		run = append(run, i)
	}
	cut(run)
	order := make([]int, len(parties))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return parties[order[a]].score > parties[order[b]].score })
	want := int(math.Round(share * float64(sellable)))
	var taken []int
	n := 0
	for _, i := range order {
		if n >= want {
			break
		}
		if parties[i].away {
			continue
		}
		taken = append(taken, i)
		n += len(parties[i].seats)
	}
	sort.Ints(taken)
	out := make([]StadiumGroup, len(taken))
	for j, i := range taken {
		out[j] = StadiumGroup{Seats: parties[i].seats, Sold: rng.Float64() < StadiumSoldShare}
	}
	return out
}
