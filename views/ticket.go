package views

import (
	"time"

	"seatflow/services"
)

// TicketView is a paid order's ticket: its show (nil when the show can no longer be
// read), seats with their kinds, the signed ticket reference the QR code carries and
// the short code staff can type instead.
type TicketView struct {
	Order *services.Order
	Show  *services.Show
	Zone  *time.Location
	// CinemaName is the show's cinema when the install has more than one; "" otherwise.
	CinemaName string
	// SeatKinds maps the order's seat ids to their kind; nil when unknown.
	SeatKinds map[int64]string
	// Ref is the signed ticket reference (orders.Tickets.Ref).
	Ref string
	// Code is the ticket's short code as staff type it at the door, shown in two groups
	// ("K3M9P-QR7TX", orders.FormatTicketCode); "" when it could not be read.
	Code string
}

// TicketPageProps are the props of the printable ticket page.
type TicketPageProps struct {
	Page
	Ticket TicketView
}

// CalendarURL is the calendar file (.ics) of a paid order's show.
func CalendarURL(no string) string { return OrderURL(no) + "/calendar.ics" }

// TicketURL is the printable page of an order's ticket.
func TicketURL(no string) string { return OrderURL(no) + "/ticket" }

// TicketImageURL is the QR code (PNG) of an order's ticket.
func TicketImageURL(no string) string { return OrderURL(no) + "/ticket.png" }

// TicketSeatText is one seat as the ticket reads in l: "F7", with the zone and the kind
// when they say something ("F7 · Premium · wheelchair space").
func (l Lang) TicketSeatText(t TicketView, s services.OrderSeat) string {
	out := s.Label
	if z := ZoneName(t.Show, s.ZoneCode); z != "" {
		out += " · " + z
	}
	if k := l.SeatKindName(t.SeatKinds[s.SeatID]); k != "" {
		out += " · " + k
	}
	return out
}
