package handlers

import (
	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/orders"
	"seatflow/services/staff"
)

// ticketCheckJSON is the answer of a ticket check: valid only for a paid order; the
// show and seats only then.
type ticketCheckJSON struct {
	Valid   bool     `json:"valid"`
	OrderNo string   `json:"order_no"`
	ShowID  string   `json:"show_id,omitempty"`
	Seats   []string `json:"seats,omitempty"`
	Status  string   `json:"status"`
}

// apiAdminTicket checks a ticket reference (the text of a ticket's QR code) for staff:
// -> 200 {"valid":true,"order_no","show_id","seats":[labels],"status":"paid"} for a
// ticket of a paid order, 200 {"valid":false,"order_no","status"} for a genuine ticket
// of an order no longer paid (refunded, say). Errors: 404 NOT_FOUND for a malformed,
// forged or unknown reference; 503.
func (d *Deps) apiAdminTicket(c *fiber.Ctx) error {
	notFound := &services.Error{Code: services.CodeNotFound, Message: "ticket not found"}
	ref := copyParam(c, "ref")
	no, ok := orders.TicketOrderNo(ref)
	if !ok || d.Tickets == nil {
		return notFound
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	found, err := d.AdminOrders.Search(ctx, staff.OrderSearch{OrderNo: no, Limit: 1})
	if err != nil {
		return err
	}
	if len(found) == 0 || !d.Tickets.Verify(ref, found[0].Order) {
		return notFound
	}
	o := found[0].Order
	out := ticketCheckJSON{Valid: o.Status == services.OrderPaid, OrderNo: o.OrderNo, Status: o.Status}
	if out.Valid {
		out.ShowID = id(o.ShowID)
		out.Seats = make([]string, len(o.Seats))
		for i, s := range o.Seats {
			out.Seats[i] = s.Label
		}
	}
	return c.JSON(out)
}
