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

// LockOrderStatus reads order orderID's status locked for update (sql.ErrNoRows when none): refunds of one order take it first, so they run one after another.
func LockOrderStatus(ctx context.Context, q Querier, orderID int64) (string, error) {
	var status string
	err := q.GetContext(ctx, &status, "SELECT status FROM orders WHERE id = ? FOR UPDATE", orderID)
	return status, err
}

// RefundPaymentPart gives amount minor units of payment id back at now (refunded_minor rises; the payment is refunded once none is left).
func RefundPaymentPart(ctx context.Context, q Querier, id, amount int64, now time.Time) error {
	_, err := q.ExecContext(ctx, `UPDATE payments SET status = IF(refunded_minor + ? >= amount_minor, 'refunded', status),
		refunded_minor = refunded_minor + ?, updated_at = ? WHERE id = ?`, amount, amount, now, id)
	return err
}

// RefundSummary is one refund of an order as staff see it: the money, when (UTC), who
// (ActorEmail "" for the buyer or the system), why, and the labels of the seats it gave back.
type RefundSummary struct {
	RefundRow
	ActorEmail string `db:"actor_email"`
	Seats      string `db:"seats"`
}

// RefundSummariesOf returns the refunds of order orderID, oldest first, with who gave them and their seats' labels (comma separated).
func RefundSummariesOf(ctx context.Context, q Querier, orderID int64) ([]RefundSummary, error) {
	var rows []RefundSummary
	err := q.SelectContext(ctx, &rows, `SELECT r.id, r.refund_id, r.order_id, r.amount_minor, r.currency, r.reason, r.actor_id, r.created_at,
		COALESCE(u.email, '') AS actor_email,
		COALESCE((SELECT GROUP_CONCAT(s.label ORDER BY s.row_no, s.col_no SEPARATOR ', ') FROM refund_seats rs JOIN seats s ON s.id = rs.seat_id
			WHERE rs.refund_id = r.id), '') AS seats
		FROM refunds r LEFT JOIN users u ON u.id = r.actor_id WHERE r.order_id = ? ORDER BY r.id`, orderID)
	return rows, err
}

// MoneyMismatch is an order whose money does not add up (DESIGN.md "money adds up"):
// KeptMinor is what its payments' providers keep (captured less refunded), SeatsMinor
// the prices of its live seats while it is paid (0 otherwise).
type MoneyMismatch struct {
	OrderNo    string `db:"order_no"`
	Status     string `db:"status"`
	KeptMinor  int64  `db:"kept_minor"`
	SeatsMinor int64  `db:"seats_minor"`
}

// MoneyMismatches returns up to 1000 orders of show showID that some provider took money for (an approved or refunded payment) whose kept money differs from their paid seats' prices, read in one statement (one snapshot).
func MoneyMismatches(ctx context.Context, q Querier, showID int64) ([]MoneyMismatch, error) {
	var rows []MoneyMismatch
	err := q.SelectContext(ctx, &rows, `SELECT order_no, status, kept_minor, seats_minor FROM (
		SELECT o.order_no, o.status,
			(SELECT COALESCE(SUM(p.amount_minor - p.refunded_minor), 0) FROM payments p
				WHERE p.order_id = o.id AND p.status IN ('approved', 'refunded')) AS kept_minor,
			IF(o.status = 'paid', (SELECT COALESCE(SUM(os.price_minor), 0) FROM order_seats os
				WHERE os.order_id = o.id AND os.live = 1), 0) AS seats_minor
		FROM orders o WHERE o.show_id = ?
			AND EXISTS (SELECT 1 FROM payments p WHERE p.order_id = o.id AND p.status IN ('approved', 'refunded'))) m
		WHERE kept_minor <> seats_minor ORDER BY order_no LIMIT 1000`, showID)
	return rows, err
}
