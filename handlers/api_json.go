package handlers

import (
	"strconv"
	"time"

	"seatflow/services"
	"seatflow/services/seats"
)

// JSON shapes of API.md. Every id is a string; times are RFC 3339 UTC; money is minor
// units with a currency code.

type movieJSON struct {
	ID         string `json:"id"`
	Title      string `json:"title"`
	RuntimeMin int    `json:"runtime_min"`
}

type hallJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type zoneJSON struct {
	Code       string `json:"code"`
	Name       string `json:"name"`
	PriceMinor int64  `json:"price_minor"`
	Currency   string `json:"currency"`
	SeatsLeft  int    `json:"seats_left"`
}

type showJSON struct {
	ID            string     `json:"id"`
	Movie         movieJSON  `json:"movie"`
	Hall          hallJSON   `json:"hall"`
	Cinema        cinemaRef  `json:"cinema"`
	StartsAt      string     `json:"starts_at"`
	SaleOpensAt   string     `json:"sale_opens_at"`
	SaleClosesAt  string     `json:"sale_closes_at"`
	Status        string     `json:"status"`
	SeatsLeft     int        `json:"seats_left"`
	Zones         []zoneJSON `json:"zones,omitempty"`
	PurchaseLimit int        `json:"purchase_limit,omitempty"`
	HoldMinutes   int        `json:"hold_minutes,omitempty"`
	// WaitingRoom: only buyers the show's waiting room admitted may create orders
	// (API.md "Waiting room"); AdmitPerMinute is its pace, in the detail of such a show.
	WaitingRoom    bool `json:"waiting_room"`
	AdmitPerMinute int  `json:"admit_per_minute,omitempty"`
	// SingleSeatRule is off, warn or enforce (API.md "Seat rules and the waiting list").
	SingleSeatRule string `json:"single_seat_rule"`
	// SelfRefundUntilH: buyers may cancel and refund a paid order until that many hours
	// before the start (null: not allowed; API.md "Refunds").
	SelfRefundUntilH *int `json:"self_refund_until_h"`
}

type seatJSON struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	Row   int    `json:"row"`
	Col   int    `json:"col"`
	Zone  string `json:"zone"`
	Kind  string `json:"kind"`
	State string `json:"state"`
}

type seatMapJSON struct {
	ShowID string     `json:"show_id"`
	Rows   int        `json:"rows"`
	Cols   int        `json:"cols"`
	Seats  []seatJSON `json:"seats"`
}

type orderSeatJSON struct {
	ID         string `json:"id"`
	Label      string `json:"label"`
	Zone       string `json:"zone"`
	TicketType string `json:"ticket_type"`
	PriceMinor int64  `json:"price_minor"`
	// DiscountMinor is what the order's voucher took off this seat (price_minor is
	// after it); absent on a seat it does not cover.
	DiscountMinor *int64 `json:"discount_minor,omitempty"`
	// Refunded: a refund gave the seat back (API.md "Refunds").
	Refunded bool `json:"refunded"`
}

type orderJSON struct {
	OrderNo    string          `json:"order_no"`
	Status     string          `json:"status"`
	ShowID     string          `json:"show_id"`
	TotalMinor int64           `json:"total_minor"`
	Currency   string          `json:"currency"`
	CreatedAt  string          `json:"created_at"`
	ExpiresAt  string          `json:"expires_at"`
	Seats      []orderSeatJSON `json:"seats"`
	// RefundedMinor is the money all refunds of the order gave back so far.
	RefundedMinor int64 `json:"refunded_minor"`
	// Voucher is the code the order used and DiscountMinor its saving (total_minor is
	// after it); both absent without a voucher.
	Voucher       string `json:"voucher,omitempty"`
	DiscountMinor *int64 `json:"discount_minor,omitempty"`
	PaidAt        string `json:"paid_at,omitempty"`
	CancelledAt   string `json:"cancelled_at,omitempty"`
	CancelReason  string `json:"cancel_reason,omitempty"`
	// EndReason is why the order ended (services.DecideEndReason's code), absent while
	// it is pending or paid.
	EndReason string `json:"end_reason,omitempty"`
	// TicketRef is the signed ticket reference of a paid order (its QR code) and
	// TicketURL the address of its QR image; both only on the buyer's own paid orders.
	TicketRef string `json:"ticket_ref,omitempty"`
	TicketURL string `json:"ticket_url,omitempty"`
	// TicketCode is the ticket's short code as staff type it at the door ("K3M9P-QR7TX",
	// orders.FormatTicketCode); only in GET /api/v1/orders/{no} of a paid order.
	TicketCode string `json:"ticket_code,omitempty"`
	// Stranded names the lone empty seats the order left when it was created (the
	// single-seat rule's warn, or a best-available fallback); only in the 201 answer.
	Stranded []string `json:"stranded,omitempty"`
	// Channel is where it was sold (online, box_office); SoldBy the staff member who
	// sold it at the counter (absent online).
	Channel string  `json:"channel"`
	SoldBy  *string `json:"sold_by,omitempty"`
}

func id(n int64) string { return strconv.FormatInt(n, 10) }

func rfc(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func showOut(s *services.Show, detail bool, holdFor time.Duration) showJSON {
	out := showJSON{
		ID:               id(s.ID),
		Movie:            movieJSON{ID: id(s.Movie.ID), Title: s.Movie.Title, RuntimeMin: s.Movie.RuntimeMin},
		Hall:             hallJSON{ID: id(s.HallID), Name: s.HallName},
		Cinema:           cinemaRef{ID: id(s.CinemaID), Name: s.CinemaName},
		StartsAt:         rfc(s.StartsAt),
		SaleOpensAt:      rfc(s.SaleOpensAt),
		SaleClosesAt:     rfc(s.SaleClosesAt),
		Status:           s.Status,
		SeatsLeft:        s.SeatsLeft,
		WaitingRoom:      s.WaitingRoom,
		SingleSeatRule:   s.SingleSeatRule,
		SelfRefundUntilH: s.SelfRefundUntilH,
	}
	if out.SingleSeatRule == "" {
		out.SingleSeatRule = seats.RuleOff
	}
	if detail && s.WaitingRoom {
		out.AdmitPerMinute = s.AdmitPerMinute
	}
	if detail {
		out.Zones = make([]zoneJSON, len(s.Zones))
		for i, z := range s.Zones {
			out.Zones[i] = zoneJSON{Code: z.Code, Name: z.Name, PriceMinor: z.PriceMinor, Currency: s.Currency, SeatsLeft: z.SeatsLeft}
		}
		out.PurchaseLimit = s.PurchaseLimit
		// whole minutes, rounded up: a hold shorter than a minute (a test setting) still says 1
		out.HoldMinutes = int((holdFor + time.Minute - 1) / time.Minute)
	}
	return out
}

// seatOut is one seat of the API's seat map in state (a blocked seat reads as a
// standard one whose state is blocked): GET .../seats writes these through a
// seatMapLayout.
func seatOut(s services.Seat, state string) seatJSON {
	kind := s.Kind
	if kind == services.KindBlocked {
		kind = services.KindStandard
	}
	return seatJSON{ID: id(s.ID), Label: s.Label, Row: s.Row, Col: s.Col, Zone: s.ZoneCode, Kind: kind, State: state}
}

func orderOut(o *services.Order) orderJSON {
	out := orderJSON{OrderNo: o.OrderNo, Status: o.Status, ShowID: id(o.ShowID), TotalMinor: o.TotalMinor,
		Currency: o.Currency, CreatedAt: rfc(o.CreatedAt), ExpiresAt: rfc(o.ExpiresAt), Seats: make([]orderSeatJSON, len(o.Seats)),
		Stranded: o.Stranded, Channel: o.Channel, RefundedMinor: o.RefundedMinor}
	if out.Channel == "" {
		out.Channel = services.ChannelOnline
	}
	if o.SoldBy != nil {
		out.SoldBy = optID(*o.SoldBy)
	}
	for i, s := range o.Seats {
		out.Seats[i] = orderSeatJSON{ID: id(s.SeatID), Label: s.Label, Zone: s.ZoneCode, TicketType: ticketTypeOrAdult(s.TicketType), PriceMinor: s.PriceMinor,
			DiscountMinor: s.DiscountMinor, Refunded: s.Refunded}
	}
	if o.VoucherID != nil {
		d := o.DiscountMinor
		out.Voucher, out.DiscountMinor = o.Voucher, &d
	}
	if o.PaidAt != nil {
		out.PaidAt = rfc(*o.PaidAt)
	}
	if o.CancelledAt != nil {
		out.CancelledAt = rfc(*o.CancelledAt)
	}
	if o.CancelReason != nil {
		out.CancelReason = *o.CancelReason
	}
	if o.End != nil {
		out.EndReason = o.End.Code
	}
	return out
}

// buyerOrderOut is orderOut for the buyer's own order: a paid one also carries its
// ticket reference and the address of its QR image (GET /orders/{no}/ticket.png).
func (d *Deps) buyerOrderOut(o *services.Order) orderJSON {
	out := orderOut(o)
	if o.Status == services.OrderPaid && d.Tickets != nil {
		out.TicketRef = d.Tickets.Ref(o)
		out.TicketURL = "/orders/" + o.OrderNo + "/ticket.png"
	}
	return out
}

// optID is n as an id string, or nil for 0 (none).
func optID(n int64) *string {
	if n == 0 {
		return nil
	}
	s := id(n)
	return &s
}

// optString is s, or nil when it is empty.
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
