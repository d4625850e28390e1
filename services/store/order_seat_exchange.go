package store

import (
	"context"
	"errors"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
)

// ErrSeatLive is a seat an exchange would make live while another live order occupies
// it (uq_order_seats_live, MySQL 1062): the seat cache had drifted.
var ErrSeatLive = errors.New("store: seat live in another order")

// LockedOrderState is an order row as an exchange reads it under its lock.
type LockedOrderState struct {
	Status    string    `db:"status"`
	ExpiresAt time.Time `db:"expires_at"`
}

// LockOrderState reads order id's status and deadline, locking the row (FOR UPDATE) so no transition of it commits meanwhile.
func LockOrderState(ctx context.Context, q Querier, id int64) (LockedOrderState, error) {
	var s LockedOrderState
	err := q.GetContext(ctx, &s, "SELECT status, expires_at FROM orders WHERE id = ? FOR UPDATE", id)
	return s, err
}

// LockLiveOrderSeats returns the live seats of order id with their labels and rows, in row and column order, locking them (FOR UPDATE).
func LockLiveOrderSeats(ctx context.Context, q Querier, id int64) ([]services.OrderSeat, error) {
	var rows []services.OrderSeat
	err := q.SelectContext(ctx, &rows, `SELECT os.seat_id, s.label, os.zone_code, os.ticket_type, os.price_minor, os.discount_minor
		FROM order_seats os JOIN seats s ON s.id = os.seat_id WHERE os.order_id = ? AND os.live = 1
		ORDER BY s.row_no, s.col_no FOR UPDATE`, id)
	return rows, err
}

// EndedOrderSeatsAmong returns which of seats ids (at least one) order id has as a row that an exchange did not end: refunded or otherwise not live.
func EndedOrderSeatsAmong(ctx context.Context, q Querier, id int64, ids []int64) ([]int64, error) {
	query, args, err := sqlx.In(`SELECT seat_id FROM order_seats WHERE order_id = ? AND live IS NULL
		AND exchanged_at IS NULL AND seat_id IN (?)`, id, ids)
	if err != nil {
		return nil, err
	}
	var out []int64
	err = q.SelectContext(ctx, &out, q.Rebind(query), args...)
	return out, err
}

// MoveVoucherUse moves order id's voucher use of seat from to seat to (none: nothing).
func MoveVoucherUse(ctx context.Context, q Querier, id, from, to int64) error {
	_, err := q.ExecContext(ctx, "UPDATE voucher_uses SET seat_id = ? WHERE order_id = ? AND seat_id = ?", to, id, from)
	return err
}

// DeleteTicketCode deletes order id's ticket code (none: nothing), so a code printed before no longer finds it.
func DeleteTicketCode(ctx context.Context, q Querier, id int64) error {
	_, err := q.ExecContext(ctx, "DELETE FROM ticket_codes WHERE order_id = ?", id)
	return err
}

// OrderSeatExchanged reports whether an exchange took seat seatID away from order id (its row ended by an exchange; false when the order still has it or never had it).
func OrderSeatExchanged(ctx context.Context, q Querier, id, seatID int64) (bool, error) {
	var n int
	err := q.GetContext(ctx, &n, "SELECT COUNT(*) FROM order_seats WHERE order_id = ? AND seat_id = ? AND exchanged_at IS NOT NULL", id, seatID)
	return n > 0, err
}
