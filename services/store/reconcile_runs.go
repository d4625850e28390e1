package store

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// ReconcileRunRow is one stored reconciliation run as reconcile_runs keeps it, with the
// asking admin's email ("" for none). Times UTC.
type ReconcileRunRow struct {
	ID            int64      `db:"id"`
	Trigger       string     `db:"run_trigger"`
	DryRun        bool       `db:"dry_run"`
	ActorID       *int64     `db:"actor_user_id"`
	ActorEmail    string     `db:"actor_email"`
	ShowID        *int64     `db:"scope_show_id"`
	Status        string     `db:"status"`
	Error         string     `db:"error"`
	ShowsChecked  int        `db:"shows_checked"`
	FindingsCount int        `db:"findings_count"`
	Fixed         int        `db:"fixed"`
	StartedAt     time.Time  `db:"started_at"`
	FinishedAt    *time.Time `db:"finished_at"`
}

// ReconcileFinding is one stored finding of a run (the fields of seats.Finding); 0 and "" stand for NULL.
type ReconcileFinding struct {
	Kind    string `db:"kind"`
	ShowID  int64  `db:"show_id"`
	SeatID  int64  `db:"seat_id"`
	OrderNo string `db:"order_no"`
	Action  string `db:"action"`
	Fixed   bool   `db:"fixed"`
	Detail  string `db:"detail"`
}

// ReconcileKindCount is how many findings of one kind a run has.
type ReconcileKindCount struct {
	RunID int64  `db:"run_id"`
	Kind  string `db:"kind"`
	N     int    `db:"n"`
}

const reconcileRunColumns = `r.id, r.run_trigger, r.dry_run, r.actor_user_id, COALESCE(u.email, '') AS actor_email, r.scope_show_id,
	r.status, COALESCE(r.error, '') AS error, r.shows_checked, r.findings_count, r.fixed, r.started_at, r.finished_at
	FROM reconcile_runs r LEFT JOIN users u ON u.id = r.actor_user_id`

// FailStaleReconcileRuns marks failed the runs still running that started before startedBefore.
func FailStaleReconcileRuns(ctx context.Context, q Querier, startedBefore time.Time) error {
	_, err := q.ExecContext(ctx, `UPDATE reconcile_runs SET status = 'failed', error = 'the run did not finish (its process stopped)'
		WHERE status = 'running' AND started_at < ?`, startedBefore)
	return err
}

// InsertReconcileRun stores a new running run and returns its id.
func InsertReconcileRun(ctx context.Context, q Querier, trigger string, dryRun bool, actorID, showID *int64, startedAt time.Time) (int64, error) {
	res, err := q.ExecContext(ctx, `INSERT INTO reconcile_runs (run_trigger, dry_run, actor_user_id, scope_show_id, status, started_at)
		VALUES (?, ?, ?, ?, 'running', ?)`, trigger, dryRun, actorID, showID, startedAt)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// FinishReconcileRun stores the outcome of run id (errText "" stays NULL).
func FinishReconcileRun(ctx context.Context, q Querier, id int64, status, errText string, showsChecked, findingsCount, fixed int, finishedAt time.Time) error {
	_, err := q.ExecContext(ctx, `UPDATE reconcile_runs SET status = ?, error = NULLIF(?, ''), shows_checked = ?, findings_count = ?,
			fixed = ?, finished_at = ? WHERE id = ?`, status, errText, showsChecked, findingsCount, fixed, finishedAt, id)
	return err
}

// InsertReconcileFindings stores the findings of run runID in order, 500 rows a statement.
func InsertReconcileFindings(ctx context.Context, q Querier, runID int64, findings []ReconcileFinding) error {
	for i := 0; i < len(findings); i += 500 {
		chunk := findings[i:min(i+500, len(findings))]
		query := "INSERT INTO reconcile_findings (run_id, kind, show_id, seat_id, order_no, action, fixed, detail) VALUES " +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?), ", len(chunk)), ", ")
		args := make([]any, 0, 8*len(chunk))
		for _, f := range chunk {
			args = append(args, runID, f.Kind, NullID(f.ShowID), NullID(f.SeatID), sql.NullString{String: f.OrderNo, Valid: f.OrderNo != ""},
				f.Action, f.Fixed, f.Detail)
		}
		if _, err := q.ExecContext(ctx, query, args...); err != nil {
			return err
		}
	}
	return nil
}

// FailReconcileRun marks run id failed with errText, finished at finishedAt.
func FailReconcileRun(ctx context.Context, q Querier, id int64, errText string, finishedAt time.Time) error {
	_, err := q.ExecContext(ctx, "UPDATE reconcile_runs SET status = 'failed', error = ?, finished_at = ? WHERE id = ?", errText, finishedAt, id)
	return err
}

// NewestReconcileRuns returns at most limit stored runs, newest first.
func NewestReconcileRuns(ctx context.Context, q Querier, limit int) ([]ReconcileRunRow, error) {
	var rows []ReconcileRunRow
	err := q.SelectContext(ctx, &rows, "SELECT "+reconcileRunColumns+" ORDER BY r.id DESC LIMIT ?", limit)
	return rows, err
}

// ReconcileRunByID returns run id as a list of zero or one rows.
func ReconcileRunByID(ctx context.Context, q Querier, id int64) ([]ReconcileRunRow, error) {
	var rows []ReconcileRunRow
	err := q.SelectContext(ctx, &rows, "SELECT "+reconcileRunColumns+" WHERE r.id = ?", id)
	return rows, err
}

// ReconcileFindingCounts counts the findings of the runs ids per run and kind.
func ReconcileFindingCounts(ctx context.Context, q Querier, ids []int64) ([]ReconcileKindCount, error) {
	query, args, err := sqlx.In("SELECT run_id, kind, COUNT(*) AS n FROM reconcile_findings WHERE run_id IN (?) GROUP BY run_id, kind", ids)
	if err != nil {
		return nil, err
	}
	var counts []ReconcileKindCount
	err = q.SelectContext(ctx, &counts, q.Rebind(query), args...)
	return counts, err
}

// ReconcileFindingsOfRun returns the findings of run id in the order they were found.
func ReconcileFindingsOfRun(ctx context.Context, q Querier, id int64) ([]ReconcileFinding, error) {
	var out []ReconcileFinding
	err := q.SelectContext(ctx, &out, `SELECT kind, COALESCE(show_id, 0) AS show_id, COALESCE(seat_id, 0) AS seat_id,
		COALESCE(order_no, '') AS order_no, action, fixed, detail FROM reconcile_findings WHERE run_id = ? ORDER BY id`, id)
	return out, err
}
