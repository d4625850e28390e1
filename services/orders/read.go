package orders

import (
	"context"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/store"
)

const orderColumns = `id, order_no, user_id, show_id, status, total_minor, currency, created_at, expires_at,
	paid_at, cancelled_at, cancel_reason`

// orderByID reads an order with its seats. Errors: NOT_FOUND, UNAVAILABLE.
func (o *Orders) orderByID(ctx context.Context, id int64) (*services.Order, error) {
	return o.readOne(ctx, "SELECT "+orderColumns+" FROM orders WHERE id = ?", id)
}

func (o *Orders) readOne(ctx context.Context, q string, args ...any) (*services.Order, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	order := &services.Order{}
	if err := o.db.GetContext(ctx, order, q, args...); err != nil {
		if store.IsNoRows(err) {
			return nil, services.Errorf(services.CodeNotFound, "order not found")
		}
		return nil, store.Unavailable("the database", err)
	}
	if err := o.AttachSeats(ctx, []*services.Order{order}); err != nil {
		return nil, err
	}
	if err := o.AttachEnds(ctx, []*services.Order{order}); err != nil {
		return nil, err
	}
	return order, nil
}

// AttachSeats reads the seats of orders in one query (End is set by AttachEnds, which
// readOne and List call too).
func (o *Orders) AttachSeats(ctx context.Context, orders []*services.Order) error {
	if len(orders) == 0 {
		return nil
	}
	ids := make([]int64, len(orders))
	byID := make(map[int64]*services.Order, len(orders))
	for i, ord := range orders {
		ids[i] = ord.ID
		byID[ord.ID] = ord
		ord.Seats = nil
	}
	q, args, err := sqlx.In(`SELECT os.order_id, os.seat_id, s.label, os.zone_code, os.price_minor
		FROM order_seats os JOIN seats s ON s.id = os.seat_id WHERE os.order_id IN (?) ORDER BY s.row_no, s.col_no`, ids)
	if err != nil {
		return err
	}
	var rows []struct {
		OrderID int64 `db:"order_id"`
		services.OrderSeat
	}
	if err := o.db.SelectContext(ctx, &rows, o.db.Rebind(q), args...); err != nil {
		return store.Unavailable("the database", err)
	}
	for _, r := range rows {
		byID[r.OrderID].Seats = append(byID[r.OrderID].Seats, r.OrderSeat)
	}
	return nil
}

// Get returns the order with that number if it belongs to userID. A pending order past
// its deadline is expired first, so a buyer never sees a stale "pending".
// Errors: NOT_FOUND (unknown, or another user's order), UNAVAILABLE.
func (o *Orders) Get(ctx context.Context, userID int64, orderNo string) (*services.Order, error) {
	order, err := o.ByNo(ctx, orderNo)
	if err != nil {
		return nil, err
	}
	if order.UserID != userID {
		return nil, services.Errorf(services.CodeNotFound, "order not found")
	}
	if order.Status == services.OrderPending && !o.clock.Now().Before(order.ExpiresAt) {
		if _, err := o.Expire(ctx, orderNo); err != nil {
			return nil, err
		}
		return o.ByNo(ctx, orderNo)
	}
	return order, nil
}

// ByNo returns any user's order by number (staff views, tests).
// Errors: NOT_FOUND, UNAVAILABLE.
func (o *Orders) ByNo(ctx context.Context, orderNo string) (*services.Order, error) {
	if len(orderNo) == 0 || len(orderNo) > 32 {
		return nil, services.Errorf(services.CodeNotFound, "order not found")
	}
	return o.readOne(ctx, "SELECT "+orderColumns+" FROM orders WHERE order_no = ?", orderNo)
}

// List returns the user's orders, newest first, at most limit (1..200).
func (o *Orders) List(ctx context.Context, userID int64, limit int) ([]*services.Order, error) {
	if limit < 1 || limit > 200 {
		limit = 200
	}
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	var orders []*services.Order
	if err := o.db.SelectContext(ctx, &orders, "SELECT "+orderColumns+" FROM orders WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ?", userID, limit); err != nil {
		return nil, store.Unavailable("the database", err)
	}
	if err := o.AttachSeats(ctx, orders); err != nil {
		return nil, err
	}
	now := o.clock.Now()
	for i, ord := range orders {
		if ord.Status == services.OrderPending && !now.Before(ord.ExpiresAt) {
			if _, err := o.Expire(ctx, ord.OrderNo); err != nil {
				return nil, err
			}
			fresh, err := o.ByNo(ctx, ord.OrderNo)
			if err != nil {
				return nil, err
			}
			orders[i] = fresh
		}
	}
	if err := o.AttachEnds(ctx, orders); err != nil {
		return nil, err
	}
	return orders, nil
}
