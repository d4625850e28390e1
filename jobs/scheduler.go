package jobs

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/robfig/cron/v3"

	"seatflow/services/reconcile"
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
	rec       Reconciler
	log       *slog.Logger
	nudges    chan string // faults asking for a run now (Nudge); one waiting is enough
}

// NewScheduler builds the schedule; nothing runs before Start.
func NewScheduler(rec Reconciler, syncer SeatSyncer, interval time.Duration, log *slog.Logger) *Scheduler {
	cl := cronLogger{log}
	ctx, stop := context.WithCancel(context.Background())
	c := cron.New(cron.WithLogger(cl))
	s := &Scheduler{cron: c, ctx: ctx, stop: stop, rec: rec, log: log, nudges: make(chan string, 1)}
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

// Start starts the schedule, one reconciliation run right away, and the runs Nudge asks for.
func (s *Scheduler) Start() {
	s.cron.Start()
	s.first.Add(2)
	go func() { defer s.first.Done(); s.reconcile.Run() }()
	go func() { defer s.first.Done(); s.faultRuns() }()
}

// Nudge asks for a reconciliation run of every show now, because of a fault (reason:
// an instance died, the instance registry or a Redis node lost its data, the cluster's
// topology changed), instead of at the next turn of the schedule; a run already waiting
// absorbs it. It never blocks; before Start it is kept for the first run.
func (s *Scheduler) Nudge(reason string) {
	select {
	case s.nudges <- reason:
	default:
	}
}

// faultRuns performs the runs Nudge asks for, one at a time, until Stop: each waits for
// the lease held by a run in progress (faultRunWait), and a run that cannot take it is
// retried after a second.
func (s *Scheduler) faultRuns() {
	for {
		var reason string
		select {
		case <-s.ctx.Done():
			return
		case reason = <-s.nudges:
		}
		for s.faultRun(reason) {
			select {
			case <-s.ctx.Done():
				return
			case <-time.After(time.Second):
			}
		}
	}
}

// faultRunWait is how long a run a fault asked for waits for the lease.
const faultRunWait = 20 * time.Second

// faultRun runs reconciliation once for reason; it reports whether to try again.
func (s *Scheduler) faultRun(reason string) (again bool) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("reconciliation after a fault panicked", "reason", reason, "panic", p)
			again = false
		}
	}()
	ctx, cancel := context.WithTimeout(s.ctx, reconcileRunTimeout)
	defer cancel()
	run, err := s.rec.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerCron, Wait: faultRunWait})
	switch {
	case err == nil:
		s.log.Info("reconciliation after a fault", "reason", reason, "run_id", run.ID, "findings", len(run.Findings), "fixed", run.Fixed)
		return false
	case s.ctx.Err() != nil:
		return false
	default:
		s.log.Warn("reconciliation after a fault failed; trying again", "reason", reason, "err", err)
		return true
	}
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
