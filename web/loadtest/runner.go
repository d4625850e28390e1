package loadtest

import (
	"context"
	"fmt"
	"io"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Outcome classifies one operation of a scenario.
type Outcome int

const (
	// OutOK is the answer the scenario measures (a created order, a taken-seat answer, a
	// seat map read).
	OutOK Outcome = iota
	// OutRejected is an expected refusal that is not the measured answer (e.g. SEAT_TAKEN
	// during a flash sale, LIMIT_EXCEEDED).
	OutRejected
	// OutError is anything else: transport errors, 5xx, answers that must not happen.
	OutError
)

// Recorder collects the outcomes and latencies of one scenario's measured operations.
// It is safe for concurrent use.
type Recorder struct {
	Lat      Histogram
	Timeline *Timeline
	ok, rej  atomic.Int64
	errs     atomic.Int64
	mu       sync.Mutex
	codes    map[string]int64
	firstErr string
}

// NewRecorder returns a recorder whose timeline starts at start and holds maxSeconds.
func NewRecorder(start time.Time, maxSeconds int) *Recorder {
	return &Recorder{Timeline: NewTimeline(start, maxSeconds), codes: map[string]int64{}}
}

// Observe records one operation that took d and ended at end; code names the answer
// ("201", "SEAT_TAKEN", "transport", ...) and detail describes an error (first kept).
func (r *Recorder) Observe(o Outcome, d time.Duration, end time.Time, code, detail string) {
	r.Lat.Record(d)
	switch o {
	case OutOK:
		r.ok.Add(1)
		r.Timeline.Add(end)
	case OutRejected:
		r.rej.Add(1)
	default:
		r.errs.Add(1)
	}
	r.mu.Lock()
	r.codes[code]++
	if o == OutError && r.firstErr == "" {
		r.firstErr = code + ": " + detail
	}
	r.mu.Unlock()
}

// Counts returns the measured answers, expected refusals and errors so far.
func (r *Recorder) Counts() (ok, rejected, errors int64) {
	return r.ok.Load(), r.rej.Load(), r.errs.Load()
}

// Codes returns the answers seen as "code n" strings sorted by code, and the first error.
func (r *Recorder) Codes() ([]string, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.codes))
	for c, n := range r.codes {
		out = append(out, fmt.Sprintf("%s %d", c, n))
	}
	sort.Strings(out)
	return out, r.firstErr
}

// FormatProgress is the live progress line of a scenario (without the leading \r):
// name, elapsed seconds, operations done, measured answers per second, errors, p99.
func FormatProgress(name string, elapsed time.Duration, done, ok, errors int64, p99 time.Duration) string {
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(ok) / s
	}
	return fmt.Sprintf("%-10s %5.1fs  done %8d  ok/s %8.0f  errors %5d  p99 %s", name, elapsed.Seconds(), done, rate, errors, fmtMS(p99))
}

// fmtMS formats a duration in milliseconds with two decimals ("12.34 ms").
func fmtMS(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

// runClients runs op on clients goroutines until duration has passed, ctx ends or an
// op returns false (the scenario is done, e.g. sold out); operations in flight then
// finish. On progress (nil: none) it rewrites a progress line every second when live
// (a terminal), and writes the final line of the phase either way. It returns the wall
// time of the run.
func runClients(ctx context.Context, name string, clients int, duration time.Duration, rec *Recorder,
	progress io.Writer, live bool, op func(ctx context.Context, client int) bool) time.Duration {
	start := time.Now()
	deadline := start.Add(duration)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// a request in flight at the deadline runs to its end: cutting it off could
			// leave an order created that the client never saw
			for ctx.Err() == nil && !stop.Load() && time.Now().Before(deadline) {
				if !op(ctx, w) {
					stop.Store(true)
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	line := func() string {
		ok, rej, errs := rec.Counts()
		return FormatProgress(name, time.Since(start), ok+rej+errs, ok, errs, rec.Lat.Percentile(99))
	}
	for {
		select {
		case <-tick.C:
			if progress != nil && live {
				fmt.Fprintf(progress, "\r%s", line())
			}
		case <-done:
			elapsed := time.Since(start)
			if progress != nil {
				cr := ""
				if live {
					cr = "\r"
				}
				fmt.Fprintf(progress, "%s%s\n", cr, line())
			}
			return elapsed
		}
	}
}
