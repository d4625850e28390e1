package jobs

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/robfig/cron/v3"
)

// SeatSyncer retries the seat-sync outbox; services.Orders implements it.
type SeatSyncer interface {
	RetrySeatSyncs(ctx context.Context, limit int) (int, error)
}

// Scheduler runs the periodic work of one process with robfig/cron: reconciliation
// every interval (and once at start), the seat-sync retries every second, and the jobs
// added before Start (AddPublish). Each job is wrapped in SkipIfStillRunning
// (outermost) and Recover, and the run at start goes through the same wrapped job.
// Reconciliation is cluster-wide exclusive through its Redis lease: an instance that
// finds the lease taken skips its turn.
type Scheduler struct {
	cron      *cron.Cron
	reconcile cron.Job
	ctx       context.Context
	stop      context.CancelFunc
	first     sync.WaitGroup // the run at start, which cron does not track
}

// NewScheduler builds the schedule; nothing runs before Start.
func NewScheduler(rec Reconciler, syncer SeatSyncer, interval time.Duration, log *slog.Logger) *Scheduler {
	cl := cronLogger{log}
	ctx, stop := context.WithCancel(context.Background())
	c := cron.New(cron.WithLogger(cl))
	s := &Scheduler{cron: c, ctx: ctx, stop: stop}
	guard := func(f func()) cron.Job {
		return cron.NewChain(cron.SkipIfStillRunning(cl), cron.Recover(cl)).Then(cron.FuncJob(f))
	}
	s.reconcile = guard(s.reconcileJob(rec, log)) // reconcile.go
	c.Schedule(cron.Every(interval), s.reconcile)
	c.Schedule(cron.Every(time.Second), guard(func() {
		ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
		defer cancel()
		if _, err := syncer.RetrySeatSyncs(ctx, 200); err != nil && s.ctx.Err() == nil {
			log.Warn("seat-sync retries failed", "err", err)
		}
	}))
	return s
}

// Start starts the schedule and one reconciliation run right away.
func (s *Scheduler) Start() {
	s.cron.Start()
	s.first.Add(1)
	go func() { defer s.first.Done(); s.reconcile.Run() }()
}

// Stop stops scheduling, cancels the runs in progress and waits for them (at most
// until ctx ends).
func (s *Scheduler) Stop(ctx context.Context) {
	done := s.cron.Stop()
	s.stop()
	first := make(chan struct{})
	go func() { s.first.Wait(); close(first) }()
	for _, c := range []<-chan struct{}{done.Done(), first} {
		select {
		case <-c:
		case <-ctx.Done():
			return
		}
	}
}

// cronLogger sends robfig/cron's log lines to slog.
type cronLogger struct{ l *slog.Logger }

func (c cronLogger) Info(msg string, kv ...any) { c.l.Debug(msg, append(kv, "component", "cron")...) }
func (c cronLogger) Error(err error, msg string, kv ...any) {
	c.l.Error(msg, append(kv, "err", err, "component", "cron")...)
}
