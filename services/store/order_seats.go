package store

import (
	"context"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
)

// OrderSeatRow is one seat of an order as OrderSeatsOf reads it.
type OrderSeatRow struct {
	OrderID int64 `db:"order_id"`
	services.OrderSeat
}

// OrderSeatsOf returns the seats of the orders with ids (at least one), with their labels and refunds, in row and column order (not those an exchange took away).
func OrderSeatsOf(ctx context.Context, q Querier, ids []int64) ([]OrderSeatRow, error) {
	query, args, err := sqlx.In(`SELECT os.order_id, os.seat_id, s.label, os.zone_code, os.ticket_type, os.price_minor, os.discount_minor,
		rs.seat_id IS NOT NULL AS refunded, COALESCE(rs.amount_minor, 0) AS refunded_minor
		FROM order_seats os JOIN seats s ON s.id = os.seat_id
		LEFT JOIN refund_seats rs ON rs.order_id = os.order_id AND rs.seat_id = os.seat_id
		WHERE os.order_id IN (?) AND os.exchanged_at IS NULL ORDER BY s.row_no, s.col_no`, ids)
	if err != nil {
		return nil, err
	}
	var rows []OrderSeatRow
	err = q.SelectContext(ctx, &rows, q.Rebind(query), args...)
	return rows, err
}

// LiveSeatIDsAmong returns which of the seats ids (at least one) a live order of the show occupies.
func LiveSeatIDsAmong(ctx context.Context, q Querier, showID int64, ids []int64) ([]int64, error) {
	query, args, err := sqlx.In("SELECT seat_id FROM order_seats WHERE show_id = ? AND live = 1 AND seat_id IN (?)", showID, ids)
	if err != nil {
		return nil, err
	}
	var live []int64
	err = q.SelectContext(ctx, &live, q.Rebind(query), args...)
	return live, err
}

// ticketTypeOf is the ticket type an order seat is written with (adult when none is set).
func ticketTypeOf(s services.OrderSeat) string {
	if s.TicketType == "" {
		return services.TicketAdult
	}
	return s.TicketType
}
