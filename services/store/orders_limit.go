package store

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// LockOrderBuyers locks the user rows of buyers (at least one, sorted, each once) for update, in id order.
func LockOrderBuyers(ctx context.Context, q Querier, buyers []int64) error {
	query, args, err := sqlx.In("SELECT id FROM users WHERE id IN (?) ORDER BY id FOR UPDATE", buyers)
	if err != nil {
		return err
	}
	var locked []int64
	return q.SelectContext(ctx, &locked, q.Rebind(query), args...)
}

// BuyerLiveSeats is how many live seats of a show one buyer's orders occupy.
type BuyerLiveSeats struct {
	ShowID int64 `db:"show_id"`
	UserID int64 `db:"user_id"`
	Live   int   `db:"live"`
}

// LiveSeatsOfBuyers counts the live seats of the buyers (show id → user ids) in each show, per show and buyer.
func LiveSeatsOfBuyers(ctx context.Context, q Querier, buyers map[int64][]int64) ([]BuyerLiveSeats, error) {
	where, args := showAndIDs("o.show_id", "o.user_id", buyers)
	var rows []BuyerLiveSeats
	err := q.SelectContext(ctx, &rows, `SELECT o.show_id, o.user_id, COUNT(*) AS live FROM orders o
		JOIN order_seats os ON os.order_id = o.id AND os.live = 1 WHERE `+where+` GROUP BY o.show_id, o.user_id`, args...)
	return rows, err
}
