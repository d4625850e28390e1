package views

import (
	"time"

	"seatflow/services"
)

// The statuses of a place on a waiting list (the values of the waitlist package's
// Status* constants).
const (
	WaitlistWaiting  = "waiting"
	WaitlistOffered  = "offered"
	WaitlistAccepted = "accepted"
	WaitlistLapsed   = "lapsed"
	WaitlistLeft     = "left"
	WaitlistClosed   = "closed"
)

// WaitlistEntry is one buyer's place on a show's waiting list: the seats asked for
// (Quantity, in Zone, "" for any), its Status (Waitlist* constants), the offer's order
// and its deadline (UTC; nil when none), and its Position among those waiting (1-based;
// 0 when not waiting).
type WaitlistEntry struct {
	ID             int64
	ShowID         int64
	UserID         int64
	UserEmail      string
	Quantity       int
	Zone           string
	Status         string
	OrderNo        string
	OrderStatus    string
	OfferExpiresAt *time.Time
	CreatedAt      time.Time
	Position       int
}

// WaitlistURL is the show's waiting-list panel (GET: the panel, for htmx to refresh;
// POST: join) and WaitlistLeaveURL the form that leaves it.
func WaitlistURL(showID int64) string      { return "/shows/" + i64(showID) + "/waitlist" }
func WaitlistLeaveURL(showID int64) string { return "/shows/" + i64(showID) + "/waitlist/leave" }

// WaitlistView is the waiting-list panel of a show page: the buyer's place (nil: none),
// its offer's order when offered, and whether the list takes new places now (the show
// is on sale and nearly sold out). Error is a refusal to show in the panel.
type WaitlistView struct {
	Show  *services.Show
	Entry *WaitlistEntry
	Offer *services.Order
	Open  bool
	Zone  *time.Location
	Error string
	Page  Page
	// Now is the server's time, which an offer's countdown starts from.
	Now time.Time
}

// Shown reports whether the panel has anything to say.
func (v *WaitlistView) Shown() bool { return v != nil && (v.Entry != nil || v.Open) }

// CanJoin reports whether the panel offers the join form: the list is open and the
// buyer has no open place.
func (v *WaitlistView) CanJoin() bool {
	if !v.Open {
		return false
	}
	if v.Entry == nil {
		return true
	}
	switch v.Entry.Status {
	case WaitlistWaiting, WaitlistOffered:
		return false
	}
	return true
}

// Live reports whether the panel refreshes itself (htmx, every 5 s): while the place
// waits or its offer is pending.
func (v *WaitlistView) Live() bool {
	return v.Entry != nil && (v.Entry.Status == WaitlistWaiting || v.Entry.Status == WaitlistOffered)
}

// Status is the panel's state for scripts, tests and its refresh (WaitlistURL's ?was=):
// "join" without a place, else the place's status (Waitlist* constants).
func (v *WaitlistView) Status() string {
	if v.Entry == nil {
		return "join"
	}
	return v.Entry.Status
}

// Offered reports whether seats are held for the buyer as the list's offer, with the
// offer's order known.
func (v *WaitlistView) Offered() bool {
	return v != nil && v.Entry != nil && v.Entry.Status == WaitlistOffered && v.Offer != nil
}

// Quantities are the quantities a buyer may ask for: 1 to the purchase limit.
func (v *WaitlistView) Quantities() []int {
	out := make([]int, v.Show.PurchaseLimit)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// OfferSeats names the offer's seats ("F7, F8").
func (v *WaitlistView) OfferSeats() string {
	if v.Offer == nil {
		return ""
	}
	s := ""
	for i, seat := range v.Offer.Seats {
		if i > 0 {
			s += ", "
		}
		s += seat.Label
	}
	return s
}

// ZoneName is the name of the place's zone, or "any zone" in l.
func (v *WaitlistView) ZoneName(l Lang) string {
	for _, z := range v.Show.Zones {
		if z.Code == v.Entry.Zone {
			return z.Name
		}
	}
	return l.T("waitlist.any_zone", nil)
}
