package jobs

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// fakeRoller counts roll-ups, remembers how far back it was asked to look, and fails
// its first call when told to.
type fakeRoller struct {
	calls     atomic.Int32
	days      atomic.Int32
	failFirst bool
}

func (f *fakeRoller) RollUpRecent(_ context.Context, days int) error {
	n := f.calls.Add(1)
	f.days.Store(int32(days))
	if n == 1 && f.failFirst {
		return errors.New("database gone")
	}
	return nil
}

// The sales roll-up runs on its schedule over RollupDays, and keeps running after a
// failed run.
func TestSalesRollupRunsEveryIntervalAndSurvivesFailures(t *testing.T) {
	for _, c := range []struct {
		name string
		r    *fakeRoller
	}{
		{"plain", &fakeRoller{}},
		{"first run fails", &fakeRoller{failFirst: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewScheduler(&fakeReconciler{}, &fakeSyncer{}, time.Hour, quiet)
			s.AddSalesRollup(c.r, time.Second, quiet)
			s.Start()
			defer s.Stop(context.Background())
			waitFor(t, "two roll-ups", func() bool { return c.r.calls.Load() >= 2 })
			if got := c.r.days.Load(); got != RollupDays {
				t.Errorf("rolled up %d days back, want %d", got, RollupDays)
			}
		})
	}
}
