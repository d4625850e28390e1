package store

import "context"

// LockShowStatus returns the status of show id, locking its row for update (sql.ErrNoRows when none).
func LockShowStatus(ctx context.Context, q Querier, id int64) (string, error) {
	var status string
	err := q.GetContext(ctx, &status, "SELECT status FROM shows WHERE id = ? FOR UPDATE", id)
	return status, err
}

// MarkShowCancelled sets show id's status to cancelled unless it already is and reports whether it changed.
func MarkShowCancelled(ctx context.Context, q Querier, id int64) (bool, error) {
	res, err := q.ExecContext(ctx, "UPDATE shows SET status = 'cancelled' WHERE id = ? AND status <> 'cancelled'", id)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// LiveOrderNosOfShow returns the numbers of show showID's pending and paid orders, oldest first.
func LiveOrderNosOfShow(ctx context.Context, q Querier, showID int64) ([]string, error) {
	var nos []string
	err := q.SelectContext(ctx, &nos, "SELECT order_no FROM orders WHERE show_id = ? AND status IN ('pending', 'paid') ORDER BY id", showID)
	return nos, err
}
