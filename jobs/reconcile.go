package jobs

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"seatflow/services/reconcile"
)

// Reconciler runs one reconciliation; services.Reconciler implements it.
type Reconciler interface {
	Run(ctx context.Context, opts reconcile.ReconcileOptions) (*reconcile.ReconcileRun, error)
}

// reconcileRunTimeout bounds one scheduled run: well below the age at which a run still
// marked running counts as dead.
const reconcileRunTimeout = 10 * time.Minute

// reconcileJob is the scheduler's reconciliation turn: one run of rec, skipped quietly
// when another instance holds the lease, an error logged unless the scheduler stops.
func (s *Scheduler) reconcileJob(rec Reconciler, log *slog.Logger) func() {
	return func() {
		ctx, cancel := context.WithTimeout(s.ctx, reconcileRunTimeout)
		defer cancel()
		_, err := rec.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerCron})
		switch {
		case errors.Is(err, reconcile.ErrReconcileBusy):
			log.Debug("reconciliation skipped: another instance is running it")
		case err != nil && s.ctx.Err() == nil:
			log.Error("reconciliation run failed", "err", err)
		}
	}
}
