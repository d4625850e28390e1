package store

import (
	"context"
	"time"

	"seatflow/services"
)

// StaffOrder is an order as its buyer sees it, with the buyer's account.
type StaffOrder struct {
	*services.Order
	UserEmail string `db:"user_email"`
	// SoldByEmail is the counter seller's address ('' online).
	SoldByEmail string `db:"sold_by_email"`
}

// StaffOrderFilter narrows StaffOrderSearch; zero values do not filter. Email is the
// canonical address of the buyer's account; CinemaIDs keeps the orders of those cinemas'
// shows (empty: every cinema); Limit is the most rows returned.
type StaffOrderFilter struct {
	OrderNo   string
	ShowID    int64
	Status    string
	Email     string
	CinemaIDs []int64
	Limit     int
}

// StaffOrderPayment is a payment of an order (OrderNo and ProviderRef left empty) with
// the time its status last changed (UTC).
type StaffOrderPayment struct {
	Payment
	UpdatedAt time.Time `db:"updated_at"`
}

// StaffOrderSearch returns the orders matching f with their buyers' emails (” for a walk-in), newest first, without seats.
func StaffOrderSearch(ctx context.Context, q Querier, f StaffOrderFilter) ([]*StaffOrder, error) {
	query := `SELECT o.id, o.order_no, COALESCE(o.user_id, 0) AS user_id, o.show_id, o.status, o.total_minor, o.currency, o.created_at, o.expires_at,
		o.paid_at, o.cancelled_at, o.cancel_reason, o.voucher_id, o.discount_minor, o.channel, o.sold_by,
		COALESCE(u.email, '') AS user_email, COALESCE(sb.email, '') AS sold_by_email
		FROM orders o LEFT JOIN users u ON u.id = o.user_id LEFT JOIN users sb ON sb.id = o.sold_by WHERE 1 = 1`
	var args []any
	if f.OrderNo != "" {
		query += " AND o.order_no = ?"
		args = append(args, f.OrderNo)
	}
	if f.ShowID > 0 {
		query += " AND o.show_id = ?"
		args = append(args, f.ShowID)
	}
	if f.Status != "" {
		query += " AND o.status = ?"
		args = append(args, f.Status)
	}
	if f.Email != "" {
		query += " AND u.email = ?"
		args = append(args, f.Email)
	}
	in, inArgs := showOfCinemasClause("o.show_id", f.CinemaIDs)
	query += in
	args = append(args, inArgs...)
	query += " ORDER BY o.created_at DESC, o.id DESC LIMIT ?"
	args = append(args, f.Limit)
	var rows []*StaffOrder
	if err := q.SelectContext(ctx, &rows, query, args...); err != nil {
		return nil, err
	}
	return rows, nil
}

// StaffOrderPayments returns the payments of order orderID, oldest first.
func StaffOrderPayments(ctx context.Context, q Querier, orderID int64) ([]StaffOrderPayment, error) {
	var out []StaffOrderPayment
	err := q.SelectContext(ctx, &out, `SELECT id, payment_id, order_id, provider, amount_minor, refunded_minor, currency, status,
		created_at, updated_at FROM payments WHERE order_id = ? ORDER BY id`, orderID)
	return out, err
}
