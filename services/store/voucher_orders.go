package store

import (
	"context"
	"time"
)

// VoucherOrder is one live order that used a voucher, as voucher_uses and orders hold
// it: its seats the voucher discounted (labels), the saving on them and the order's
// total (minor units), its show (movie title, start UTC) and status.
type VoucherOrder struct {
	OrderNo       string    `db:"order_no"`
	ShowID        int64     `db:"show_id"`
	Movie         string    `db:"movie"`
	StartsAt      time.Time `db:"starts_at"`
	Status        string    `db:"status"`
	Seats         string    `db:"seats"` // labels, comma-separated
	SeatCount     int64     `db:"seat_count"`
	DiscountMinor int64     `db:"discount_minor"`
	TotalMinor    int64     `db:"total_minor"`
	Currency      string    `db:"currency"`
}

// VoucherTotals sums a voucher's live orders: how many, their seats it discounted, the
// saving on them and the orders' totals (the revenue), in minor units.
type VoucherTotals struct {
	Orders        int64 `db:"orders"`
	Seats         int64 `db:"seats"`
	DiscountMinor int64 `db:"discount_minor"`
	RevenueMinor  int64 `db:"revenue_minor"`
}

// VoucherOrders lists the live orders that used voucher id, newest first, at most limit.
func VoucherOrders(ctx context.Context, q Querier, voucherID int64, limit int) ([]*VoucherOrder, error) {
	var out []*VoucherOrder
	err := q.SelectContext(ctx, &out, `SELECT o.order_no, o.show_id, m.title AS movie, sh.starts_at, o.status,
		GROUP_CONCAT(s.label ORDER BY s.row_no, s.col_no SEPARATOR ', ') AS seats, COUNT(*) AS seat_count,
		SUM(u.discount_minor) AS discount_minor, o.total_minor, o.currency
		FROM voucher_uses u JOIN orders o ON o.id = u.order_id JOIN seats s ON s.id = u.seat_id
		JOIN shows sh ON sh.id = o.show_id JOIN movies m ON m.id = sh.movie_id
		WHERE u.voucher_id = ? GROUP BY o.id ORDER BY o.id DESC LIMIT ?`, voucherID, limit)
	return out, err
}

// VoucherTotalsOf sums the live orders that used voucher id.
func VoucherTotalsOf(ctx context.Context, q Querier, voucherID int64) (VoucherTotals, error) {
	var t VoucherTotals
	err := q.GetContext(ctx, &t, `SELECT COUNT(*) AS orders, COALESCE(SUM(x.seats), 0) AS seats,
		COALESCE(SUM(x.discount), 0) AS discount_minor, COALESCE(SUM(o.total_minor), 0) AS revenue_minor
		FROM (SELECT order_id, COUNT(*) AS seats, SUM(discount_minor) AS discount FROM voucher_uses
		WHERE voucher_id = ? GROUP BY order_id) x JOIN orders o ON o.id = x.order_id`, voucherID)
	return t, err
}
