package handlers

import (
	"bytes"
	"context"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/views"
	"seatflow/views/ticketpdf"
)

// ticketPDF prints a paid order's tickets: GET /orders/{no}/ticket.pdf (its buyer, or
// staff of its cinema) -> application/pdf, a page per seat with the QR code and the door
// code, and a counter sale's receipt. A counter sale prints in the language its seller
// chose, an online order in the page's. 404 as the ticket page (staff: any order of
// their cinemas that is paid), 403 for limited staff on another cinema's order.
func (d *Deps) ticketPDF(c *fiber.Ctx) error {
	no, ok := orderNoParam(c)
	if !ok || d.Tickets == nil {
		return ticketError(c, errNoTicket)
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	u := currentUser(c)
	var o *services.Order
	var err error
	if u.Role == services.RoleStaff || u.Role == services.RoleAdmin {
		if err := d.staffMayRead(ctx, c, no); err != nil {
			return errorPage(c, err)
		}
		o, err = d.Orders.ByNo(ctx, no)
	} else {
		o, err = d.Orders.Get(ctx, u.ID, no)
	}
	if err != nil {
		return ticketError(c, err)
	}
	if o.Status != services.OrderPaid {
		return ticketError(c, errNoTicket)
	}
	doc, err := d.ticketDoc(c, o)
	if err != nil {
		return errorPage(c, err)
	}
	var buf bytes.Buffer
	if err := ticketpdf.Render(&buf, *doc); err != nil {
		return renderErrorPage(c, fiber.StatusInternalServerError, tr(c, "err.qr", nil))
	}
	c.Set(fiber.HeaderCacheControl, "private, no-cache")
	c.Set(fiber.HeaderContentDisposition, `inline; filename="tickets-`+o.OrderNo+`.pdf"`)
	c.Type("pdf")
	return c.Send(buf.Bytes())
}

// staffMayRead refuses (FORBIDDEN) limited staff an order of another cinema.
func (d *Deps) staffMayRead(ctx context.Context, c *fiber.Ctx, orderNo string) error {
	scope := cinemaScope(c)
	if scope.All() || d.Scopes == nil {
		return nil
	}
	cinema, found, err := d.Scopes.CinemaOf(ctx, "order", orderNo)
	if err != nil || !found {
		return err
	}
	return scope.Check(cinema)
}

// ticketDoc is the PDF's view of paid order o: its show in its cinema's zone, its seats
// with their zones' and ticket types' names, the ticket reference and door code, and a
// counter sale's receipt.
func (d *Deps) ticketDoc(c *fiber.Ctx, o *services.Order) (*ticketpdf.Doc, error) {
	ctx, cancel := ctxOf(c)
	defer cancel()
	lang := langOf(c)
	var receipt *ticketpdf.Receipt
	if o.Channel == services.ChannelBoxOffice && d.BoxOffice != nil {
		r, err := d.BoxOffice.Receipt(ctx, o.ID)
		if err != nil {
			return nil, err
		}
		if r != nil {
			if r.Lang == "zh" {
				lang = views.ZhHans
			} else {
				lang = views.En
			}
			receipt = &ticketpdf.Receipt{Total: services.Money(o.TotalMinor, o.Currency), Tender: r.Tender,
				Tendered: services.Money(r.TenderedMinor, o.Currency), Change: services.Money(r.ChangeMinor, o.Currency)}
			if o.VoucherID != nil {
				receipt.Discount, receipt.Voucher = services.Money(o.DiscountMinor, o.Currency), o.Voucher
			}
		}
	}
	show, err := d.Shows.Get(ctx, o.ShowID)
	if err != nil && services.ErrorCode(err) != services.CodeNotFound {
		return nil, err
	}
	if err != nil {
		show = nil // a show gone from the programme: the tickets still stand
	}
	loc := d.showZone(show)
	lctx := views.WithLang(ctx, lang)
	doc := &ticketpdf.Doc{Lang: string(lang), OrderNo: o.OrderNo, Ref: d.Tickets.Ref(o), Code: d.ticketCode(ctx, o),
		Fonts: ticketpdf.FindFonts(), Receipt: receipt}
	if lang == views.ZhHans {
		doc.Lang = "zh"
	}
	const layout = "Mon 2 Jan 2006 15:04 MST"
	if show != nil {
		doc.Movie, doc.Cinema, doc.Hall = show.Movie.Title, show.CinemaName, show.HallName
		doc.Starts = show.StartsAt.In(loc).Format(layout)
	}
	if receipt != nil && o.PaidAt != nil {
		receipt.PaidAt = o.PaidAt.In(loc).Format(layout)
	}
	for _, s := range o.KeptSeats() { // a refunded seat gets no ticket
		doc.Seats = append(doc.Seats, ticketpdf.Seat{Label: s.Label, Zone: views.ZoneName(show, s.ZoneCode),
			TicketType: views.TicketTypeName(lctx, ticketTypeOrAdult(s.TicketType)), Price: services.Money(s.PriceMinor, o.Currency)})
	}
	return doc, nil
}
