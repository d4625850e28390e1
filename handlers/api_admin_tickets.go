package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/orders"
	"seatflow/services/staff"
)

// DoorService checks and admits tickets at the door (staff.Door).
type DoorService interface {
	Check(ctx context.Context, ref string) (*staff.Ticket, error)
	Admit(ctx context.Context, actorID int64, ref string, scope staff.DoorScope) (*staff.Ticket, error)
	Count(ctx context.Context, showIDs []int64) (staff.DoorCount, error)
	Zone() *time.Location
}

// ticketCheckJSON is the answer of a ticket check: valid only for a paid order's ticket
// not yet admitted; the show and seats for a paid order; admitted_at (UTC) and
// admitted_by (the staff member's name) null until the ticket is admitted.
type ticketCheckJSON struct {
	Valid      bool     `json:"valid"`
	OrderNo    string   `json:"order_no"`
	ShowID     string   `json:"show_id,omitempty"`
	Seats      []string `json:"seats,omitempty"`
	Status     string   `json:"status"`
	Admitted   bool     `json:"admitted"`
	AdmittedAt *string  `json:"admitted_at"`
	AdmittedBy *string  `json:"admitted_by"`
	BuyerName  string   `json:"buyer_name,omitempty"`
	ShowTitle  string   `json:"show_title,omitempty"`
	StartsAt   string   `json:"starts_at,omitempty"`
}

// ticketOut renders ticket t for the check and admit endpoints.
func ticketOut(t *staff.Ticket) ticketCheckJSON {
	o := t.Order
	out := ticketCheckJSON{OrderNo: o.OrderNo, Status: o.Status, Admitted: t.AdmittedAt != nil}
	out.Valid = o.Status == services.OrderPaid && !out.Admitted && t.ShowStatus != services.ShowCancelled
	if o.Status == services.OrderPaid {
		out.ShowID = id(o.ShowID)
		kept := o.KeptSeats() // a refunded seat is no longer the ticket's: it may be sold again
		out.Seats = make([]string, len(kept))
		for i, s := range kept {
			out.Seats[i] = s.Label
		}
		out.BuyerName, out.ShowTitle, out.StartsAt = t.BuyerName, t.ShowTitle, rfc(t.ShowStartsAt)
	}
	if t.AdmittedAt != nil {
		at := rfc(*t.AdmittedAt)
		out.AdmittedAt, out.AdmittedBy = &at, &t.AdmittedByName
	}
	return out
}

// apiAdminTicket checks a ticket reference (the text of a ticket's QR code) for staff
// without admitting it: -> 200 {"valid":true,"order_no","show_id","seats":[labels],
// "status":"paid","admitted":false,"admitted_at":null,"admitted_by":null,...} for a
// ticket of a paid order not yet admitted; valid false for a ticket already admitted
// (admitted_at, admitted_by name it) or of an order no longer paid (refunded, say).
// Errors: 404 NOT_FOUND for a malformed, forged or unknown reference; 503.
func (d *Deps) apiAdminTicket(c *fiber.Ctx) error {
	if d.Door == nil {
		return &services.Error{Code: services.CodeNotFound, Message: "ticket not found"}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	t, err := d.Door.Check(ctx, copyParam(c, "ref"))
	if err != nil {
		return err
	}
	return c.JSON(ticketOut(t))
}

// apiAdminAdmit admits the ticket of reference :ref at the door, for the signed-in staff
// member. Optional body {"show_id":"7"} (a number is taken too): the door's show, any
// other show's ticket is refused. -> 200 the ticket with "admitted":true on the first
// scan. Errors: 400 INVALID_REQUEST (bad body), 404 NOT_FOUND (malformed, forged or
// unknown reference), 409 TICKET_NOT_VALID (refunded, not paid, show cancelled),
// WRONG_SHOW, ALREADY_ADMITTED (the message says when and by whom), 503; nothing
// changes on an error.
func (d *Deps) apiAdminAdmit(c *fiber.Ctx) error {
	var scope staff.DoorScope
	if body := bytes.TrimSpace(c.Body()); len(body) > 0 {
		var in struct {
			ShowID json.RawMessage `json:"show_id"`
		}
		if err := decodeObject(body, &in, `{"show_id":"7"}`); err != nil {
			return err
		}
		if isSet(in.ShowID) {
			n, err := jsonID(in.ShowID, "show_id")
			if err != nil {
				return err
			}
			scope.ShowID = n
		}
	}
	if d.Door == nil {
		return &services.Error{Code: services.CodeNotFound, Message: "ticket not found"}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	t, err := d.Door.Admit(ctx, currentUser(c).ID, copyParam(c, "ref"), scope)
	if err != nil {
		return err
	}
	return c.JSON(ticketOut(t))
}

// ticketCode is the short code of paid order o's ticket as shown ("K3M9P-QR7TX"),
// drawn and stored the first time; "" (logged) when it cannot be read, so the ticket
// still shows with its QR code.
func (d *Deps) ticketCode(ctx context.Context, o *services.Order) string {
	if d.Tickets == nil {
		return ""
	}
	code, err := d.Tickets.Code(ctx, o)
	if err != nil {
		slog.Warn("ticket: code unavailable", "order", o.OrderNo, "err", err)
		return ""
	}
	return orders.FormatTicketCode(code)
}
