package handlers

import (
	"github.com/gofiber/fiber/v2"
	qrcode "github.com/skip2/go-qrcode"

	"seatflow/services"
	"seatflow/views"
)

// ticketQRModulePixels is how many pixels wide one module (square) of a ticket's QR
// code is: whole pixels keep the modules sharp, and the page scales the image down.
const ticketQRModulePixels = 8

// ticketPage is the printable ticket of one of the signed-in user's paid orders; 404
// for an order of someone else, an unknown order, or one that is not paid (no ticket).
func (d *Deps) ticketPage(c *fiber.Ctx) error {
	t, err := d.paidTicket(c)
	if err != nil {
		return ticketError(c, err)
	}
	return render(c, fiber.StatusOK, views.TicketPage(views.TicketPageProps{
		Page:   page(c, tr(c, "ticket.title", nil)+" "+t.Order.OrderNo),
		Ticket: *t,
	}))
}

// ticketImage is the QR code (PNG) of the signed ticket reference of one of the
// signed-in user's paid orders; 404 as ticketPage.
func (d *Deps) ticketImage(c *fiber.Ctx) error {
	t, err := d.paidTicket(c)
	if err != nil {
		return ticketError(c, err)
	}
	png, err := qrcode.Encode(t.Ref, qrcode.Medium, -ticketQRModulePixels)
	if err != nil {
		return renderErrorPage(c, fiber.StatusInternalServerError, tr(c, "err.qr", nil))
	}
	c.Set(fiber.HeaderCacheControl, "private, no-cache")
	c.Type("png")
	return c.Send(png)
}

// errNoTicket is the answer for an order without a ticket the signed-in user may see.
var errNoTicket = &services.Error{Code: services.CodeNotFound, Message: "There is no ticket for this order in your account."}

// ticketError renders err as ticketPage's error page: 404 for a missing ticket.
func ticketError(c *fiber.Ctx, err error) error {
	if services.ErrorCode(err) == services.CodeNotFound {
		return renderErrorPage(c, fiber.StatusNotFound, errNoTicket.Message)
	}
	return errorPage(c, err)
}

// paidTicket reads the order :no of the signed-in user and makes its ticket: the show,
// the seats' kinds and the signed reference. Errors: NOT_FOUND (malformed number,
// someone else's or unknown order, not paid), UNAVAILABLE.
func (d *Deps) paidTicket(c *fiber.Ctx) (*views.TicketView, error) {
	no, ok := orderNoParam(c)
	if !ok || d.Tickets == nil {
		return nil, errNoTicket
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	o, err := d.Orders.Get(ctx, currentUser(c).ID, no)
	if err != nil {
		return nil, err
	}
	if o.Status != services.OrderPaid {
		return nil, errNoTicket
	}
	t := &views.TicketView{Order: o, Zone: d.Shows.Zone(), Ref: d.Tickets.Ref(o), Code: d.ticketCode(ctx, o)}
	if t.Show, err = d.Shows.Get(ctx, o.ShowID); err != nil {
		if services.ErrorCode(err) != services.CodeNotFound {
			return nil, err
		}
		t.Show = nil // a show gone from the public programme: the ticket still stands
	}
	t.Zone, t.CinemaName = d.showZone(t.Show), d.chainCinema(ctx, t.Show)
	if t.Show != nil {
		t.SeatKinds = d.seatKinds(c, t.Show.ID)
	}
	return t, nil
}

// seatKinds maps the seat ids of a show's hall to their kind; nil when the hall cannot
// be read (the ticket then leaves the kinds out).
func (d *Deps) seatKinds(c *fiber.Ctx, showID int64) map[int64]string {
	ctx, cancel := ctxOf(c)
	defer cancel()
	m, err := d.Shows.SeatMap(ctx, showID)
	if err != nil {
		return nil
	}
	kinds := make(map[int64]string, len(m.Hall.Seats))
	for _, st := range m.Hall.Seats {
		kinds[st.ID] = st.Kind
	}
	return kinds
}
