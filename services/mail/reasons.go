package mail

// The keys and codes of Message.Data for the order e-mails (DESIGN.md invariant 16).
// Codes are fixed ASCII words a renderer translates into the reader's language; Note
// carries the free text a member of staff typed (shown as written, never translated).
const (
	// DataReason is the key of a reason code (Reason* below).
	DataReason = "reason"
	// DataNote is the key of the staff's own words: a refund's or a show cancel's
	// reason as typed in the console or the API ("" when they gave none).
	DataNote = "note"
	// DataOutcome is the key of what a show's cancel did to the order (Outcome* below).
	DataOutcome = "outcome"
	// DataRefundedMinor is the key of the money a refund gave back (minor units of the
	// order's currency, decimal); DataSeats of the labels of the seats it gave back
	// ("F7, F8"), on order_part_refunded.
	DataRefundedMinor = "refunded_minor"
	DataSeats         = "seats"
	// DataOldSeats is the key of the seats an exchange let go ("A1, A2"): the
	// order_exchanged e-mail names them beside the order's new seats.
	DataOldSeats = "old_seats"
)

// Reason codes (Data[DataReason]).
//
//   - order_cancelled: ReasonBuyer (the buyer cancelled), ReasonStaff (staff released a
//     seat the order held, Note says why).
//   - order_expired: ReasonDeadline (the payment deadline passed).
//   - order_refunded: ReasonStaff (staff refunded the paid order, Note says why),
//     ReasonLatePayment (a payment approved after the order had ended or its show was
//     cancelled: the money went back, the order is not paid), ReasonAlreadyPaid (a second
//     payment of an order that another payment had paid: that money went back).
//
// show_cancelled carries no reason code (its kind is the reason): DataOutcome says what
// happened to the order, Note the staff's words.
const (
	ReasonBuyer       = "buyer"
	ReasonStaff       = "staff"
	ReasonDeadline    = "deadline"
	ReasonLatePayment = "late_payment"
	ReasonAlreadyPaid = "already_paid"
)

// Outcomes of a show's cancel for one order (Data[DataOutcome] of show_cancelled).
const (
	OutcomeCancelled = "cancelled" // a pending order: cancelled, nothing was paid
	OutcomeRefunded  = "refunded"  // a paid order: refunded in full
)

// ShowCancelledMessage is the e-mail of an order its show's cancel ended: ShowCancelled
// with the outcome (OutcomeCancelled or OutcomeRefunded) and the staff's note when they
// gave one. It replaces the order's order_cancelled or order_refunded e-mail; the
// caller fills in the user, order and show.
func ShowCancelledMessage(outcome, note string) Message {
	m := Message{Kind: ShowCancelled, Data: map[string]string{DataOutcome: outcome}}
	if note != "" {
		m.Data[DataNote] = note
	}
	return m
}
