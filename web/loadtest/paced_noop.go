package loadtest

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// CeilingHTTPPaced names the HTTP no-op sent the way a waiting crowd reads: the waitroom
// scenario's own ceiling (pacedNoop).
const CeilingHTTPPaced = CeilingHTTP + "-paced"

// pacedNoopFor is how long pacedNoop measures (the run's duration when shorter).
const pacedNoopFor = 10 * time.Second

// pacedNoop measures GET /healthz sent as the waiting crowd sends its reads: over conns
// connections of a client of its own, rate requests a second in all, each connection
// waiting conns/rate seconds between requests (0.5x to 1.5x, drawn as the visitors'
// polls are), for d. The saturated no-op (runHTTPCeiling) answers back to back on 32
// busy connections; here each answer wakes an idle connection, and the process's
// background (ticks, the job queue's polling) is shared by fewer answers, as it is by the
// crowd's reads: its CPU per answer is what the transport alone costs a read at the
// crowd's pace. Errors: the context's.
func (r *run) pacedNoop(ctx context.Context, conns int, rate float64, d time.Duration) (*Result, error) {
	cl := NewClient(r.opts.Base, conns+1)
	defer cl.Close()
	every := time.Duration(float64(conns) / rate * float64(time.Second))
	start := time.Now()
	end := start.Add(d)
	rec := NewRecorder(start, int(d/time.Second)+60)
	cpu0 := r.cpu.snapshot()
	seed := uint64(start.UnixNano())
	var wg sync.WaitGroup
	for w := 0; w < conns; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			next := start.Add(time.Duration(rng.Int64N(int64(every) + 1)))
			timer := time.NewTimer(time.Hour)
			defer timer.Stop()
			for next.Before(end) {
				timer.Reset(time.Until(next))
				select {
				case <-ctx.Done():
					return
				case <-timer.C:
				}
				t0 := time.Now()
				a, err := cl.Do(ctx, "GET", "/healthz", "", "", nil, false)
				done := time.Now()
				switch {
				case err != nil:
					if ctx.Err() == nil {
						rec.Observe(OutError, done.Sub(t0), done, "transport", err.Error())
					}
				case a.Status != 200:
					rec.Observe(OutError, done.Sub(t0), done, answerCode(a), "healthz")
				default:
					rec.Observe(OutOK, done.Sub(t0), done, "200", "")
				}
				next = next.Add(time.Duration(float64(every) * (0.5 + rng.Float64())))
			}
		}()
	}
	wg.Wait()
	cpu := cpuSince(cpu0, r.cpu.snapshot())
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	res := newResult(CeilingHTTPPaced, "HTTP no-op (GET /healthz) at the waiting crowd's pace and connections", "answers", conns, time.Since(start), rec)
	res.CPU = cpu
	res.Ceiling = true
	return res, nil
}
