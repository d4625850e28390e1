package store

import "context"

// LoadTestUserOrders is how many orders (any status) one buyer has of a show.
type LoadTestUserOrders struct {
	User int64 `db:"user_id"`
	N    int64 `db:"n"`
}

// LoadTestShowOrdersByUser counts a show's orders (any status) by buyer (walk-ins as 0).
func LoadTestShowOrdersByUser(ctx context.Context, q Querier, showID int64) ([]LoadTestUserOrders, error) {
	var rows []LoadTestUserOrders
	err := q.SelectContext(ctx, &rows, "SELECT COALESCE(user_id, 0) AS user_id, COUNT(*) AS n FROM orders WHERE show_id = ? GROUP BY user_id", showID)
	return rows, err
}
