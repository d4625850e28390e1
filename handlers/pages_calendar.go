package handlers

import (
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/views"
)

// calendarFile is the iCalendar file (text/calendar, RFC 5545) of one of the signed-in
// user's paid orders, written in the buyer's page language (views.LangOf of the
// request's user context, with the LANGUAGE parameter): the show's movie title and
// hall, from its start to start + runtime (UTC), at the show's cinema (its name; the
// install's CinemaName for a show read without it), the hall
// and seats in the description, UID
// "<order_no>@seatflow" (stable, so importing it again updates the event) and DTSTAMP
// the time it was paid. 404 as the ticket page: someone else's order, unknown, not
// paid, or its show gone.
func (d *Deps) calendarFile(c *fiber.Ctx) error {
	t, err := d.paidTicket(c)
	if err != nil {
		return ticketError(c, err)
	}
	if t.Show == nil {
		return ticketError(c, errNoTicket)
	}
	o, s := t.Order, t.Show
	stamp := o.CreatedAt
	if o.PaidAt != nil {
		stamp = *o.PaidAt
	}
	labels := make([]string, len(o.Seats))
	for i, st := range o.Seats {
		labels[i] = st.Label
		if views.TicketCode(st.TicketType) != services.TicketAdult {
			labels[i] += " (" + views.TicketTypeName(c.UserContext(), st.TicketType) + ")" // the type printed per seat
		}
	}
	l := langOf(c)
	desc := strings.Join([]string{l.T("ics.hall", views.D{"Hall": s.HallName}), l.T("ics.seats", views.D{"Seats": strings.Join(labels, ", ")}),
		l.T("ics.order", views.D{"No": o.OrderNo})}, "\n")
	name := s.CinemaName
	if name == "" {
		name = d.CinemaName
	}
	if name == "" {
		name = "seatflow"
	}
	ics := views.ICS(views.CalendarEvent{
		UID: o.OrderNo + "@seatflow", Stamp: stamp,
		Start: s.StartsAt, End: s.StartsAt.Add(time.Duration(s.Movie.RuntimeMin) * time.Minute),
		Summary:  l.T("ics.summary", views.D{"Movie": s.Movie.Title, "Hall": s.HallName}),
		Location: name, Description: desc, Lang: l.Tag(),
	})
	c.Set(fiber.HeaderContentType, "text/calendar; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="seatflow-`+o.OrderNo+`.ics"`)
	c.Set(fiber.HeaderCacheControl, "private, no-cache")
	return c.Send(ics)
}
