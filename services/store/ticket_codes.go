package store

import (
	"context"
	"errors"
	"time"
)

// ErrDuplicateTicketCode is InsertTicketCode's answer when the code or the order already
// has a row (MySQL error 1062): the caller reads the order's code again or draws another.
var ErrDuplicateTicketCode = errors.New("store: duplicate ticket code")

// TicketCodeOf returns the ticket code of order orderID (sql.ErrNoRows when it has none yet).
func TicketCodeOf(ctx context.Context, q Querier, orderID int64) (string, error) {
	var code string
	err := q.GetContext(ctx, &code, "SELECT code FROM ticket_codes WHERE order_id = ?", orderID)
	return code, err
}

// InsertTicketCode gives order orderID the ticket code code at now; ErrDuplicateTicketCode when the code or the order has one.
func InsertTicketCode(ctx context.Context, q Querier, orderID int64, code string, now time.Time) error {
	_, err := q.ExecContext(ctx, "INSERT INTO ticket_codes (code, order_id, created_at) VALUES (?, ?, ?)", code, orderID, now)
	if DuplicateOn(err, "PRIMARY") || DuplicateOn(err, "uq_ticket_codes_order") {
		return ErrDuplicateTicketCode
	}
	return err
}

// TicketCodeOrderNo returns the order number of ticket code code (sql.ErrNoRows when no order has it).
func TicketCodeOrderNo(ctx context.Context, q Querier, code string) (string, error) {
	var no string
	err := q.GetContext(ctx, &no, "SELECT o.order_no FROM ticket_codes t JOIN orders o ON o.id = t.order_id WHERE t.code = ?", code)
	return no, err
}
