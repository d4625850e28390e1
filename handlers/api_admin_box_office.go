package handlers

import (
	"encoding/json"
	"strings"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/orders"
)

// counterBody is the box office's fields besides an order body's (parseOrderBody).
type counterBody struct {
	Tender        json.RawMessage `json:"tender"`
	TenderedMinor json.RawMessage `json:"tendered_minor"`
	Email         json.RawMessage `json:"email"`
	Lang          json.RawMessage `json:"lang"`
}

// receiptJSON is how a counter sale was paid: the tender, the cash given and the change
// (minor units of the order's currency; 0 for card) and the shift it counts in.
type receiptJSON struct {
	Tender        string  `json:"tender"`
	TenderedMinor int64   `json:"tendered_minor"`
	ChangeMinor   int64   `json:"change_minor"`
	ShiftID       *string `json:"shift_id"`
}

// counterOrderJSON is a counter sale's order for staff: the order with its ticket
// reference, the address of its printed tickets and its receipt.
type counterOrderJSON struct {
	orderJSON
	Receipt   *receiptJSON `json:"receipt,omitempty"`
	TicketPDF string       `json:"ticket_pdf,omitempty"`
}

// parseCounterSale reads a box-office body: an order body (seat_ids or zone + quantity,
// tickets, ticket_counts, voucher) and tender ("cash" | "card"), tendered_minor (the
// cash given, an integer), email and lang (en, zh) optional. Errors: INVALID_REQUEST.
func parseCounterSale(body []byte, s *orders.CounterSale) error {
	var req orders.CreateOrderRequest
	if err := parseOrderBody(body, &req); err != nil {
		return err
	}
	var b counterBody
	if err := json.Unmarshal(body, &b); err != nil {
		return invalid("the body must be a JSON object")
	}
	if !isSet(b.Tender) {
		return invalid("tender is missing: cash or card")
	}
	if err := json.Unmarshal(b.Tender, &s.Tender); err != nil || (s.Tender != orders.TenderCash && s.Tender != orders.TenderCard) {
		return invalid("tender must be cash or card")
	}
	if isSet(b.TenderedMinor) {
		v, err := jsonInt(b.TenderedMinor)
		if err != nil || v < 0 {
			return invalid("tendered_minor must be a non-negative integer in minor units")
		}
		s.TenderedMinor = &v
	}
	if isSet(b.Email) {
		if err := json.Unmarshal(b.Email, &s.Email); err != nil {
			return invalid("email must be a string")
		}
		s.Email = strings.TrimSpace(s.Email)
	}
	if isSet(b.Lang) {
		if err := json.Unmarshal(b.Lang, &s.Lang); err != nil {
			return invalid("lang must be en or zh")
		}
	}
	s.SeatIDs, s.Zone, s.Quantity, s.Accessible = req.SeatIDs, req.Zone, req.Quantity, req.Accessible
	s.Tickets, s.TicketCounts, s.Voucher = req.Tickets, req.TicketCounts, req.Voucher
	return nil
}

// apiAdminBoxOffice sells at the counter: POST /api/v1/admin/shows/{id}/box-office ->
// 201 the order, paid, with channel box_office, sold_by, ticket_ref, its receipt and
// the address of its printed tickets. Errors: 400 (the body, an unknown tender, cash
// short of the total), 403 (another cinema's show), 404, 409 SEAT_TAKEN..., 422
// NOT_ON_SALE (before the opening, from the start), 503.
func (d *Deps) apiAdminBoxOffice(c *fiber.Ctx) error {
	if d.BoxOffice == nil {
		return services.Errorf(services.CodeUnavailable, "the box office is not configured")
	}
	s := orders.CounterSale{StaffID: currentUser(c).ID}
	if err := parseCounterSale(c.Body(), &s); err != nil {
		return err
	}
	showID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "show not found"}
	}
	s.ShowID = showID
	ctx, cancel := ctxOf(c)
	defer cancel()
	o, r, err := d.BoxOffice.Sell(ctx, s)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(d.counterOrderOut(o, r))
}

// counterOrderOut is o as staff read a counter sale: with its ticket reference and code,
// the printed tickets' address and receipt r (nil: none).
func (d *Deps) counterOrderOut(o *services.Order, r *orders.CounterReceipt) counterOrderJSON {
	out := counterOrderJSON{orderJSON: orderOut(o)}
	if o.Status == services.OrderPaid && d.Tickets != nil {
		out.TicketRef = d.Tickets.Ref(o)
		out.TicketPDF = "/orders/" + o.OrderNo + "/ticket.pdf"
	}
	if r != nil {
		out.Receipt = &receiptJSON{Tender: r.Tender, TenderedMinor: r.TenderedMinor, ChangeMinor: r.ChangeMinor}
		if r.ShiftID != nil {
			out.Receipt.ShiftID = optID(*r.ShiftID)
		}
	}
	return out
}
