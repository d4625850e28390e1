package reconcile

import (
	"context"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// Statuses of a stored reconciliation run.
const (
	RunRunning   = "running"
	RunDone      = "done"
	RunFailed    = "failed"
	RunLeaseLost = "lease_lost"
)

// ReconcileRun is one stored reconciliation run: Trigger (Trigger*), DryRun, the admin
// who asked (ActorID, ActorEmail; nil for cron and cli), the one show it covered (ShowID,
// nil for all), Status (Run*), Error (why it failed), counts, times (UTC) and, when
// read as a report, its Findings. Fixed counts the findings it repaired (0 in a dry run).
type ReconcileRun struct {
	ID            int64           `db:"id"`
	Trigger       string          `db:"run_trigger"`
	DryRun        bool            `db:"dry_run"`
	ActorID       *int64          `db:"actor_user_id"`
	ActorEmail    string          `db:"actor_email"`
	ShowID        *int64          `db:"scope_show_id"`
	Status        string          `db:"status"`
	Error         string          `db:"error"`
	ShowsChecked  int             `db:"shows_checked"`
	FindingsCount int             `db:"findings_count"`
	Fixed         int             `db:"fixed"`
	StartedAt     time.Time       `db:"started_at"`
	FinishedAt    *time.Time      `db:"finished_at"`
	Findings      []seats.Finding `db:"-"`
	kinds         map[string]int
}

// Duration is how long the run took (so far, while it runs).
func (r *ReconcileRun) Duration() time.Duration {
	if r.FinishedAt == nil {
		return 0
	}
	return r.FinishedAt.Sub(r.StartedAt)
}

// CountsByKind counts the run's findings per kind (also for runs listed by Runs, which
// carry the counts but not the findings).
func (r *ReconcileRun) CountsByKind() map[string]int {
	if r.kinds != nil {
		return r.kinds
	}
	out := map[string]int{}
	for _, f := range r.Findings {
		out[f.Kind]++
	}
	return out
}

// staleRunAfter is how long after its start a run still marked running is taken to
// have died with its process (runs are cancelled well before).
const staleRunAfter = 30 * time.Minute

// insertRun stores a new run as running, and marks runs that died with their process
// (still running after staleRunAfter) failed.
func (r *Reconciler) insertRun(ctx context.Context, run *ReconcileRun) error {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	if err := store.FailStaleReconcileRuns(ctx, r.db, run.StartedAt.Add(-staleRunAfter)); err != nil {
		return store.Unavailable("the database", err)
	}
	run.Status = RunRunning
	id, err := store.InsertReconcileRun(ctx, r.db, run.Trigger, run.DryRun, run.ActorID, run.ShowID, run.StartedAt)
	if err != nil {
		return store.Unavailable("the database", err)
	}
	run.ID = id
	return nil
}

// finishRun stores the run's outcome and findings in one transaction.
func (r *Reconciler) finishRun(ctx context.Context, run *ReconcileRun) error {
	now := r.clock.Now()
	run.FinishedAt = &now
	run.FindingsCount = len(run.Findings)
	msg := validText(run.Error, 500)
	findings := make([]store.ReconcileFinding, len(run.Findings))
	for i, f := range run.Findings {
		findings[i] = store.ReconcileFinding(f)
	}
	ctx, cancel := context.WithTimeout(ctx, 4*store.DBTimeout)
	defer cancel()
	err := store.InTx(ctx, r.db, func(tx *sqlx.Tx) error {
		if err := store.FinishReconcileRun(ctx, tx, run.ID, run.Status, msg, run.ShowsChecked, run.FindingsCount, run.Fixed, now); err != nil {
			return err
		}
		return store.InsertReconcileFindings(ctx, tx, run.ID, findings)
	})
	if err != nil {
		// keep at least the outcome, so the run does not read "running" for ever
		run.Status, run.Error = RunFailed, validText("its findings could not be stored: "+err.Error(), 500)
		_ = store.FailReconcileRun(ctx, r.db, run.ID, run.Error, now)
		return store.Unavailable("the database", err)
	}
	return nil
}

// printableASCII keeps s when it is at most n printable ASCII characters; otherwise it
// replaces every other byte with '?' and cuts it to n.
func printableASCII(s string, n int) string {
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '?'
		}
	}
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}

// validText makes s valid UTF-8 and cuts it to at most n characters.
func validText(s string, n int) string {
	s = strings.ToValidUTF8(s, "?")
	if r := []rune(s); len(r) > n {
		s = string(r[:n])
	}
	return s
}

// Runs lists stored runs newest first, at most limit (1..500), without findings.
// Errors: UNAVAILABLE.
func (r *Reconciler) Runs(ctx context.Context, limit int) ([]*ReconcileRun, error) {
	if limit < 1 || limit > 500 {
		limit = 100
	}
	rows, err := r.readRuns(ctx, func(ctx context.Context) ([]store.ReconcileRunRow, error) {
		return store.NewestReconcileRuns(ctx, r.db, limit)
	})
	if err != nil {
		return nil, err
	}
	runs := runsOf(rows)
	if len(runs) == 0 {
		return runs, nil
	}
	byID := make(map[int64]*ReconcileRun, len(runs))
	ids := make([]int64, len(runs))
	for i, run := range runs {
		run.kinds = map[string]int{}
		byID[run.ID], ids[i] = run, run.ID
	}
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	counts, err := store.ReconcileFindingCounts(qctx, r.db, ids)
	cancel()
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	for _, c := range counts {
		byID[c.RunID].kinds[c.Kind] = c.N
	}
	return runs, nil
}

// RunReport returns one stored run with its findings in the order they were found.
// Errors: NOT_FOUND, UNAVAILABLE.
func (r *Reconciler) RunReport(ctx context.Context, id int64) (*ReconcileRun, error) {
	rows, err := r.readRuns(ctx, func(ctx context.Context) ([]store.ReconcileRunRow, error) {
		return store.ReconcileRunByID(ctx, r.db, id)
	})
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, services.Errorf(services.CodeNotFound, "reconciliation run %d not found", id)
	}
	run := runsOf(rows)[0]
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	findings, err := store.ReconcileFindingsOfRun(qctx, r.db, id)
	cancel()
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	for _, f := range findings {
		run.Findings = append(run.Findings, seats.Finding(f))
	}
	return run, nil
}

// readRuns runs one read of stored runs within the database timeout.
// Errors: UNAVAILABLE.
func (r *Reconciler) readRuns(ctx context.Context, read func(ctx context.Context) ([]store.ReconcileRunRow, error)) ([]store.ReconcileRunRow, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	rows, err := read(ctx)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return rows, nil
}

// runsOf turns stored run rows into runs without findings.
func runsOf(rows []store.ReconcileRunRow) []*ReconcileRun {
	var runs []*ReconcileRun
	for _, w := range rows {
		runs = append(runs, &ReconcileRun{ID: w.ID, Trigger: w.Trigger, DryRun: w.DryRun, ActorID: w.ActorID, ActorEmail: w.ActorEmail,
			ShowID: w.ShowID, Status: w.Status, Error: w.Error, ShowsChecked: w.ShowsChecked, FindingsCount: w.FindingsCount,
			Fixed: w.Fixed, StartedAt: w.StartedAt, FinishedAt: w.FinishedAt})
	}
	return runs
}
