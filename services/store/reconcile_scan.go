package store

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"
)

// ReconcileOrder is an order a reconciliation sweep found: its number and show, and its
// payment deadline where the sweep reads it.
type ReconcileOrder struct {
	No        string    `db:"order_no"`
	ShowID    int64     `db:"show_id"`
	ExpiresAt time.Time `db:"expires_at"`
}

// ReconcileOverdueOrders returns up to limit pending orders whose deadline is at or before dueBy, of show showID (0: every show), earliest deadline first.
func ReconcileOverdueOrders(ctx context.Context, q Querier, dueBy time.Time, showID int64, limit int) ([]ReconcileOrder, error) {
	query := "SELECT order_no, show_id FROM orders WHERE status = 'pending' AND expires_at <= ?"
	args := []any{dueBy}
	if showID != 0 {
		query += " AND show_id = ?"
		args = append(args, showID)
	}
	var due []ReconcileOrder
	err := q.SelectContext(ctx, &due, query+" ORDER BY expires_at LIMIT ?", append(args, limit)...)
	return due, err
}

// ReconcilePendingOfCancelledShows returns up to limit pending orders of cancelled shows (only of show showID unless 0).
func ReconcilePendingOfCancelledShows(ctx context.Context, q Querier, showID int64, limit int) ([]ReconcileOrder, error) {
	query := `SELECT o.order_no, o.show_id FROM orders o JOIN shows s ON s.id = o.show_id
		WHERE o.status = 'pending' AND s.status = 'cancelled'`
	var args []any
	if showID != 0 {
		query += " AND o.show_id = ?"
		args = append(args, showID)
	}
	var left []ReconcileOrder
	err := q.SelectContext(ctx, &left, query+" LIMIT ?", append(args, limit)...)
	return left, err
}

// ReconcileCandidateShows returns the ids of the shows on sale at now and of the shows with pending orders, those with the latest pending order first, then by id.
func ReconcileCandidateShows(ctx context.Context, q Querier, now time.Time) ([]int64, error) {
	var ids []int64
	err := q.SelectContext(ctx, &ids, `SELECT id FROM (
			SELECT show_id AS id, MAX(created_at) AS busy FROM orders WHERE status = 'pending' GROUP BY show_id
			UNION ALL SELECT id, NULL FROM shows WHERE status NOT IN ('draft', 'cancelled') AND sale_opens_at <= ? AND sale_closes_at > ?
		) c GROUP BY id ORDER BY MAX(busy) IS NULL, MAX(busy) DESC, id`, now, now)
	return ids, err
}

// ShowHasLiveSeats reports whether any order seat of show showID is live.
func ShowHasLiveSeats(ctx context.Context, q Querier, showID int64) (bool, error) {
	var live bool
	err := q.GetContext(ctx, &live, "SELECT EXISTS (SELECT 1 FROM order_seats WHERE show_id = ? AND live = 1)", showID)
	return live, err
}

// LiveOrderNosAmong returns those of the order numbers nos (not empty) whose orders are pending or paid.
func LiveOrderNosAmong(ctx context.Context, q Querier, nos []string) ([]string, error) {
	query, args, err := sqlx.In("SELECT order_no FROM orders WHERE order_no IN (?) AND status IN ('pending', 'paid')", nos)
	if err != nil {
		return nil, err
	}
	var live []string
	err = q.SelectContext(ctx, &live, q.Rebind(query), args...)
	return live, err
}

// ReconcilePendingForExpiryTasks returns up to limit pending orders due after dueAfter and created at or before createdBy (only of show showID unless 0), earliest deadline first.
func ReconcilePendingForExpiryTasks(ctx context.Context, q Querier, dueAfter, createdBy time.Time, showID int64, limit int) ([]ReconcileOrder, error) {
	query := "SELECT order_no, show_id, expires_at FROM orders WHERE status = 'pending' AND expires_at > ? AND created_at <= ?"
	args := []any{dueAfter, createdBy}
	if showID != 0 {
		query += " AND show_id = ?"
		args = append(args, showID)
	}
	var pending []ReconcileOrder
	err := q.SelectContext(ctx, &pending, query+" ORDER BY expires_at LIMIT ?", append(args, limit)...)
	return pending, err
}

// OrderStatusesAmong returns the status of each of the order numbers nos (not empty) that MySQL has.
func OrderStatusesAmong(ctx context.Context, q Querier, nos []string) (map[string]string, error) {
	query, args, err := sqlx.In("SELECT order_no, status FROM orders WHERE order_no IN (?)", nos)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		No     string `db:"order_no"`
		Status string `db:"status"`
	}
	if err := q.SelectContext(ctx, &rows, q.Rebind(query), args...); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.No] = r.Status
	}
	return out, nil
}
