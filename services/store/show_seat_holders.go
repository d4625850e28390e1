package store

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// ShowSeatHolder is who holds a seat of a show: a live seat's order (number, status)
// and buyer's email, or a house seat (Status the caller's house state, the rest empty).
type ShowSeatHolder struct {
	SeatID  int64  `db:"seat_id"`
	OrderNo string `db:"order_no"`
	Status  string `db:"status"`
	Email   string `db:"email"`
}

// ShowSeatHolders returns the live seats of show showID with their orders and buyers (” for a walk-in), then its house seats with Status houseState.
func ShowSeatHolders(ctx context.Context, q Querier, showID int64, houseState string) ([]ShowSeatHolder, error) {
	var rows []ShowSeatHolder
	err := q.SelectContext(ctx, &rows, `SELECT os.seat_id, o.order_no, o.status, COALESCE(u.email, '') AS email
		FROM order_seats os JOIN orders o ON o.id = os.order_id LEFT JOIN users u ON u.id = o.user_id
		WHERE os.show_id = ? AND os.live = 1
		UNION ALL SELECT h.seat_id, '', ?, '' FROM show_house_seats h WHERE h.show_id = ?`, showID, houseState, showID)
	return rows, err
}

// SeatHolderOrders returns the status and buyer's email of the orders orderNos (not empty) that exist.
func SeatHolderOrders(ctx context.Context, q Querier, orderNos []string) ([]ShowSeatHolder, error) {
	query, args, err := sqlx.In(`SELECT o.order_no, o.status, COALESCE(u.email, '') AS email FROM orders o LEFT JOIN users u ON u.id = o.user_id
		WHERE o.order_no IN (?)`, orderNos)
	if err != nil {
		return nil, err
	}
	var found []ShowSeatHolder
	err = q.SelectContext(ctx, &found, q.Rebind(query), args...)
	return found, err
}
