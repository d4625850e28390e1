package orders

import (
	"context"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
)

// InsertOrder is InsertOrders for one order: the demo seed and the load test's fixtures
// write their orders through it.
func InsertOrder(ctx context.Context, tx sqlx.ExtContext, order *services.Order, live bool) error {
	return InsertOrders(ctx, tx, []*services.Order{order}, live, 1)
}

// InsertOrders is the one INSERT of orders: it writes orders (OrderNo, UserID, ShowID,
// Status, TotalMinor in minor units, Currency, CreatedAt, ExpiresAt and PaidAt, times
// in UTC) in one multi-row statement and all their Seats in another, in tx, and sets
// each order's ID. Each seat row is live (it occupies the seat) unless live is false (a
// seat already released: live NULL). The unique key uq_order_seats_live (liveSeatKey)
// refuses a seat another live order occupies with MySQL error 1062 (invariant 1); the
// caller maps errors.
//
// idStep is the distance between the ids one statement generates
// (@@auto_increment_increment) when the server hands a multi-row INSERT consecutive ids
// (innodb_autoinc_lock_mode 0 or 1, see AutoIncrementStep): the ids are then the first
// id plus i*idStep, with no round trip. idStep 0 reads them back by order number (lock
// mode 2 interleaves ids of concurrent statements).
func InsertOrders(ctx context.Context, tx sqlx.ExtContext, orders []*services.Order, live bool, idStep int64) error {
	if len(orders) == 0 {
		return nil
	}
	args := make([]any, 0, 9*len(orders))
	for _, o := range orders {
		args = append(args, o.OrderNo, o.UserID, o.ShowID, o.Status, o.TotalMinor, o.Currency, o.CreatedAt, o.ExpiresAt, o.PaidAt)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO orders (order_no, user_id, show_id, status, total_minor, currency, created_at, expires_at, paid_at) VALUES `+
		values(len(orders), 9), args...)
	if err != nil {
		return err
	}
	first, err := res.LastInsertId() // the first row's id
	if err != nil {
		return err
	}
	if err := setOrderIDs(ctx, tx, orders, first, idStep); err != nil {
		return err
	}
	var liveVal any = 1
	if !live {
		liveVal = nil
	}
	n := 0
	args = args[:0]
	for _, o := range orders {
		for _, s := range o.Seats {
			args = append(args, o.ID, o.ShowID, s.SeatID, s.ZoneCode, s.PriceMinor, liveVal)
			n++
		}
	}
	if n == 0 {
		return nil
	}
	_, err = tx.ExecContext(ctx, "INSERT INTO order_seats (order_id, show_id, seat_id, zone_code, price_minor, live) VALUES "+values(n, 6), args...)
	return err
}

// setOrderIDs sets the ids a multi-row INSERT gave orders: first + i*idStep, or, with
// idStep 0 and more than one order, read back by order number.
func setOrderIDs(ctx context.Context, tx sqlx.QueryerContext, orders []*services.Order, first, idStep int64) error {
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
	q, qargs, err := sqlx.In("SELECT id, order_no FROM orders WHERE order_no IN (?)", nos)
	if err != nil {
		return err
	}
	var rows []struct {
		ID      int64  `db:"id"`
		OrderNo string `db:"order_no"`
	}
	if err := sqlx.SelectContext(ctx, tx, &rows, sqlx.Rebind(sqlx.QUESTION, q), qargs...); err != nil {
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

// AutoIncrementStep returns the idStep for InsertOrders on db's server: its
// @@auto_increment_increment when innodb_autoinc_lock_mode gives a multi-row INSERT
// consecutive ids (0 "traditional", 1 "consecutive"), else 0 (read the ids back).
func AutoIncrementStep(ctx context.Context, db sqlx.QueryerContext) (int64, error) {
	var row struct {
		Mode int64 `db:"mode"`
		Step int64 `db:"step"`
	}
	if err := sqlx.GetContext(ctx, db, &row, "SELECT @@innodb_autoinc_lock_mode AS mode, @@auto_increment_increment AS step"); err != nil {
		return 0, err
	}
	if row.Mode > 1 || row.Step < 1 {
		return 0, nil
	}
	return row.Step, nil
}

// values is the VALUES list of a multi-row INSERT: rows groups of cols placeholders.
func values(rows, cols int) string {
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
