package orders

import (
	"context"

	"seatflow/services"
	"seatflow/services/store"
)

// orderByID reads an order with its seats. Errors: NOT_FOUND, UNAVAILABLE.
func (o *Orders) orderByID(ctx context.Context, id int64) (*services.Order, error) {
	return o.readOne(ctx, func(ctx context.Context) (*services.Order, error) { return store.OrderByID(ctx, o.db, id) })
}

// readOne reads an order row with read (under store.DBTimeout), then its seats and
// end. Errors: NOT_FOUND, UNAVAILABLE.
func (o *Orders) readOne(ctx context.Context, read func(ctx context.Context) (*services.Order, error)) (*services.Order, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	order, err := read(ctx)
	if err != nil {
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

// AttachSeats reads the seats of orders (each marked when a refund gave it back, and the
// orders' RefundedMinor) in one query, and the codes of their vouchers
// in one more when any has one (End is set by AttachEnds, which readOne and List call
// too).
func (o *Orders) AttachSeats(ctx context.Context, orders []*services.Order) error {
	if len(orders) == 0 {
		return nil
	}
	ids := make([]int64, len(orders))
	byID := make(map[int64]*services.Order, len(orders))
	for i, ord := range orders {
		ids[i] = ord.ID
		byID[ord.ID] = ord
	}
	rows, err := store.OrderSeatsOf(ctx, o.db, ids)
	if err != nil {
		return store.Unavailable("the database", err)
	}
	putSeats(byID, rows)
	return o.attachVoucherCodes(ctx, orders)
}

// putSeats sets the Seats and RefundedMinor of the orders of byID (by id) from rows, as
// store.OrderSeatsOf reads them, in place of what they had.
func putSeats(byID map[int64]*services.Order, rows []store.OrderSeatRow) {
	for _, ord := range byID {
		ord.Seats, ord.RefundedMinor = nil, 0
	}
	for _, r := range rows {
		ord := byID[r.OrderID]
		ord.Seats = append(ord.Seats, r.OrderSeat)
		ord.RefundedMinor += r.RefundedMinor
	}
}

// attachVoucherCodes sets Voucher, the code, on the orders that used one (one query;
// none when no order did). Errors: UNAVAILABLE.
func (o *Orders) attachVoucherCodes(ctx context.Context, orders []*services.Order) error {
	var ids []int64
	for _, ord := range orders {
		if ord.VoucherID != nil {
			ids = append(ids, *ord.VoucherID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	codes, err := store.VoucherCodes(ctx, o.db, ids)
	if err != nil {
		return store.Unavailable("the database", err)
	}
	for _, ord := range orders {
		if ord.VoucherID != nil {
			ord.Voucher = codes[*ord.VoucherID]
		}
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
	return o.readOne(ctx, func(ctx context.Context) (*services.Order, error) { return store.OrderByNo(ctx, o.db, orderNo) })
}

// List returns the user's orders, newest first, at most limit (1..200).
func (o *Orders) List(ctx context.Context, userID int64, limit int) ([]*services.Order, error) {
	if limit < 1 || limit > 200 {
		limit = 200
	}
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	orders, err := store.OrdersOfUser(ctx, o.db, userID, limit)
	if err != nil {
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
