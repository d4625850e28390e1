package jobs

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"seatflow/services/reconcile"
)

// fakeReconciler counts runs, the most at once, and can block or panic on demand.
type fakeReconciler struct {
	runs, running, most atomic.Int32
	block               chan struct{} // when set, the first run waits on it
	hold                chan struct{} // when set, the third run waits until it is closed
	panicFirst          bool
	cancelled           atomic.Bool
	once                sync.Once
}

func (f *fakeReconciler) Run(ctx context.Context, opts reconcile.ReconcileOptions) (*reconcile.ReconcileRun, error) {
	n := f.runs.Add(1)
	cur := f.running.Add(1)
	defer f.running.Add(-1)
	for {
		m := f.most.Load()
		if cur <= m || f.most.CompareAndSwap(m, cur) {
			break
		}
	}
	if opts.Trigger != reconcile.TriggerCron {
		panic("scheduled runs must say trigger cron")
	}
	if n == 1 && f.panicFirst {
		panic("boom")
	}
	if f.block != nil {
		f.once.Do(func() {
			select {
			case <-f.block:
			case <-ctx.Done():
				f.cancelled.Store(true)
			}
		})
	}
	if f.hold != nil && n == 3 {
		<-f.hold
	}
	return &reconcile.ReconcileRun{}, nil
}

type fakeSyncer struct{ calls atomic.Int32 }

func (f *fakeSyncer) RetrySeatSyncs(context.Context, int) (int, error) { f.calls.Add(1); return 0, nil }

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The schedule runs reconciliation once at start and then every interval, never two at
// once in a process (a run still going makes the next tick skip), and the seat-sync
// retries every second.
func TestSchedulerRunsAtStartAndNeverOverlaps(t *testing.T) {
	rec := &fakeReconciler{block: make(chan struct{})}
	syncer := &fakeSyncer{}
	s := NewScheduler(rec, syncer, time.Second, quiet)
	s.Start()
	defer s.Stop(context.Background())
	waitFor(t, "the run at start", func() bool { return rec.runs.Load() >= 1 })
	time.Sleep(2500 * time.Millisecond) // ticks while the first run blocks are skipped
	if n := rec.runs.Load(); n != 1 {
		t.Errorf("%d runs while the first was still going, want 1", n)
	}
	close(rec.block)
	waitFor(t, "a scheduled run", func() bool { return rec.runs.Load() >= 2 })
	if m := rec.most.Load(); m != 1 {
		t.Errorf("%d runs at once", m)
	}
	waitFor(t, "seat-sync retries", func() bool { return syncer.calls.Load() >= 2 })
}

// A run that panics does not stop the schedule (Recover sits inside SkipIfStillRunning).
func TestSchedulerSurvivesAPanickingRun(t *testing.T) {
	rec := &fakeReconciler{panicFirst: true}
	s := NewScheduler(rec, &fakeSyncer{}, time.Second, quiet)
	s.Start()
	defer s.Stop(context.Background())
	waitFor(t, "a run after the panic", func() bool { return rec.runs.Load() >= 2 })
}

// Stop cancels a run in progress and waits for it.
func TestSchedulerStopCancelsTheRunningRun(t *testing.T) {
	rec := &fakeReconciler{block: make(chan struct{})}
	s := NewScheduler(rec, &fakeSyncer{}, time.Hour, quiet)
	s.Start()
	waitFor(t, "the run at start", func() bool { return rec.running.Load() == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.Stop(ctx)
	if !rec.cancelled.Load() || rec.running.Load() != 0 {
		t.Errorf("stop did not cancel and wait for the run (cancelled %v, running %d)", rec.cancelled.Load(), rec.running.Load())
	}
}

// TestSchedulerNudgeRunsAtOnce: a fault's Nudge starts a run within a second, not at the
// schedule's next turn (an hour here); nudges while one waits are absorbed, and runs
// never overlap.
func TestSchedulerNudgeRunsAtOnce(t *testing.T) {
	// the third run (the first of the five nudges') lasts until all five were sent, so
	// the test does not depend on how the scheduler's goroutine is scheduled between them
	rec := &fakeReconciler{hold: make(chan struct{})}
	s := NewScheduler(rec, &fakeSyncer{}, time.Hour, quiet)
	s.Start()
	defer s.Stop(context.Background())
	waitFor(t, "the run at start", func() bool { return rec.runs.Load() == 1 })
	nudged := time.Now()
	s.Nudge("instance dead")
	waitFor(t, "the run the nudge asked for", func() bool { return rec.runs.Load() == 2 })
	if took := time.Since(nudged); took > time.Second {
		t.Errorf("the nudged run started %s after the nudge, want within 1s", took)
	}
	for i := 0; i < 5; i++ {
		s.Nudge("topology changed")
	}
	waitFor(t, "the runs the nudges asked for", func() bool { return rec.runs.Load() >= 3 })
	close(rec.hold)
	time.Sleep(300 * time.Millisecond)
	if n := rec.runs.Load(); n > 4 {
		t.Errorf("%d runs after 5 nudges in a row, want them absorbed into at most 2", n)
	}
	if m := rec.most.Load(); m > 1 {
		t.Errorf("%d runs at once", m)
	}
}
