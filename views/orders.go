package views

import (
	"time"

	"github.com/a-h/templ"

	"seatflow/services"
)

// OrderPageProps are the props of one order's page. Show may be nil when the show can
// no longer be read.
type OrderPageProps struct {
	Page
	Order *services.Order
	Show  *services.Show
	// CinemaName is the show's cinema when the install has more than one; "" otherwise.
	CinemaName string
	Now        time.Time
	Zone       *time.Location
	Error      string
	// Payment is the payment the buyer just came back from (nil when none): a declined
	// or refunded one is told plainly.
	Payment *Payment
	// Chosen is set when the seats were picked for the buyer (best available).
	Chosen bool
	// Stranded names the single empty seats the order left when it was booked (the
	// single-seat rule's warn), told once on the page the booking leads to.
	Stranded []string
	// SeatKinds maps the order's seat ids to their kind (wheelchair, companion); nil
	// when the hall could not be read.
	SeatKinds map[int64]string
	// TicketRef is the signed ticket reference of a paid order ("" otherwise: no ticket).
	TicketRef string
	// TicketCode is the paid order's ticket code as shown ("" when none could be read).
	TicketCode string
	// SelfRefundUntil is until when (UTC) the buyer may cancel and refund this paid
	// order themselves (nil: the show does not allow it).
	SelfRefundUntil *time.Time
	// CanExchange offers "Change seats" (a pending or paid order of a show not yet
	// started); Exchanged tells, once, that the order has just moved to its seats.
	CanExchange bool
	Exchanged   bool
}

// CanSelfRefund reports whether the page offers the buyer to cancel and refund the
// paid order now (before the show's cut-off).
func (p OrderPageProps) CanSelfRefund() bool {
	return p.Order.Status == services.OrderPaid && p.SelfRefundUntil != nil && p.Now.Before(*p.SelfRefundUntil)
}

// KeptMinor is what the buyer paid for the seats the order still has (what a
// self-refund gives back).
func KeptMinor(o *services.Order) int64 {
	var n int64
	for _, s := range o.KeptSeats() {
		n += s.PriceMinor
	}
	return n
}

// ExchangeURL is an order's seat picker in exchange mode (GET) and its form (POST).
func ExchangeURL(no string) string { return "/orders/" + no + "/exchange" }

// PaymentNote tells how the payment the buyer came back from ended, or "" when there
// is nothing to say (no payment, or one that paid the order). A refunded payment is
// told with the order's end reason (EndedText): the show cancelled, a late payment, ...
func (p OrderPageProps) PaymentNote() string {
	pay, o, l := p.Payment, p.Order, p.Lang
	if pay == nil || o == nil || pay.OrderNo != o.OrderNo {
		return ""
	}
	switch pay.Status {
	case "declined":
		if o.Status == services.OrderPending && p.Now.Before(o.ExpiresAt) {
			return l.T("pay.declined_retry", D{"Time": ClockTime(o.ExpiresAt, p.Zone)})
		}
		return l.T("pay.declined", nil)
	case "refunded":
		if o.End != nil {
			return l.EndedText(o, p.Zone)
		}
		return l.T("pay.refunded_late", D{"Amount": l.Money(pay.AmountMinor, pay.Currency)})
	}
	return ""
}

// EndToldAbove reports whether the payment note (PaymentNote) already tells why the
// order ended: the buyer came back from a refunded payment of an order whose reason
// was read.
func (p OrderPageProps) EndToldAbove() bool {
	return p.Payment != nil && p.Order != nil && p.Payment.Status == "refunded" && p.Order.End != nil &&
		p.Payment.OrderNo == p.Order.OrderNo
}

// ReasonText is a cancel or refund reason in l: the reason the system itself writes
// ("cancelled by the buyer") is translated; a reason staff typed is shown as written.
func (l Lang) ReasonText(reason string) string {
	if id, ok := systemReasons[reason]; ok {
		return l.T(id, nil)
	}
	return reason
}

// systemReasons are the cancel reasons the services write, by their message id.
var systemReasons = map[string]string{"cancelled by the buyer": "order.reason.buyer"}

// PaidText is the paid sentence of a paid order: "Paid at Mon 30 Nov, 19:40.", or
// "Paid." when the time is unknown.
func (p OrderPageProps) PaidText() string {
	if p.Order.PaidAt != nil {
		return p.Lang.T("order.paid_at", D{"When": p.Lang.DayTime(*p.Order.PaidAt, p.Zone)})
	}
	return p.Lang.T("order.paid", nil)
}

// SeatKindName is how a seat kind reads on the order in l ("wheelchair space",
// "companion seat"; "轮椅位", "陪同座"), "" for a standard seat.
func (l Lang) SeatKindName(kind string) string {
	switch kind {
	case services.KindWheelchair:
		return l.T("kind.wheelchair", nil)
	case services.KindCompanion:
		return l.T("kind.companion", nil)
	}
	return ""
}

// KindSuffix is a seat kind after a label in lists, in l: " (wheelchair space)"
// (Chinese "（轮椅位）"), "" for a standard seat.
func (l Lang) KindSuffix(kind string) string {
	if k := l.SeatKindName(kind); k != "" {
		return l.T("kind.suffix", D{"Kind": k})
	}
	return ""
}

// OrderListItem is one row of the order list.
type OrderListItem struct {
	Order *services.Order
	Show  *services.Show // nil when unknown
	// CinemaName is the show's cinema when the install has more than one; "" otherwise.
	CinemaName string
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
	Payment *Payment
	Error   string
	// Deadline is the payment deadline of the payment's order while it is pending (zero
	// otherwise), counted down from the server's Now; Zone is the cinema's time zone.
	Deadline time.Time
	Now      time.Time
	Zone     *time.Location
}

// AuthFormProps are the props of the sign-in and register forms: what the user typed
// (never the password), where to go afterwards and what went wrong.
type AuthFormProps struct {
	Page
	Email string
	Name  string
	Next  string
	Error string
	// Notice is good news above the form (the password was just reset).
	Notice string
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

// OrderURL is an order's page.
func OrderURL(no string) string { return "/orders/" + no }

// StatusView is how an order's status reads, as a badge.
type StatusView struct {
	Label string
	Class string
}

// OrderStatus describes an order's status at now; a pending order past its deadline
// reads as expired even before the expiry task has run.
func OrderStatus(o *services.Order, now time.Time) StatusView { return En.OrderStatus(o, now) }

// OrderStatus is OrderStatus with the label in l.
func (l Lang) OrderStatus(o *services.Order, now time.Time) StatusView {
	switch o.Status {
	case services.OrderPending:
		if !now.Before(o.ExpiresAt) {
			return StatusView{l.T("order.status.expired", nil), "status-expired"}
		}
		return StatusView{l.T("order.status.pending", nil), "status-pending"}
	case services.OrderPaid:
		return StatusView{l.T("order.status.paid", nil), "status-paid"}
	case services.OrderCancelled:
		return StatusView{l.T("order.status.cancelled", nil), "status-cancelled"}
	case services.OrderExpired:
		return StatusView{l.T("order.status.expired", nil), "status-expired"}
	case services.OrderRefunded:
		return StatusView{l.T("order.status.refunded", nil), "status-refunded"}
	}
	return StatusView{o.Status, "status-other"}
}

// Deadline is the pay-by sentence of a pending order in l: "Pay by 19:45 (in 14
// minutes)" ("请在19:45前付款（14分钟后）"), with the day when the deadline is not today.
func (l Lang) Deadline(o *services.Order, now time.Time, loc *time.Location) string {
	at := ClockTime(o.ExpiresAt, loc)
	if inZone(o.ExpiresAt, loc).Format(time.DateOnly) != inZone(now, loc).Format(time.DateOnly) {
		at = l.DayTime(o.ExpiresAt, loc)
	}
	return l.T("order.deadline", D{"At": at, "Until": l.Until(o.ExpiresAt.Sub(now))})
}

// PayBy is the pay-by sentence without how long is left: "Pay by 19:45", with the day
// when the deadline is not today (in loc).
func (l Lang) PayBy(deadline, now time.Time, loc *time.Location) string {
	return l.T("order.pay_by", D{"At": l.DeadlineAt(deadline, now, loc)})
}

// DeadlineAt is a deadline's time in loc ("19:45"), with the day when it is not the
// day of now ("Tue 1 Dec, 09:15").
func (l Lang) DeadlineAt(deadline, now time.Time, loc *time.Location) string {
	if inZone(deadline, loc).Format(time.DateOnly) != inZone(now, loc).Format(time.DateOnly) {
		return l.DayTime(deadline, loc)
	}
	return ClockTime(deadline, loc)
}

// UntilParen is how long is left, in brackets after PayBy: " (in 14 minutes)". Pages
// mark it data-countdown-static: the live countdown replaces it.
func (l Lang) UntilParen(d time.Duration) string {
	return l.T("order.until_paren", D{"Until": l.Until(d)})
}

// Countdown are the data attributes static/js/order.js counts down to deadline from:
// the deadline and the server's now (RFC 3339 in UTC, milliseconds), so the client's
// clock never matters, and the whole seconds left (data-seconds-left, 0 once passed).
func Countdown(deadline, now time.Time) templ.Attributes {
	left := SecondsLeftUntil(deadline, now)
	return templ.Attributes{
		"data-countdown":    true,
		"data-deadline":     deadline.UTC().Format(countdownTime),
		"data-server-now":   now.UTC().Format(countdownTime),
		"data-seconds-left": itoa(left),
	}
}

const countdownTime = "2006-01-02T15:04:05.000Z07:00"

// SecondsLeft is the whole seconds from now to a pending order's deadline (0 once
// passed): the page's countdown starts from this server time, never the client's clock.
func SecondsLeft(o *services.Order, now time.Time) int { return SecondsLeftUntil(o.ExpiresAt, now) }

// SecondsLeftUntil is the whole seconds from now to deadline, 0 once passed.
func SecondsLeftUntil(deadline, now time.Time) int {
	if d := deadline.Sub(now); d > 0 {
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

// SeatLabels lists the labels of the seats an order keeps (not those refunded): "F7, F8".
func SeatLabels(o *services.Order) string {
	out := ""
	for i, s := range o.KeptSeats() {
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

// StatusTitle is the heading of an error page, in English (Lang.StatusTitle for the
// page's language).
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

// EndedText explains in l how an ended order (cancelled, expired, refunded) ended, from
// its End reason (services.DecideEndReason): "The show was cancelled, so this order was
// refunded at Mon 30 Nov, 19:40: your payment of ¥90.00 goes back to you." Staff's own
// words are shown as written. An order read without its reason (End nil) is told from
// its status and cancel reason alone.
func (l Lang) EndedText(o *services.Order, loc *time.Location) string {
	if o.End == nil {
		return l.endedByStatus(o, loc)
	}
	id := "order.end." + o.End.Code
	if o.End.Code == services.EndShowCancelled && o.Status == services.OrderRefunded {
		id += "_refunded"
	}
	amount := o.TotalMinor
	if o.Status == services.OrderRefunded && o.RefundedMinor > 0 {
		amount = o.RefundedMinor // all its refunds, an earlier one of some seats too
	}
	d := D{"Amount": l.Money(amount, o.Currency), "At": "", "Note": ""}
	if o.CancelledAt != nil {
		d["At"] = l.T("order.end.at", D{"When": l.DayTime(*o.CancelledAt, loc)})
	}
	if o.End.Note != "" {
		d["Note"] = l.T("order.end.note", D{"Note": o.End.Note})
	}
	text := l.T(id, d)
	if o.End.PaymentRefunded && o.Status == services.OrderCancelled {
		text = l.Sentences(text, l.T("order.end.payment_refunded_after", d))
	}
	return text
}

// EndedWhy is the few words the order list gives for why an order ended ("show
// cancelled"), "" while it has not ended or its reason was not read.
func (l Lang) EndedWhy(o *services.Order) string {
	if o.End == nil {
		return ""
	}
	return l.T("order.why."+o.End.Code, nil)
}

// endedByStatus is EndedText for an order without its End reason.
func (l Lang) endedByStatus(o *services.Order, loc *time.Location) string {
	if o.Status == services.OrderRefunded {
		reason := ""
		if r := o.CancelReason; r != nil && *r != "" {
			reason = l.T("order.refund_reason", D{"Reason": l.ReasonText(*r)})
		}
		return l.Sentences(l.T("order.refunded", nil), reason)
	}
	id := "order.ended.cancelled"
	if o.Status == services.OrderExpired {
		id = "order.ended.expired"
	}
	when, reason := "", ""
	if o.CancelledAt != nil {
		when = l.DayTime(*o.CancelledAt, loc)
		id += "_at"
	}
	if o.Status == services.OrderCancelled && o.CancelReason != nil && *o.CancelReason != "" {
		reason = l.T("order.ended.reason", D{"Reason": l.ReasonText(*o.CancelReason)})
	}
	return l.T(id, D{"When": when, "Reason": reason})
}

// Payment is one payment of an order: PaymentID is the provider's reference, amounts
// are in minor units of Currency, Status is the payment's status ("started",
// "approved", "declined", "refunded").
type Payment struct {
	ID          int64
	PaymentID   string
	OrderID     int64
	Provider    string
	AmountMinor int64
	// RefundedMinor is how much of AmountMinor refunds gave back
	RefundedMinor int64
	Currency      string
	Status        string
	CreatedAt     time.Time
	OrderNo       string
}

// HallPlace is where a show plays, in one line: "seatflow London · Screen 2", or the
// hall alone when cinema is "" (a single-cinema install).
func HallPlace(cinema, hall string) string {
	if cinema == "" {
		return hall
	}
	return cinema + " · " + hall
}
