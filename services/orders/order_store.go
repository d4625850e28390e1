package orders

import (
	"context"
	"strings"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
)

// InsertOrder is the one INSERT of an order: it writes order (OrderNo, UserID, ShowID,
// Status, TotalMinor in minor units, Currency, CreatedAt, ExpiresAt and PaidAt, times
// in UTC) and its Seats in tx, and sets order.ID. Each seat row is live (it occupies the
// seat) unless live is false (a seat already released: live NULL). The unique key
// uq_order_seats_live (liveSeatKey) refuses a seat another live order occupies with
// MySQL error 1062 (invariant 1); the caller maps errors. The order service, the demo
// seed and the load test's fixtures all write orders through it.
func InsertOrder(ctx context.Context, tx sqlx.ExecerContext, order *services.Order, live bool) error {
	res, err := tx.ExecContext(ctx, `INSERT INTO orders (order_no, user_id, show_id, status, total_minor, currency, created_at, expires_at, paid_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, order.OrderNo, order.UserID, order.ShowID, order.Status, order.TotalMinor,
		order.Currency, order.CreatedAt, order.ExpiresAt, order.PaidAt)
	if err != nil {
		return err
	}
	if order.ID, err = res.LastInsertId(); err != nil {
		return err
	}
	if len(order.Seats) == 0 {
		return nil
	}
	var liveVal any = 1
	if !live {
		liveVal = nil
	}
	args := make([]any, 0, 6*len(order.Seats))
	for _, s := range order.Seats {
		args = append(args, order.ID, order.ShowID, s.SeatID, s.ZoneCode, s.PriceMinor, liveVal)
	}
	q := "INSERT INTO order_seats (order_id, show_id, seat_id, zone_code, price_minor, live) VALUES " +
		strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?), ", len(order.Seats)), ", ")
	_, err = tx.ExecContext(ctx, q, args...)
	return err
}
