package loadtest

import (
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

func TestHistogram_PercentilesWithinBucketPrecision(t *testing.T) {
	cases := []struct {
		name string
		gen  func(r *rand.Rand) time.Duration
	}{
		{"sub-64µs exact", func(r *rand.Rand) time.Duration { return time.Duration(r.IntN(64)) * time.Microsecond }},
		{"uniform 0-50ms", func(r *rand.Rand) time.Duration { return time.Duration(r.IntN(50000)) * time.Microsecond }},
		{"long tail", func(r *rand.Rand) time.Duration {
			return time.Duration(r.ExpFloat64() * float64(3*time.Millisecond))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			var h Histogram
			var all []time.Duration
			for i := 0; i < 20000; i++ {
				d := c.gen(r).Truncate(time.Microsecond)
				h.Record(d)
				all = append(all, d)
			}
			sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
			if h.Count() != int64(len(all)) {
				t.Fatalf("count %d, want %d", h.Count(), len(all))
			}
			if h.Max() != all[len(all)-1] {
				t.Errorf("max %v, want %v", h.Max(), all[len(all)-1])
			}
			for _, p := range []float64{50, 90, 99, 99.9, 100} {
				rank := int(float64(len(all))*p/100+0.9999999) - 1
				want := all[rank]
				got := h.Percentile(p)
				if got < want || float64(got-want) > float64(want)/64+float64(time.Microsecond) {
					t.Errorf("p%v = %v, exact %v: outside one bucket", p, got, want)
				}
			}
		})
	}
}

func TestHistogram_EmptyAndNegative(t *testing.T) {
	var h Histogram
	if h.Percentile(99) != 0 || h.Max() != 0 {
		t.Fatal("an empty histogram must answer 0")
	}
	if lat, frac := h.CDF(); lat != nil || frac != nil {
		t.Fatal("an empty histogram has no CDF")
	}
	h.Record(-time.Second)
	if h.Percentile(50) != 0 {
		t.Errorf("a negative latency must count as 0, got %v", h.Percentile(50))
	}
}

func TestBuckets_RoundTrip(t *testing.T) {
	for _, v := range []int64{0, 1, 63, 64, 65, 127, 128, 129, 1000, 65535, 1 << 20, 1<<40 + 12345} {
		i := bucketOf(v)
		if top := bucketTop(i); top < v || bucketOf(top) != i {
			t.Errorf("value %d: bucket %d tops at %d", v, i, top)
		}
		if i > 0 && bucketTop(i-1) >= v {
			t.Errorf("value %d: the bucket below (%d) already holds it", v, bucketTop(i-1))
		}
	}
}

func TestHistogram_CDFEndsAtOne(t *testing.T) {
	var h Histogram
	for _, ms := range []int{1, 2, 2, 3, 40} {
		h.Record(time.Duration(ms) * time.Millisecond)
	}
	lat, frac := h.CDF()
	if len(lat) != 4 || frac[len(frac)-1] != 1 || frac[1] != 0.6 {
		t.Fatalf("CDF %v %v", lat, frac)
	}
	for i := 1; i < len(lat); i++ {
		if lat[i] <= lat[i-1] {
			t.Fatalf("CDF latencies not increasing: %v", lat)
		}
	}
}

func TestTimeline_PerSecond(t *testing.T) {
	start := time.Now()
	tl := NewTimeline(start, 3)
	for _, off := range []time.Duration{0, 500 * time.Millisecond, 1500 * time.Millisecond, 10 * time.Second, -time.Second} {
		tl.Add(start.Add(off))
	}
	got := tl.PerSecond(5)
	want := []int64{3, 1, 1} // before the start counts in second 0, after the end in the last
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
