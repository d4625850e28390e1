package store

import "context"

// LoadTestLiveSeatCount counts a show's live order seats whose orders are pending or paid.
func LoadTestLiveSeatCount(ctx context.Context, q Querier, showID int64) (int64, error) {
	var n int64
	err := q.GetContext(ctx, &n, `SELECT COUNT(*) FROM order_seats os JOIN orders o ON o.id = os.order_id
		WHERE os.show_id = ? AND os.live = 1 AND o.status IN ('pending','paid')`, showID)
	return n, err
}

// LoadTestLiveOrderCount counts a show's pending and paid orders.
func LoadTestLiveOrderCount(ctx context.Context, q Querier, showID int64) (int64, error) {
	var n int64
	err := q.GetContext(ctx, &n, `SELECT COUNT(*) FROM orders WHERE show_id = ? AND status IN ('pending','paid')`, showID)
	return n, err
}

// LoadTestDeadSeatCount counts a show's live order seats whose orders are neither pending nor paid.
func LoadTestDeadSeatCount(ctx context.Context, q Querier, showID int64) (int64, error) {
	var n int64
	err := q.GetContext(ctx, &n, `SELECT COUNT(*) FROM order_seats os JOIN orders o ON o.id = os.order_id
			WHERE os.show_id = ? AND os.live = 1 AND o.status NOT IN ('pending','paid')`, showID)
	return n, err
}

// LoadTestUsersOverLimit counts the buyers with more live seats of pending or paid orders of a show than its purchase limit.
func LoadTestUsersOverLimit(ctx context.Context, q Querier, showID int64) (int64, error) {
	var n int64
	err := q.GetContext(ctx, &n, `SELECT COUNT(*) FROM (SELECT o.user_id FROM order_seats os JOIN orders o ON o.id = os.order_id
		JOIN shows s ON s.id = os.show_id WHERE os.show_id = ? AND os.live = 1 AND o.status IN ('pending','paid')
		GROUP BY o.user_id, s.purchase_limit HAVING COUNT(*) > s.purchase_limit) x`, showID)
	return n, err
}

// LoadTestVoucherFigures is what LoadTestVoucherAudit counts.
type LoadTestVoucherFigures struct {
	Uses      int64 // vouchers.uses
	Rows      int64 // voucher_uses rows of the show
	Child     int64 // live seats typed other than adult
	Mispriced int64 // live seats whose price is not their type's zone price less percentOff %
}

// LoadTestVoucherAudit counts a voucher's uses and a show's live seats as the load test's
// typed sale checks them: every live seat (of a pending or paid order) must have been
// discounted percentOff % (rounded down) from its ticket type's price in its zone, adult
// at show_prices, the others at show_ticket_prices.
func LoadTestVoucherAudit(ctx context.Context, q Querier, showID, voucherID int64, percentOff int) (LoadTestVoucherFigures, error) {
	var f LoadTestVoucherFigures
	if err := q.GetContext(ctx, &f.Uses, "SELECT uses FROM vouchers WHERE id = ?", voucherID); err != nil {
		return f, err
	}
	if err := q.GetContext(ctx, &f.Rows, "SELECT COUNT(*) FROM voucher_uses WHERE voucher_id = ? AND show_id = ?", voucherID, showID); err != nil {
		return f, err
	}
	err := q.QueryRowxContext(ctx, `SELECT COALESCE(SUM(os.ticket_type <> 'adult'), 0),
		COALESCE(SUM(lp.price_minor IS NULL OR os.discount_minor IS NULL OR os.price_minor + os.discount_minor <> lp.price_minor
			OR os.price_minor <> FLOOR(lp.price_minor * (100 - ?) / 100)), 0)
		FROM order_seats os JOIN orders o ON o.id = os.order_id JOIN seats st ON st.id = os.seat_id
		LEFT JOIN (SELECT zone_id, 'adult' AS type_code, price_minor FROM show_prices WHERE show_id = ?
			UNION ALL SELECT zone_id, type_code, price_minor FROM show_ticket_prices WHERE show_id = ?) lp
			ON lp.zone_id = st.zone_id AND lp.type_code = os.ticket_type
		WHERE os.show_id = ? AND os.live = 1 AND o.status IN ('pending','paid')`, percentOff, showID, showID, showID).Scan(&f.Child, &f.Mispriced)
	return f, err
}
