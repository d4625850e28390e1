package store

import (
	"context"
	"time"
)

// Payment is one attempt to pay an order with a provider. AmountMinor is in minor units
// of Currency; Status is started, approved, declined or refunded; OrderNo is the paid
// order's number (filled in where the read joins the order, else by the caller);
// ProviderRef is the provider's own name of the money (Stripe's PaymentIntent id), set
// when a webhook approves it, else "".
type Payment struct {
	ID          int64  `db:"id"`
	PaymentID   string `db:"payment_id"`
	OrderID     int64  `db:"order_id"`
	Provider    string `db:"provider"`
	AmountMinor int64  `db:"amount_minor"`
	// RefundedMinor is how much of AmountMinor went back (partial refunds add to it; a
	// refunded payment's is all of it).
	RefundedMinor int64     `db:"refunded_minor"`
	Currency      string    `db:"currency"`
	Status        string    `db:"status"`
	ProviderRef   string    `db:"provider_ref"`
	CreatedAt     time.Time `db:"created_at"`
	OrderNo       string    `db:"order_no"`
}

// InsertPayment stores pay as a started payment created at now and returns its id.
func InsertPayment(ctx context.Context, q Querier, pay *Payment, now time.Time) (int64, error) {
	res, err := q.ExecContext(ctx, `INSERT INTO payments (payment_id, order_id, provider, amount_minor, currency, status, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, 'started', ?, ?)`, pay.PaymentID, pay.OrderID, pay.Provider, pay.AmountMinor, pay.Currency, now, now)
	if err != nil {
		return 0, err
	}
	id, _ := res.LastInsertId()
	return id, nil
}

// PaymentByPaymentID returns the payment paymentID with its order's number (sql.ErrNoRows when none).
func PaymentByPaymentID(ctx context.Context, q Querier, paymentID string) (*Payment, error) {
	pay := &Payment{}
	err := q.GetContext(ctx, pay, `SELECT p.id, p.payment_id, p.order_id, p.provider, p.amount_minor, p.refunded_minor, p.currency, p.status,
		p.provider_ref, p.created_at, o.order_no FROM payments p JOIN orders o ON o.id = p.order_id WHERE p.payment_id = ?`, paymentID)
	return pay, err
}

// LatestStartedPayment returns the newest started payment of order orderID with provider for amount minor units created after since, with the order's number (sql.ErrNoRows when none).
func LatestStartedPayment(ctx context.Context, q Querier, orderID int64, provider string, amount int64, since time.Time) (*Payment, error) {
	pay := &Payment{}
	err := q.GetContext(ctx, pay, `SELECT p.id, p.payment_id, p.order_id, p.provider, p.amount_minor, p.refunded_minor, p.currency, p.status,
		p.provider_ref, p.created_at, o.order_no FROM payments p JOIN orders o ON o.id = p.order_id
		WHERE p.order_id = ? AND p.provider = ? AND p.amount_minor = ? AND p.status = 'started' AND p.created_at > ?
		ORDER BY p.id DESC LIMIT 1`, orderID, provider, amount, since)
	return pay, err
}

// SetPaymentProviderRef records ref as payment id's provider reference (a non-empty one is kept).
func SetPaymentProviderRef(ctx context.Context, q Querier, id int64, ref string) error {
	_, err := q.ExecContext(ctx, "UPDATE payments SET provider_ref = ? WHERE id = ? AND provider_ref = ''", ref, id)
	return err
}

// SetPaymentStatus moves payment id from status from to status to at now, if it still has status from.
func SetPaymentStatus(ctx context.Context, q Querier, id int64, from, to string, now time.Time) error {
	_, err := q.ExecContext(ctx, "UPDATE payments SET status = ?, updated_at = ? WHERE id = ? AND status = ?", to, now, id, from)
	return err
}

// ApprovePayment marks payment id approved at now unless it was decided before (approved or refunded) and reports whether it changed.
func ApprovePayment(ctx context.Context, q Querier, id int64, now time.Time) (bool, error) {
	res, err := q.ExecContext(ctx, "UPDATE payments SET status = 'approved', updated_at = ? WHERE id = ? AND status IN ('started', 'declined')", now, id)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// RefundPayment marks payment id refunded whole at now, whatever its status.
func RefundPayment(ctx context.Context, q Querier, id int64, now time.Time) error {
	_, err := q.ExecContext(ctx, "UPDATE payments SET status = 'refunded', refunded_minor = amount_minor, updated_at = ? WHERE id = ?", now, id)
	return err
}

// LockApprovedPayments returns the approved payments of order orderID, locked for update (OrderNo left empty).
func LockApprovedPayments(ctx context.Context, q Querier, orderID int64) ([]*Payment, error) {
	var pays []*Payment
	err := q.SelectContext(ctx, &pays, `SELECT id, payment_id, order_id, provider, amount_minor, refunded_minor, currency, status, provider_ref,
		created_at FROM payments WHERE order_id = ? AND status = 'approved' ORDER BY id FOR UPDATE`, orderID)
	return pays, err
}

// RefundApprovedPayments marks every approved payment of order orderID refunded whole at now.
func RefundApprovedPayments(ctx context.Context, q Querier, orderID int64, now time.Time) error {
	_, err := q.ExecContext(ctx, "UPDATE payments SET status = 'refunded', refunded_minor = amount_minor, updated_at = ? WHERE order_id = ? AND status = 'approved'",
		now, orderID)
	return err
}
