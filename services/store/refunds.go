package store

import (
	"context"
	"errors"
	"time"

	"github.com/jmoiron/sqlx"
)

// ErrRefundRecorded is a refund whose RefundID was recorded before (uq_refunds_refund_id).
var ErrRefundRecorded = errors.New("store: refund already recorded")

// ErrSeatRefunded is a seat refunded before (refund_seats' primary key: at most once per order seat).
var ErrSeatRefunded = errors.New("store: seat already refunded")

// RefundRow is one refund of an order: AmountMinor in minor units of Currency, ActorID
// the staff member who gave it (nil: the buyer's own cancellation or the system), and
// RefundID the stable name the provider's idempotency is keyed on.
type RefundRow struct {
	ID          int64     `db:"id"`
	RefundID    string    `db:"refund_id"`
	OrderID     int64     `db:"order_id"`
	AmountMinor int64     `db:"amount_minor"`
	Currency    string    `db:"currency"`
	Reason      string    `db:"reason"`
	ActorID     *int64    `db:"actor_id"`
	CreatedAt   time.Time `db:"created_at"`
}

// RefundSeatRow is one seat a refund gave back and the money (minor units) it returned for it.
type RefundSeatRow struct {
	RefundID    int64 `db:"refund_id"`
	OrderID     int64 `db:"order_id"`
	SeatID      int64 `db:"seat_id"`
	AmountMinor int64 `db:"amount_minor"`
}

// InsertRefund records refund r (its ID is set) with the seats it gave back (their
// RefundID and OrderID are filled in). Errors: ErrRefundRecorded, ErrSeatRefunded.
func InsertRefund(ctx context.Context, q Querier, r *RefundRow, seats []RefundSeatRow) error {
	res, err := q.ExecContext(ctx, `INSERT INTO refunds (refund_id, order_id, amount_minor, currency, reason, actor_id, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, r.RefundID, r.OrderID, r.AmountMinor, r.Currency, r.Reason, r.ActorID, r.CreatedAt)
	if DuplicateOn(err, "uq_refunds_refund_id") {
		return ErrRefundRecorded
	}
	if err != nil {
		return err
	}
	if r.ID, err = res.LastInsertId(); err != nil {
		return err
	}
	if len(seats) == 0 {
		return nil
	}
	for i := range seats {
		seats[i].RefundID, seats[i].OrderID = r.ID, r.OrderID
	}
	_, err = sqlx.NamedExecContext(ctx, q, `INSERT INTO refund_seats (refund_id, order_id, seat_id, amount_minor)
		VALUES (:refund_id, :order_id, :seat_id, :amount_minor)`, seats)
	if DuplicateOn(err, "PRIMARY") {
		return ErrSeatRefunded
	}
	return err
}

// RefundsOf returns the refunds of order orderID, oldest first.
func RefundsOf(ctx context.Context, q Querier, orderID int64) ([]RefundRow, error) {
	var rows []RefundRow
	err := q.SelectContext(ctx, &rows, `SELECT id, refund_id, order_id, amount_minor, currency, reason, actor_id, created_at
		FROM refunds WHERE order_id = ? ORDER BY id`, orderID)
	return rows, err
}

// RefundedSeatsOf returns the refunded seats of order orderID with the money each returned.
func RefundedSeatsOf(ctx context.Context, q Querier, orderID int64) ([]RefundSeatRow, error) {
	var rows []RefundSeatRow
	err := q.SelectContext(ctx, &rows, `SELECT refund_id, order_id, seat_id, amount_minor FROM refund_seats
		WHERE order_id = ? ORDER BY seat_id`, orderID)
	return rows, err
}
