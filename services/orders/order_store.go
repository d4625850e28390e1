package orders

import (
	"context"

	"seatflow/services"
	"seatflow/services/store"
)

// InsertOrder is InsertOrders for one order: the demo seed and the load test's fixtures
// write their orders through it.
func InsertOrder(ctx context.Context, tx store.Querier, order *services.Order, live bool) error {
	return InsertOrders(ctx, tx, []*services.Order{order}, live, 1)
}

// InsertOrders writes orders and their seats (store.InsertOrders) in tx and sets each
// order's ID. Each seat row is live (it occupies the seat) unless live is false (a seat
// already released: live NULL); the unique key uq_order_seats_live (liveSeatKey)
// refuses a seat another live order occupies with MySQL error 1062 (invariant 1), and
// the caller maps errors. idStep is AutoIncrementStep's answer for the server (0: the
// ids are read back by order number).
func InsertOrders(ctx context.Context, tx store.Querier, orders []*services.Order, live bool, idStep int64) error {
	seats := store.SeatsLive
	if !live {
		seats = store.SeatsReleased
	}
	return store.InsertOrders(ctx, tx, orders, seats, idStep)
}

// AutoIncrementStep returns the idStep for InsertOrders on db's server: its
// @@auto_increment_increment when innodb_autoinc_lock_mode gives a multi-row INSERT
// consecutive ids (0 "traditional", 1 "consecutive"), else 0 (read the ids back).
// Errors: the database's.
func AutoIncrementStep(ctx context.Context, db store.Querier) (int64, error) {
	return store.AutoIncrementStep(ctx, db)
}
