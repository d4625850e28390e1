package reconcile

import (
	"context"
	"database/sql"
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
	if _, err := r.db.ExecContext(ctx, `UPDATE reconcile_runs SET status = 'failed', error = 'the run did not finish (its process stopped)'
		WHERE status = 'running' AND started_at < ?`, run.StartedAt.Add(-staleRunAfter)); err != nil {
		return store.Unavailable("the database", err)
	}
	run.Status = RunRunning
	res, err := r.db.ExecContext(ctx, `INSERT INTO reconcile_runs (run_trigger, dry_run, actor_user_id, scope_show_id, status, started_at)
		VALUES (?, ?, ?, ?, 'running', ?)`, run.Trigger, run.DryRun, run.ActorID, run.ShowID, run.StartedAt)
	if err != nil {
		return store.Unavailable("the database", err)
	}
	run.ID, err = res.LastInsertId()
	return err
}

// finishRun stores the run's outcome and findings in one transaction.
func (r *Reconciler) finishRun(ctx context.Context, run *ReconcileRun) error {
	now := r.clock.Now()
	run.FinishedAt = &now
	run.FindingsCount = len(run.Findings)
	msg := validText(run.Error, 500)
	ctx, cancel := context.WithTimeout(ctx, 4*store.DBTimeout)
	defer cancel()
	err := store.InTx(ctx, r.db, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE reconcile_runs SET status = ?, error = NULLIF(?, ''), shows_checked = ?, findings_count = ?,
			fixed = ?, finished_at = ? WHERE id = ?`, run.Status, msg, run.ShowsChecked, run.FindingsCount, run.Fixed, now, run.ID); err != nil {
			return err
		}
		for i := 0; i < len(run.Findings); i += 500 {
			chunk := run.Findings[i:min(i+500, len(run.Findings))]
			q := "INSERT INTO reconcile_findings (run_id, kind, show_id, seat_id, order_no, action, fixed, detail) VALUES " +
				strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?), ", len(chunk)), ", ")
			args := make([]any, 0, 8*len(chunk))
			for _, f := range chunk {
				args = append(args, run.ID, f.Kind, store.NullID(f.ShowID), store.NullID(f.SeatID), sql.NullString{String: f.OrderNo, Valid: f.OrderNo != ""},
					f.Action, f.Fixed, f.Detail)
			}
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		// keep at least the outcome, so the run does not read "running" for ever
		run.Status, run.Error = RunFailed, validText("its findings could not be stored: "+err.Error(), 500)
		_, _ = r.db.ExecContext(ctx, "UPDATE reconcile_runs SET status = 'failed', error = ?, finished_at = ? WHERE id = ?", run.Error, now, run.ID)
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

const runColumns = `r.id, r.run_trigger, r.dry_run, r.actor_user_id, COALESCE(u.email, '') AS actor_email, r.scope_show_id,
	r.status, COALESCE(r.error, '') AS error, r.shows_checked, r.findings_count, r.fixed, r.started_at, r.finished_at
	FROM reconcile_runs r LEFT JOIN users u ON u.id = r.actor_user_id`

// Runs lists stored runs newest first, at most limit (1..500), without findings.
// Errors: UNAVAILABLE.
func (r *Reconciler) Runs(ctx context.Context, limit int) ([]*ReconcileRun, error) {
	if limit < 1 || limit > 500 {
		limit = 100
	}
	var runs []*ReconcileRun
	if err := r.selectDB(ctx, &runs, "SELECT "+runColumns+" ORDER BY r.id DESC LIMIT ?", limit); err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return runs, nil
	}
	byID := make(map[int64]*ReconcileRun, len(runs))
	ids := make([]int64, len(runs))
	for i, run := range runs {
		run.kinds = map[string]int{}
		byID[run.ID], ids[i] = run, run.ID
	}
	q, args, err := sqlx.In("SELECT run_id, kind, COUNT(*) AS n FROM reconcile_findings WHERE run_id IN (?) GROUP BY run_id, kind", ids)
	if err != nil {
		return nil, err
	}
	var counts []struct {
		RunID int64  `db:"run_id"`
		Kind  string `db:"kind"`
		N     int    `db:"n"`
	}
	if err := r.selectDB(ctx, &counts, r.db.Rebind(q), args...); err != nil {
		return nil, err
	}
	for _, c := range counts {
		byID[c.RunID].kinds[c.Kind] = c.N
	}
	return runs, nil
}

// RunReport returns one stored run with its findings in the order they were found.
// Errors: NOT_FOUND, UNAVAILABLE.
func (r *Reconciler) RunReport(ctx context.Context, id int64) (*ReconcileRun, error) {
	var runs []*ReconcileRun
	if err := r.selectDB(ctx, &runs, "SELECT "+runColumns+" WHERE r.id = ?", id); err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, services.Errorf(services.CodeNotFound, "reconciliation run %d not found", id)
	}
	run := runs[0]
	if err := r.selectDB(ctx, &run.Findings, `SELECT kind, COALESCE(show_id, 0) AS show_id, COALESCE(seat_id, 0) AS seat_id,
		COALESCE(order_no, '') AS order_no, action, fixed, detail FROM reconcile_findings WHERE run_id = ? ORDER BY id`, id); err != nil {
		return nil, err
	}
	return run, nil
}
