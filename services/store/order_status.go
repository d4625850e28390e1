package store

import (
	"context"
	"errors"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
)

// ShowGuard is what an order status change requires of the order's show.
type ShowGuard string

// Show guards of an OrderStatusChange.
const (
	AnyShow             ShowGuard = ""              // the show's status does not matter
	ShowNotCancelled    ShowGuard = "not_cancelled" // the show must not be cancelled (read with a lock through the join)
	showCancelledStatus           = "cancelled"
)

// OrderStatusChange is one conditional move of an order's status. OrderID names the
// order and From is the status it must still have (the guard that makes one racing
// caller the winner); To is the new status. At is paid_at when To is paid, else
// cancelled_at, and Reason is cancel_reason (ended orders only). A non-zero ExpiresBy
// requires expires_at <= ExpiresBy (an expiry that is due); a non-zero ExpiresAfter
// requires expires_at > ExpiresAfter (a payment in time); Show is what the show must be.
// EndSeats, with From and To both paid, ends only those live seats of a paid order that
// keeps its status (a refund of part of it): the status is not written, the order must
// still be paid and every seat named must still be live, else nothing changes
// (ErrSeatsChanged).
type OrderStatusChange struct {
	OrderID      int64
	From         string
	To           string
	At           time.Time
	Reason       string
	ExpiresBy    time.Time
	ExpiresAfter time.Time
	Show         ShowGuard
	EndSeats     []int64
}

// ErrSeatsChanged is an OrderStatusChange.EndSeats whose seats were not all live seats
// of a paid order any more: the caller's transaction must roll back.
var ErrSeatsChanged = errors.New("store: the seats to end are not all live seats of the paid order")

// UpdateOrderStatus applies ch (the only UPDATE of orders.status and order_seats.live) and reports whether the row changed; an order that leaves pending or paid has its seats marked not live.
func UpdateOrderStatus(ctx context.Context, q Querier, ch OrderStatusChange) (bool, error) {
	if len(ch.EndSeats) > 0 {
		if ch.From != services.OrderPaid || ch.To != services.OrderPaid {
			return false, ErrSeatsChanged
		}
		query, args, err := sqlx.In(`UPDATE order_seats os JOIN orders o ON o.id = os.order_id SET os.live = NULL
			WHERE os.order_id = ? AND o.status = ? AND os.live = 1 AND os.seat_id IN (?)`, ch.OrderID, services.OrderPaid, ch.EndSeats)
		if err != nil {
			return false, err
		}
		res, err := q.ExecContext(ctx, query, args...)
		if err != nil {
			return false, err
		}
		if n, _ := res.RowsAffected(); n != int64(len(ch.EndSeats)) {
			return false, ErrSeatsChanged
		}
		return true, nil
	}
	var query string
	args := []any{ch.To, ch.At, ch.Reason}
	switch {
	case ch.To == services.OrderPaid && ch.Show == ShowNotCancelled:
		query = "UPDATE orders o JOIN shows sh ON sh.id = o.show_id SET o.status = ?, o.paid_at = ?"
	case ch.To == services.OrderPaid:
		query = "UPDATE orders o SET o.status = ?, o.paid_at = ?"
	case ch.Show == ShowNotCancelled:
		query = "UPDATE orders o JOIN shows sh ON sh.id = o.show_id SET o.status = ?, o.cancelled_at = ?, o.cancel_reason = ?"
	default:
		query = "UPDATE orders o SET o.status = ?, o.cancelled_at = ?, o.cancel_reason = ?"
	}
	if ch.To == services.OrderPaid {
		args = args[:2]
	}
	query += " WHERE o.id = ? AND o.status = ?"
	args = append(args, ch.OrderID, ch.From)
	if !ch.ExpiresBy.IsZero() {
		query += " AND o.expires_at <= ?"
		args = append(args, ch.ExpiresBy)
	}
	if !ch.ExpiresAfter.IsZero() {
		query += " AND o.expires_at > ?"
		args = append(args, ch.ExpiresAfter)
	}
	if ch.Show == ShowNotCancelled {
		query += " AND sh.status <> ?"
		args = append(args, showCancelledStatus)
	}
	res, err := q.ExecContext(ctx, query, args...)
	if err != nil {
		return false, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	if ch.To != services.OrderPending && ch.To != services.OrderPaid {
		if _, err := q.ExecContext(ctx, "UPDATE order_seats SET live = NULL WHERE order_id = ?", ch.OrderID); err != nil {
			return false, err
		}
	}
	return true, nil
}

// OrderBuyerStatus is an order's buyer, show and status as a payment's e-mail needs them.
type OrderBuyerStatus struct {
	UserID int64  `db:"user_id"`
	ShowID int64  `db:"show_id"`
	Status string `db:"status"`
}

// OrderBuyerAndStatus returns the buyer, show and status of order id.
func OrderBuyerAndStatus(ctx context.Context, q Querier, id int64) (OrderBuyerStatus, error) {
	var o OrderBuyerStatus
	err := q.GetContext(ctx, &o, "SELECT COALESCE(user_id, 0) AS user_id, show_id, status FROM orders WHERE id = ?", id)
	return o, err
}

// LiveOrderNosOfSeat returns the numbers of the orders whose seat seatID of show showID is live.
func LiveOrderNosOfSeat(ctx context.Context, q Querier, showID, seatID int64) ([]string, error) {
	var nos []string
	err := q.SelectContext(ctx, &nos, `SELECT o.order_no FROM order_seats os JOIN orders o ON o.id = os.order_id
		WHERE os.show_id = ? AND os.seat_id = ? AND os.live = 1`, showID, seatID)
	return nos, err
}

// MoveOrderSeat moves live order id of show showID from its live seat from to seat to (its zone, type, price and saving), exchanged at at: the old row ends (live NULL, exchanged_at), a row an earlier exchange ended comes back or a new one is inserted; the status stays (the exchange's door beside UpdateOrderStatus). It reports whether from was live. Errors: ErrSeatLive.
func MoveOrderSeat(ctx context.Context, q Querier, id, showID, from int64, to services.OrderSeat, at time.Time) (bool, error) {
	res, err := q.ExecContext(ctx, "UPDATE order_seats SET live = NULL, exchanged_at = ? WHERE order_id = ? AND seat_id = ? AND live = 1",
		at, id, from)
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return false, err
	}
	res, err = q.ExecContext(ctx, `UPDATE order_seats SET live = 1, exchanged_at = NULL, zone_code = ?, ticket_type = ?,
		price_minor = ?, discount_minor = ? WHERE order_id = ? AND seat_id = ? AND exchanged_at IS NOT NULL`,
		to.ZoneCode, ticketTypeOf(to), to.PriceMinor, to.DiscountMinor, id, to.SeatID)
	if err == nil {
		if n, rerr := res.RowsAffected(); rerr != nil || n == 1 {
			return true, rerr
		}
		_, err = q.ExecContext(ctx, `INSERT INTO order_seats (order_id, show_id, seat_id, zone_code, ticket_type, price_minor, discount_minor, live)
			VALUES (?, ?, ?, ?, ?, ?, ?, 1)`, id, showID, to.SeatID, to.ZoneCode, ticketTypeOf(to), to.PriceMinor, to.DiscountMinor)
	}
	if DuplicateOn(err, "uq_order_seats_live") {
		return true, ErrSeatLive
	}
	return true, err
}
