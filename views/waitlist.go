package views

import (
	"time"

	"seatflow/services"
	"seatflow/services/waitlist"
)

// WaitlistURL is the show's waiting-list panel (GET: the panel, for htmx to refresh;
// POST: join) and WaitlistLeaveURL the form that leaves it.
func WaitlistURL(showID int64) string      { return "/shows/" + i64(showID) + "/waitlist" }
func WaitlistLeaveURL(showID int64) string { return "/shows/" + i64(showID) + "/waitlist/leave" }

// WaitlistView is the waiting-list panel of a show page: the buyer's place (nil: none),
// its offer's order when offered, and whether the list takes new places now (the show
// is on sale and nearly sold out). Error is a refusal to show in the panel.
type WaitlistView struct {
	Show  *services.Show
	Entry *waitlist.Entry
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
	case waitlist.StatusWaiting, waitlist.StatusOffered:
		return false
	}
	return true
}

// Live reports whether the panel refreshes itself (htmx, every 5 s): while the place
// waits or its offer is pending.
func (v *WaitlistView) Live() bool {
	return v.Entry != nil && (v.Entry.Status == waitlist.StatusWaiting || v.Entry.Status == waitlist.StatusOffered)
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
