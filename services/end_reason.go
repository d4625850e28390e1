package services

// Why an order ended, as the order page, the order list and the order JSON
// ("end_reason") tell it. Each is derived from stored facts by DecideEndReason.
const (
	EndCancelledByBuyer    = "cancelled_by_buyer"    // the buyer cancelled (or left the waiting list holding an offer)
	EndExpired             = "expired"               // the payment deadline passed
	EndOfferLapsed         = "offer_lapsed"          // a waiting-list offer was not paid in time
	EndCancelledByStaff    = "cancelled_by_staff"    // staff released a seat it held (Note: their reason)
	EndRefundedByStaff     = "refunded_by_staff"     // staff refunded the paid order (Note: their reason)
	EndRefundedByBuyer     = "refunded_by_buyer"     // the buyer cancelled the paid order in time and got the money back
	EndShowCancelled       = "show_cancelled"        // the show was cancelled: a pending order cancelled, a paid one refunded
	EndLatePaymentRefunded = "late_payment_refunded" // a payment arrived after the deadline and was refunded
)

// The cancel reasons the services write themselves (orders.cancel_reason); any other
// reason was typed by staff.
const (
	ReasonBuyer         = "cancelled by the buyer"
	ReasonBuyerRefund   = "cancelled and refunded by the buyer"
	ReasonDeadline      = "payment deadline passed"
	ReasonShowCancelled = "the show was cancelled"
)

// EndReason is why an order ended: Code (one of the End* constants), Note (the reason
// staff typed, "" when none or a system reason) and PaymentRefunded (a payment of the
// order was refunded: a paid order refunded, or a payment that arrived too late).
type EndReason struct {
	Code            string
	Note            string
	PaymentRefunded bool
}

// EndFacts are the stored facts besides the order's own columns that decide its end
// reason: its show's status is cancelled, one of its payments has status refunded, and
// the order is a waiting-list offer (waitlist_entries.order_no names it).
type EndFacts struct {
	ShowCancelled   bool
	PaymentRefunded bool
	Offer           bool
}

// DecideEndReason is the one rule for why order o ended, from o.Status and
// o.CancelReason and facts f; nil while o is pending or paid.
//
//   - refunded: the show is cancelled -> show_cancelled; "cancelled and refunded by the
//     buyer" -> refunded_by_buyer (a show's self-refund); otherwise refunded_by_staff;
//   - cancelled: "cancelled by the buyer" -> cancelled_by_buyer; the show is cancelled
//     or the reason is the system's "the show was cancelled" (reconciliation) ->
//     show_cancelled; any other reason -> cancelled_by_staff;
//   - expired: a refunded payment -> late_payment_refunded (the approval came after the
//     order ended, invariant 10); a waiting-list offer -> offer_lapsed; else expired.
//
// Staff's own words are kept in Note; the system's reasons are not (they are the code).
func DecideEndReason(o *Order, f EndFacts) *EndReason {
	reason := ""
	if o.CancelReason != nil {
		reason = *o.CancelReason
	}
	r := &EndReason{PaymentRefunded: f.PaymentRefunded}
	switch o.Status {
	case OrderRefunded:
		r.Code = EndRefundedByStaff
		switch {
		case f.ShowCancelled:
			r.Code = EndShowCancelled
		case reason == ReasonBuyerRefund:
			r.Code = EndRefundedByBuyer
		}
	case OrderCancelled:
		switch {
		case reason == ReasonBuyer:
			r.Code = EndCancelledByBuyer
		case f.ShowCancelled || reason == ReasonShowCancelled:
			r.Code = EndShowCancelled
		default:
			r.Code = EndCancelledByStaff
		}
	case OrderExpired:
		switch {
		case f.PaymentRefunded:
			r.Code = EndLatePaymentRefunded
		case f.Offer:
			r.Code = EndOfferLapsed
		default:
			r.Code = EndExpired
		}
	default:
		return nil
	}
	switch reason {
	case ReasonBuyer, ReasonBuyerRefund, ReasonDeadline, ReasonShowCancelled:
	default:
		r.Note = reason
	}
	return r
}
