package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
)

// orderColumns are the columns of an order row, in services.Order's scan order.
// A walk-in's order (user_id NULL) reads as services.WalkIn.
const orderColumns = `id, order_no, COALESCE(user_id, 0) AS user_id, show_id, status, total_minor, currency, created_at, expires_at,
	paid_at, cancelled_at, cancel_reason, voucher_id, discount_minor, channel, sold_by`

// OrderByID returns the order row with that id, without its seats (sql.ErrNoRows: none).
func OrderByID(ctx context.Context, q Querier, id int64) (*services.Order, error) {
	order := &services.Order{}
	return order, q.GetContext(ctx, order, "SELECT "+orderColumns+" FROM orders WHERE id = ?", id)
}

// OrderByNo returns the order row with that order number, without its seats (sql.ErrNoRows: none).
func OrderByNo(ctx context.Context, q Querier, orderNo string) (*services.Order, error) {
	order := &services.Order{}
	return order, q.GetContext(ctx, order, "SELECT "+orderColumns+" FROM orders WHERE order_no = ?", orderNo)
}

// OrdersOfUser returns the user's order rows, newest first, at most limit, without their seats.
func OrdersOfUser(ctx context.Context, q Querier, userID int64, limit int) ([]*services.Order, error) {
	var orders []*services.Order
	err := q.SelectContext(ctx, &orders, "SELECT "+orderColumns+" FROM orders WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ?", userID, limit)
	return orders, err
}

// orderInsertColumns is how many columns InsertOrders writes per order.
const orderInsertColumns = 15

// OrderSeatsWritten says how InsertOrders writes the seats of the orders it inserts.
type OrderSeatsWritten int

const (
	// SeatsLive writes seats that occupy their seat (live 1; the unique key
	// uq_order_seats_live refuses a seat another live order occupies).
	SeatsLive OrderSeatsWritten = iota
	// SeatsReleased writes seats already released (live NULL).
	SeatsReleased
)

// InsertOrders writes orders (a walk-in's user_id NULL; channel online unless set; times in UTC, money in minor units; an order's Idempotency-Key and request hash with it, NULL without a key) in one multi-row INSERT and their seats in another, and sets each order's ID from the first id plus i*idStep (idStep 0: read back by order number).
func InsertOrders(ctx context.Context, q Querier, orders []*services.Order, seats OrderSeatsWritten, idStep int64) error {
	if len(orders) == 0 {
		return nil
	}
	args := make([]any, 0, orderInsertColumns*len(orders))
	for _, o := range orders {
		var user any = o.UserID
		if o.UserID == services.WalkIn {
			user = nil
		}
		channel := o.Channel
		if channel == "" {
			channel = services.ChannelOnline
		}
		var key, hash any
		if o.IdempotencyKey != "" {
			key, hash = o.IdempotencyKey, o.RequestHash
		}
		args = append(args, o.OrderNo, user, o.ShowID, o.Status, o.TotalMinor, o.Currency, o.CreatedAt, o.ExpiresAt, o.PaidAt,
			o.VoucherID, o.DiscountMinor, channel, o.SoldBy, key, hash)
	}
	// A seat another live order occupies fails with MySQL error 1062 on
	// uq_order_seats_live (invariant 1), a key the buyer used for another order on
	// IdempotencyKeyUnique; the caller maps errors. idStep is the distance
	// between the ids one statement generates when the server hands a multi-row INSERT
	// consecutive ids (AutoIncrementStep); lock mode 2 interleaves ids of concurrent
	// statements, so they are read back.
	res, err := q.ExecContext(ctx, `INSERT INTO orders (order_no, user_id, show_id, status, total_minor, currency, created_at, expires_at, paid_at, voucher_id, discount_minor, channel, sold_by, idem_key, idem_hash) VALUES `+
		placeholderRows(len(orders), orderInsertColumns), args...)
	if err != nil {
		return err
	}
	first, err := res.LastInsertId() // the first row's id
	if err != nil {
		return err
	}
	if err := setOrderIDs(ctx, q, orders, first, idStep); err != nil {
		return err
	}
	var liveVal any = 1
	if seats == SeatsReleased {
		liveVal = nil
	}
	n := 0
	args = args[:0]
	for _, o := range orders {
		for _, s := range o.Seats {
			args = append(args, o.ID, o.ShowID, s.SeatID, s.ZoneCode, ticketTypeOf(s), s.PriceMinor, s.DiscountMinor, liveVal)
			n++
		}
	}
	if n == 0 {
		return nil
	}
	_, err = q.ExecContext(ctx, "INSERT INTO order_seats (order_id, show_id, seat_id, zone_code, ticket_type, price_minor, discount_minor, live) VALUES "+placeholderRows(n, 8), args...)
	return err
}

// setOrderIDs sets the ids a multi-row INSERT gave orders: first + i*idStep, or, with
// idStep 0 and more than one order, read back by order number.
func setOrderIDs(ctx context.Context, q Querier, orders []*services.Order, first, idStep int64) error {
	if len(orders) == 1 || idStep > 0 {
		for i, o := range orders {
			o.ID = first + int64(i)*idStep
		}
		return nil
	}
	nos := make([]string, len(orders))
	for i, o := range orders {
		nos[i] = o.OrderNo
	}
	query, qargs, err := sqlx.In("SELECT id, order_no FROM orders WHERE order_no IN (?)", nos)
	if err != nil {
		return err
	}
	var rows []struct {
		ID      int64  `db:"id"`
		OrderNo string `db:"order_no"`
	}
	if err := sqlx.SelectContext(ctx, q, &rows, sqlx.Rebind(sqlx.QUESTION, query), qargs...); err != nil {
		return err
	}
	ids := make(map[string]int64, len(rows))
	for _, r := range rows {
		ids[r.OrderNo] = r.ID
	}
	for _, o := range orders {
		if o.ID = ids[o.OrderNo]; o.ID == 0 {
			return fmt.Errorf("order %s not found after its insert", o.OrderNo)
		}
	}
	return nil
}

// AutoIncrementStep returns InsertOrders' idStep for the server: @@auto_increment_increment when innodb_autoinc_lock_mode gives a multi-row INSERT consecutive ids (0 or 1), else 0.
func AutoIncrementStep(ctx context.Context, q Querier) (int64, error) {
	var row struct {
		Mode int64 `db:"mode"`
		Step int64 `db:"step"`
	}
	if err := q.GetContext(ctx, &row, "SELECT @@innodb_autoinc_lock_mode AS mode, @@auto_increment_increment AS step"); err != nil {
		return 0, err
	}
	if row.Mode > 1 || row.Step < 1 {
		return 0, nil
	}
	return row.Step, nil
}

// placeholderRows is the VALUES list of a multi-row INSERT: rows groups of cols placeholders.
func placeholderRows(rows, cols int) string {
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", cols), ", ") + ")"
	var b strings.Builder
	b.Grow(rows * (len(one) + 2))
	for i := 0; i < rows; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(one)
	}
	return b.String()
}
