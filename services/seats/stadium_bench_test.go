package seats_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/demo"
	"seatflow/services/seats"
)

// stadiumHall is the 300 x 300 stadium of demo.StadiumLayout as a hall (ids 1..n in
// layout order) and which of its seats are free after demo.StadiumTaken took 70 %.
func stadiumHall(tb testing.TB) (*services.Hall, []bool) {
	tb.Helper()
	l, err := catalog.ParseLayout(demo.StadiumLayout(demo.StadiumOptions{}), catalog.NumberLeftToRight)
	if err != nil {
		tb.Fatal(err)
	}
	h := &services.Hall{Rows: l.Rows, Cols: l.Cols}
	for i, s := range l.Seats {
		h.Seats = append(h.Seats, services.Seat{ID: int64(i + 1), ZoneCode: s.Zone, Row: s.Row, Col: s.Col, Label: s.Label, Kind: s.Kind})
	}
	h.Index()
	free := make([]bool, len(h.Seats))
	for i, s := range h.Seats {
		free[i] = s.Sellable()
	}
	for _, g := range demo.StadiumTaken(l, 7, 0.7) {
		for _, i := range g.Seats {
			free[i] = false
		}
	}
	return h, free
}

// latencies summarises per-call durations: calls a second over their sum, p50, p99, max.
func latencies(d []time.Duration) (perSec float64, p50, p99, worst time.Duration) {
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	slices.Sort(d)
	return float64(len(d)) / sum.Seconds(), d[len(d)/2], d[len(d)*99/100], d[len(d)-1]
}

// BenchmarkStadium_BestAvailable (make bench-stadium) measures best-available and the
// single-seat check on the 300 x 300 stadium, 70 % taken, on one core (GOMAXPROCS 1):
// choices of 1-6 seats (pairs most often) in zones weighted as a crowd asks, each
// choice taken at once, the hall reset to 70 % whenever it reaches 85 %. The ceiling it
// is compared with is one pass over the hall's seats (counting the free ones), measured
// in the same run. Goal (issue: stadium scale): >= 5,000 choices a second. Lines start
// with "stadium:".
func BenchmarkStadium_BestAvailable(b *testing.B) {
	hall, start := stadiumHall(b)
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	sellable := 0
	for _, s := range hall.Seats {
		if s.Sellable() {
			sellable++
		}
	}
	freeShare := func(free []bool) float64 {
		n := 0
		for _, f := range free {
			if f {
				n++
			}
		}
		return float64(n) / float64(sellable)
	}
	fmt.Printf("stadium: hall seats=%d sellable=%d free_share=%.3f rows=%d cols=%d\n", len(hall.Seats), sellable, freeShare(start), hall.Rows, hall.Cols)

	// the ceiling: one pass over every seat, as a full count of free seats does
	scans := make([]time.Duration, 200)
	sink := 0
	for i := range scans {
		t0 := time.Now()
		for j, s := range hall.Seats {
			if start[j] && s.Kind == services.KindStandard {
				sink++
			}
		}
		scans[i] = time.Since(t0)
	}
	scanPerSec, scanP50, _, _ := latencies(scans)

	rng := rand.New(rand.NewPCG(3, 9))
	sizes := []int{1, 2, 2, 2, 2, 3, 3, 4, 4, 4, 5, 6}
	zones := []string{"standard", "standard", "standard", "standard", "standard", "standard", "premium", "premium", "premium", "vip"}
	const n = 20000
	free := slices.Clone(start)
	bits := seats.NewFreeBits(hall, free)
	took := make([]time.Duration, 0, n)
	fallbacks, none, resets := 0, 0, 0
	var noneTook []time.Duration
	for b.Loop() {
		for len(took) < n {
			q, z := sizes[rng.IntN(len(sizes))], zones[rng.IntN(len(zones))]
			t0 := time.Now()
			p := seats.ChoosePlain(hall, free, bits, z, q, false)
			took = append(took, time.Since(t0))
			switch {
			case p.IDs == nil:
				none++
				noneTook = append(noneTook, took[len(took)-1])
			case len(p.Stranded) > 0:
				fallbacks++
			}
			for _, i := range seats.Indexes(hall, p.IDs) {
				free[i] = false
				bits.Set(hall, i, false)
			}
			if len(took)%500 == 0 && freeShare(free) < 0.15 {
				copy(free, start)
				bits = seats.NewFreeBits(hall, free)
				resets++
			}
		}
	}
	perSec, p50, p99, worst := latencies(took)
	fmt.Printf("stadium: best_available choices=%d choices_per_s=%.0f p50_us=%.1f p99_us=%.1f max_us=%.1f fallbacks_stranding=%d none_fit=%d resets=%d goal_per_s=5000 goal_ratio=%.2f\n",
		len(took), perSec, us(p50), us(p99), us(worst), fallbacks, none, resets, perSec/5000)
	if len(noneTook) > 0 {
		nPerSec, n50, n99, _ := latencies(noneTook)
		fmt.Printf("stadium: best_available_none_fit calls=%d per_s=%.0f p50_us=%.1f p99_us=%.1f\n", len(noneTook), nPerSec, us(n50), us(n99))
	}
	fmt.Printf("stadium: ceiling full_scans_per_s=%.0f scan_p50_us=%.1f choice_vs_scan=%.3f (a choice costs this many full passes over the hall)\n",
		scanPerSec, us(scanP50), float64(p50)/float64(scanP50))

	// the single-seat check of chosen seats (seats.GapRefused: the Go definition the hold
	// script mirrors), on blocks of 1-6 free seats side by side picked at random
	checks := make([]time.Duration, 0, n)
	refused := 0
	var idx []int32
	for len(checks) < n {
		i := int32(rng.IntN(len(hall.Seats)))
		q := sizes[rng.IntN(len(sizes))]
		idx = idx[:0]
		for k := int32(0); len(idx) < q && i >= 0 && start[i]; k++ {
			idx = append(idx, i)
			_, i = hall.Beside(i)
		}
		if len(idx) == 0 {
			continue
		}
		t0 := time.Now()
		_, refuse := seats.GapRefused(hall, start, idx)
		checks = append(checks, time.Since(t0))
		if refuse {
			refused++
		}
	}
	cPerSec, c50, c99, _ := latencies(checks)
	fmt.Printf("stadium: single_seat_check checks=%d checks_per_s=%.0f p50_us=%.1f p99_us=%.1f refused=%d\n", len(checks), cPerSec, us(c50), us(c99), refused)
	_ = sink
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
