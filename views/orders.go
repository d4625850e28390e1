package views

import (
	"time"

	"seatflow/services"
)

// OrderPageProps are the props of one order's page. Show may be nil when the show can
// no longer be read.
type OrderPageProps struct {
	Page
	Order *services.Order
	Show  *services.Show
	Now   time.Time
	Zone  *time.Location
	Error string
	// Payment is the payment the buyer just came back from (nil when none): a declined
	// or refunded one is told plainly.
	Payment *services.Payment
	// Chosen is set when the seats were picked for the buyer (best available).
	Chosen bool
	// SeatKinds maps the order's seat ids to their kind (wheelchair, companion); nil
	// when the hall could not be read.
	SeatKinds map[int64]string
	// TicketRef is the signed ticket reference of a paid order ("" otherwise: no ticket).
	TicketRef string
}

// PaymentNote tells how the payment the buyer came back from ended, or "" when there
// is nothing to say (no payment, or one that paid the order).
func (p OrderPageProps) PaymentNote() string {
	pay, o := p.Payment, p.Order
	if pay == nil || o == nil || pay.OrderNo != o.OrderNo {
		return ""
	}
	switch pay.Status {
	case "declined":
		if o.Status == services.OrderPending && p.Now.Before(o.ExpiresAt) {
			return "Your payment was declined; nothing was charged. You can try again before " + ClockTime(o.ExpiresAt, p.Zone) + "."
		}
		return "Your payment was declined; nothing was charged."
	case "refunded":
		after := "the deadline"
		if o.Status == services.OrderCancelled {
			after = "the order was cancelled"
		}
		return "Your payment of " + Money(pay.AmountMinor, pay.Currency) + " arrived after " + after + " and was refunded."
	}
	return ""
}

// SeatKindName is how a seat kind reads on the order ("wheelchair space",
// "companion seat"), "" for a standard seat.
func SeatKindName(kind string) string {
	switch kind {
	case services.KindWheelchair:
		return "wheelchair space"
	case services.KindCompanion:
		return "companion seat"
	}
	return ""
}

// KindSuffix is a seat kind after a label in lists: " (wheelchair space)", "" for a
// standard seat.
func KindSuffix(kind string) string {
	if k := SeatKindName(kind); k != "" {
		return " (" + k + ")"
	}
	return ""
}

// OrderListItem is one row of the order list.
type OrderListItem struct {
	Order *services.Order
	Show  *services.Show // nil when unknown
}

// OrdersPageProps are the props of the signed-in user's order list (newest first).
type OrdersPageProps struct {
	Page
	Orders []OrderListItem
	Now    time.Time
	Zone   *time.Location
}

// DemoPayProps are the props of the demo payment provider's page.
type DemoPayProps struct {
	Page
	Payment *services.Payment
	Error   string
}

// AuthFormProps are the props of the sign-in and register forms: what the user typed
// (never the password), where to go afterwards and what went wrong.
type AuthFormProps struct {
	Page
	Email string
	Name  string
	Next  string
	Error string
}

// ErrorPageProps are the props of an error page.
type ErrorPageProps struct {
	Page
	Status  int
	Message string
	// RetryAfterS is the wait in seconds a rate limit asks for (429), 0 otherwise.
	RetryAfterS int
	// TryURL is the page to load again (a local GET URL), "" when there is none.
	TryURL string
}

// RetryText is the rate limit's sentence: "Too many attempts — retry in 12 s."
func RetryText(seconds int) string {
	return "Too many attempts — retry in " + itoa(max(seconds, 1)) + " s."
}

// OrderURL is an order's page.
func OrderURL(no string) string { return "/orders/" + no }

// StatusView is how an order's status reads, as a badge.
type StatusView struct {
	Label string
	Class string
}

// OrderStatus describes an order's status at now; a pending order past its deadline
// reads as expired even before the expiry task has run.
func OrderStatus(o *services.Order, now time.Time) StatusView {
	switch o.Status {
	case services.OrderPending:
		if !now.Before(o.ExpiresAt) {
			return StatusView{"expired", "status-expired"}
		}
		return StatusView{"awaiting payment", "status-pending"}
	case services.OrderPaid:
		return StatusView{"paid", "status-paid"}
	case services.OrderCancelled:
		return StatusView{"cancelled", "status-cancelled"}
	case services.OrderExpired:
		return StatusView{"expired", "status-expired"}
	case services.OrderRefunded:
		return StatusView{"refunded", "status-refunded"}
	}
	return StatusView{o.Status, "status-other"}
}

// Deadline is the pay-by sentence of a pending order: "Pay by 19:45 (in 14 minutes)",
// with the day when the deadline is not today.
func Deadline(o *services.Order, now time.Time, loc *time.Location) string {
	at := ClockTime(o.ExpiresAt, loc)
	if inZone(o.ExpiresAt, loc).Format(time.DateOnly) != inZone(now, loc).Format(time.DateOnly) {
		at = DayTime(o.ExpiresAt, loc)
	}
	return "Pay by " + at + " (" + Until(o.ExpiresAt.Sub(now)) + ")"
}

// SecondsLeft is the whole seconds from now to a pending order's deadline (0 once
// passed): the page's countdown starts from this server time, never the client's clock.
func SecondsLeft(o *services.Order, now time.Time) int {
	if d := o.ExpiresAt.Sub(now); d > 0 {
		return int(d / time.Second)
	}
	return 0
}

// Clock formats seconds as "14:05" (minutes:seconds), "1:02:03" from an hour.
func Clock(seconds int) string {
	if seconds < 0 {
		seconds = 0
	}
	h, m, s := seconds/3600, seconds/60%60, seconds%60
	if h > 0 {
		return itoa(h) + ":" + pad2(uint64(m)) + ":" + pad2(uint64(s))
	}
	return itoa(m) + ":" + pad2(uint64(s))
}

// SeatLabels lists an order's seat labels: "F7, F8".
func SeatLabels(o *services.Order) string {
	out := ""
	for i, s := range o.Seats {
		if i > 0 {
			out += ", "
		}
		out += s.Label
	}
	return out
}

// ZoneName is the name of a show's zone, or the code when unknown.
func ZoneName(s *services.Show, code string) string {
	if s != nil {
		for _, z := range s.Zones {
			if z.Code == code {
				return z.Name
			}
		}
	}
	return code
}

// StatusTitle is the heading of an error page.
func StatusTitle(status int) string {
	switch status {
	case 400:
		return "That did not work"
	case 401:
		return "Please sign in"
	case 403:
		return "Not allowed"
	case 404:
		return "Not found"
	case 409:
		return "Conflict"
	case 413:
		return "Too large"
	case 422:
		return "Not possible"
	case 429:
		return "Slow down"
	case 503:
		return "Temporarily unavailable"
	}
	if status >= 500 {
		return "Something went wrong"
	}
	return "Error"
}

// EndedText explains how a cancelled or expired order ended:
// "Cancelled at Mon 30 Nov, 19:40 (cancelled by the buyer). The seats were released."
func EndedText(o *services.Order, loc *time.Location) string {
	s := "Cancelled"
	if o.Status == services.OrderExpired {
		s = "Expired: the payment deadline passed"
	}
	if o.CancelledAt != nil {
		s += " at " + DayTime(*o.CancelledAt, loc)
	}
	if o.Status == services.OrderCancelled && o.CancelReason != nil && *o.CancelReason != "" {
		s += " (" + *o.CancelReason + ")"
	}
	return s + ". The seats were released."
}
