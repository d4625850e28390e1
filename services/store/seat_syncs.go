package store

import (
	"context"
	"time"
)

// SeatSync is a due row of the seat-sync outbox: an order whose seats in the seat
// cache must still be brought in line with its status, and the attempts so far.
type SeatSync struct {
	OrderID  int64 `db:"order_id"`
	Attempts int   `db:"attempts"`
}

// QueueSeatSync records (or renews) the order's row in the seat-sync outbox, first tried at next.
func QueueSeatSync(ctx context.Context, q Querier, orderID int64, lastError string, now, next time.Time) error {
	_, err := q.ExecContext(ctx, `INSERT INTO seat_syncs (order_id, attempts, last_error, created_at, next_attempt_at)
		VALUES (?, 0, ?, ?, ?) ON DUPLICATE KEY UPDATE last_error = VALUES(last_error), next_attempt_at = VALUES(next_attempt_at)`,
		orderID, lastError, now, next)
	return err
}

// DueSeatSyncs returns at most limit outbox rows due at now, the longest due first.
func DueSeatSyncs(ctx context.Context, q Querier, now time.Time, limit int) ([]SeatSync, error) {
	var due []SeatSync
	err := q.SelectContext(ctx, &due, "SELECT order_id, attempts FROM seat_syncs WHERE next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?", now, limit)
	return due, err
}

// DeleteSeatSync deletes the order's outbox row while its attempts are still attempts (no other run counted a failure since).
func DeleteSeatSync(ctx context.Context, q Querier, orderID int64, attempts int) error {
	_, err := q.ExecContext(ctx, "DELETE FROM seat_syncs WHERE order_id = ? AND attempts = ?", orderID, attempts)
	return err
}

// PostponeSeatSync counts a failed attempt of the order's outbox row and tries it again at next.
func PostponeSeatSync(ctx context.Context, q Querier, orderID int64, lastError string, next time.Time) error {
	_, err := q.ExecContext(ctx, "UPDATE seat_syncs SET attempts = attempts + 1, last_error = ?, next_attempt_at = ? WHERE order_id = ?",
		lastError, next, orderID)
	return err
}
