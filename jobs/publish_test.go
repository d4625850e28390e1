package jobs

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// fakePublisher counts calls, remembers the window asked for, and panics or fails on
// its first call when told to.
type fakePublisher struct {
	calls      atomic.Int32
	ahead      atomic.Int64
	panicFirst bool
	failFirst  bool
}

func (f *fakePublisher) PreloadOpeningSales(_ context.Context, ahead time.Duration) (int, error) {
	n := f.calls.Add(1)
	f.ahead.Store(int64(ahead))
	if n == 1 && f.panicFirst {
		panic("boom")
	}
	if n == 1 && f.failFirst {
		return 0, errors.New("redis down")
	}
	return 1, nil
}

// The publish job runs on its schedule with the window it was given, and keeps running
// after a call that panicked or failed.
func TestPublishRunsEveryIntervalAndSurvivesFailures(t *testing.T) {
	for _, c := range []struct {
		name string
		pub  *fakePublisher
	}{
		{"plain", &fakePublisher{}},
		{"first call panics", &fakePublisher{panicFirst: true}},
		{"first call fails", &fakePublisher{failFirst: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewScheduler(&fakeReconciler{}, &fakeSyncer{}, time.Hour, quiet)
			s.AddPublish(c.pub, time.Second, 10*time.Minute, quiet)
			s.Start()
			defer s.Stop(context.Background())
			waitFor(t, "two publish runs", func() bool { return c.pub.calls.Load() >= 2 })
			if got := time.Duration(c.pub.ahead.Load()); got != 10*time.Minute {
				t.Errorf("asked for a window of %s, want 10m", got)
			}
		})
	}
}
