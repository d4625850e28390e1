package loadtest

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// Histogram records latencies in microseconds in log-linear buckets (HDR style): exact
// below 64 µs, then 64 buckets per power of two, so a percentile is within 1/64 (1.6 %)
// of the true value. Record and the readers are safe for concurrent use without locks.
type Histogram struct {
	counts [histBuckets]atomic.Int64
	n      atomic.Int64
	max    atomic.Int64 // µs
}

const (
	histSubBits = 6
	histSub     = 1 << histSubBits
	histBuckets = (64 - histSubBits + 1) * histSub
)

// bucketOf returns the bucket index of v µs (v >= 0).
func bucketOf(v int64) int {
	if v < histSub {
		return int(v)
	}
	e := bits.Len64(uint64(v)) - histSubBits - 1 // v>>e is in [64, 128)
	return (e+1)*histSub + int(v>>e) - histSub
}

// bucketTop returns the highest value (µs) that falls into bucket i.
func bucketTop(i int) int64 {
	if i < histSub {
		return int64(i)
	}
	e := i/histSub - 1
	m := int64(i%histSub + histSub)
	return (m+1)<<e - 1
}

// Record adds one latency; negative durations count as 0.
func (h *Histogram) Record(d time.Duration) {
	v := max(int64(d/time.Microsecond), 0)
	h.counts[bucketOf(v)].Add(1)
	h.n.Add(1)
	for {
		m := h.max.Load()
		if v <= m || h.max.CompareAndSwap(m, v) {
			return
		}
	}
}

// Count returns how many latencies were recorded.
func (h *Histogram) Count() int64 { return h.n.Load() }

// Max returns the largest latency recorded (exact), 0 when there is none.
func (h *Histogram) Max() time.Duration { return time.Duration(h.max.Load()) * time.Microsecond }

// Percentile returns the latency below or at which p percent (0 < p <= 100) of the
// recorded latencies lie, as the top of its bucket capped at Max; 0 when empty.
func (h *Histogram) Percentile(p float64) time.Duration {
	n := h.n.Load()
	if n == 0 {
		return 0
	}
	rank := int64(float64(n)*p/100 + 0.9999999)
	rank = min(max(rank, 1), n)
	var seen int64
	for i := range h.counts {
		seen += h.counts[i].Load()
		if seen >= rank {
			return min(time.Duration(bucketTop(i))*time.Microsecond, h.Max())
		}
	}
	return h.Max()
}

// CDF returns points (latency, fraction of latencies <= it) for every non-empty bucket,
// in increasing latency order: the latency distribution for plots.
func (h *Histogram) CDF() (lat []time.Duration, frac []float64) {
	n := h.n.Load()
	if n == 0 {
		return nil, nil
	}
	var seen int64
	for i := range h.counts {
		c := h.counts[i].Load()
		if c == 0 {
			continue
		}
		seen += c
		lat = append(lat, min(time.Duration(bucketTop(i))*time.Microsecond, h.Max()))
		frac = append(frac, float64(seen)/float64(n))
	}
	return lat, frac
}

// Timeline counts events per whole second since its start: throughput over time.
type Timeline struct {
	start time.Time
	secs  []atomic.Int64
}

// NewTimeline returns a timeline of up to maxSeconds seconds starting at start; later
// events land in the last second.
func NewTimeline(start time.Time, maxSeconds int) *Timeline {
	return &Timeline{start: start, secs: make([]atomic.Int64, max(maxSeconds, 1))}
}

// Add counts one event at time t.
func (t *Timeline) Add(at time.Time) {
	i := int(at.Sub(t.start) / time.Second)
	t.secs[min(max(i, 0), len(t.secs)-1)].Add(1)
}

// PerSecond returns the counts of the first n seconds.
func (t *Timeline) PerSecond(n int) []int64 {
	n = min(n, len(t.secs))
	out := make([]int64, n)
	for i := range out {
		out[i] = t.secs[i].Load()
	}
	return out
}
