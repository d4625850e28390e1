package seats_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"seatflow/services/internal/testenv"
	"seatflow/services/seats"
)

// scriptTrips counts the round trips that carry seat scripts (a command, or a pipeline)
// and the scripts they carry.
type scriptTrips struct {
	mu             sync.Mutex
	trips, scripts int
}

func (h *scriptTrips) count(cmds []redis.Cmder) {
	n := 0
	for _, c := range cmds {
		if name := c.Name(); name == "evalsha" || name == "eval" {
			n++
		}
	}
	if n > 0 {
		h.mu.Lock()
		h.trips++
		h.scripts += n
		h.mu.Unlock()
	}
}

func (h *scriptTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *scriptTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.count([]redis.Cmder{cmd})
		return next(ctx, cmd)
	}
}

func (h *scriptTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.count(cmds)
		return next(ctx, cmds)
	}
}

// TestScripts_CallsMadeTogetherShareARoundTrip: while Redis sleeps (DEBUG SLEEP on a
// private server), 20 buyers each hold a seat of their own, at the same moment. Their
// 20 hold scripts reach Redis in a few round trips (the calls made while one is on the
// wire leave together), where one by one they took 20; each buyer is answered with its
// own hold, and each seat is held by the buyer's own order.
func TestScripts_CallsMadeTogetherShareARoundTrip(t *testing.T) {
	e, pr := testenv.NewPrivateRedisEnv(t)
	ctx := context.Background()
	var refs []seats.SeatRef
	for _, s := range e.Hall.Seats {
		if s.Sellable() && len(refs) < 21 {
			refs = append(refs, seats.SeatRef{ID: s.ID, Zone: s.ZoneCode})
		}
	}
	if len(refs) < 21 {
		t.Fatalf("the test hall has %d sellable seats, want 21", len(refs))
	}
	// the map and the hold script are loaded by a first hold, of the last seat
	if _, err := e.Seats.Hold(ctx, e.Show.ID, "WARMUP", 99, 10, refs[20:]); err != nil {
		t.Fatal(err)
	}
	refs = refs[:20]
	trips := &scriptTrips{}
	e.RDB.AddHook(trips)
	awake := pr.Sleep(300 * time.Millisecond)
	outs := make([]seats.HoldOutcome, len(refs))
	errs := make([]error, len(refs))
	var wg sync.WaitGroup
	for i, ref := range refs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = e.Seats.Hold(ctx, e.Show.ID, fmt.Sprintf("ORDER%02d", i), 100+int64(i), 10, []seats.SeatRef{ref})
		}()
	}
	wg.Wait()
	<-awake
	for i, ref := range refs {
		if errs[i] != nil || len(outs[i].Taken) > 0 || outs[i].Limit || outs[i].SoldOut != "" {
			t.Errorf("buyer %d: %+v %v, want its seat held", i, outs[i], errs[i])
		}
		if got, want := e.SeatVal(e.Show.ID, ref.ID), fmt.Sprintf("H|ORDER%02d|%d", i, 100+i); got != want {
			t.Errorf("seat %d is %q, want %q (the buyer's own order)", ref.ID, got, want)
		}
	}
	trips.mu.Lock()
	defer trips.mu.Unlock()
	t.Logf("%d hold scripts in %d round trips", trips.scripts, trips.trips)
	if trips.scripts != len(refs) {
		t.Errorf("%d hold scripts ran, want %d", trips.scripts, len(refs))
	}
	if trips.trips > len(refs)/4 {
		t.Errorf("%d hold scripts made at the same moment took %d round trips, want at most %d", trips.scripts, trips.trips, len(refs)/4)
	}
}
