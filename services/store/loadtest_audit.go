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
