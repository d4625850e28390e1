package orders

import (
	"context"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/mail"
	"seatflow/services/store"
)

// edges is the order's state diagram: the statuses an order of each status may move
// to. pending ends paid (an approved payment), cancelled (the buyer, staff releasing a
// seat, the show's cancellation, reconciliation) or expired (its deadline passed); paid
// ends refunded (staff, or the show's cancellation). cancelled, expired and refunded are
// final.
var edges = map[string][]string{
	services.OrderPending: {services.OrderPaid, services.OrderCancelled, services.OrderExpired},
	services.OrderPaid:    {services.OrderRefunded},
}

// Allowed reports whether the state diagram has the edge from -> to.
func Allowed(from, to string) bool { return slices.Contains(edges[from], to) }

// Change is one move of an order's status through Transition. To is the new status;
// Reason is cancel_reason of an ended order ("" for paid); At is when (paid_at or
// cancelled_at; zero means the clock's now). PaidAfter, for To paid, is the instant the
// order's deadline must still be after (the deadline less PaymentGrace). Mail, when
// set, is the buyer's e-mail (its Kind and Data; Transition fills in the order's user,
// number and show; a walk-in's goes to the address its counter sale took, or nowhere),
// queued only when the change wins (invariant 16). Then, when set,
// runs in the transaction after the status and seats changed and before the audit entry
// and the e-mail (a refund marks its payments there). Audit, when set, is the audit
// entry written in the same transaction. EndSeats, with To paid on a paid order, ends
// only those seats (a refund of part of the order): the order stays paid.
type Change struct {
	To        string
	Reason    string
	At        time.Time
	PaidAfter time.Time
	Mail      *mail.Message
	Then      func(ctx context.Context, tx *sqlx.Tx) error
	Audit     *ChangeAudit
	EndSeats  []int64
}

// ChangeAudit is the audit entry of a change: Log writes it for staff member Actor (0:
// the system) as Action on entity "order" with the order's number, Before and After
// marshalled to JSON when it is written (after Change.Then has run).
type ChangeAudit struct {
	Log    *audit.Audit
	Actor  int64
	Action string
	Before any
	After  any
}

// Transition is the one door for an order's status: it moves order (as read by the
// caller; its Status is the guard) to ch.To in tx and reports whether this call won.
// An edge the state diagram does not have is refused with ORDER_STATE before the
// database is touched. The update is conditional on the order still having its status
// (invariant 5), so of racing callers one wins and the others get false with nothing
// written; expired also requires the deadline to have passed (expires_at <= At), and
// paid that the show is not cancelled and the deadline is after ch.PaidAfter. An order
// that ends has its seats marked not live and gives its voucher's uses back
// (store.GiveBackVoucherUses); an order that is paid gets its ticket code
// (drawTicketCode) before ch.Then runs and the e-mail is queued. Only the winner writes
// the code, runs ch.Then and writes the audit entry and the e-mail. order itself is not
// changed (tx may run again after a deadlock): the caller sets its Status once tx
// committed. A change with EndSeats (paid to paid) ends just those seats and gives back
// their voucher uses; it fails with store.ErrSeatsChanged, for tx to roll back, when one
// of them is no longer live. Errors: ORDER_STATE, the database's own and
// drawTicketCode's (the caller maps them).
func (o *Orders) Transition(ctx context.Context, tx *sqlx.Tx, order *services.Order, ch Change) (bool, error) {
	partial := len(ch.EndSeats) > 0
	if partial && (order.Status != services.OrderPaid || ch.To != services.OrderPaid) {
		return false, services.Errorf(services.CodeOrderState, "only a paid order that stays paid can end some of its seats")
	}
	if !partial && !Allowed(order.Status, ch.To) {
		return false, services.Errorf(services.CodeOrderState, "an order cannot go from %s to %s", order.Status, ch.To)
	}
	at := ch.At
	if at.IsZero() {
		at = o.clock.Now()
	}
	sc := store.OrderStatusChange{OrderID: order.ID, From: order.Status, To: ch.To, At: at, Reason: ch.Reason, EndSeats: ch.EndSeats}
	switch {
	case partial:
	case ch.To == services.OrderExpired:
		sc.ExpiresBy = at
	case ch.To == services.OrderPaid:
		sc.ExpiresAfter, sc.Show, sc.Reason = ch.PaidAfter, store.ShowNotCancelled, ""
	}
	won, err := store.UpdateOrderStatus(ctx, tx, sc)
	if err != nil || !won {
		return false, err
	}
	switch {
	case partial:
		// the seats that end give their voucher's uses back (invariant 19)
		if err := store.GiveBackVoucherUsesOfSeats(ctx, tx, order.ID, ch.EndSeats); err != nil {
			return false, err
		}
	case ch.To != services.OrderPaid:
		// an order that ends gives its voucher's uses back with its seats
		if err := store.GiveBackVoucherUses(ctx, tx, order.ID); err != nil {
			return false, err
		}
	default:
		// the ticket code exists from the payment on, so the ticket e-mail's facts
		// (frozen by mail.Queue in this transaction) carry it
		if _, err := drawTicketCode(ctx, tx, o.ticketRand, order.ID, at.UTC()); err != nil {
			return false, err
		}
	}
	if ch.Then != nil {
		if err := ch.Then(ctx, tx); err != nil {
			return false, err
		}
	}
	if a := ch.Audit; a != nil {
		if err := a.Log.Record(ctx, tx, a.Actor, a.Action, "order", order.OrderNo, a.Before, a.After); err != nil {
			return false, err
		}
	}
	if ch.Mail != nil {
		msg := orderMail(order, *ch.Mail)
		if msg.UserID == services.WalkIn && msg.To == "" {
			// a walk-in's e-mails go to the address the counter took, if any
			if sale, err := store.BoxOfficeSaleOf(ctx, tx, order.ID); err == nil && sale.Email != nil {
				msg.To, msg.Lang = *sale.Email, sale.Lang
			} else if err != nil && !store.IsNoRows(err) {
				return false, err
			}
		}
		if err := mail.Queue(ctx, tx, at, msg); err != nil {
			return false, err
		}
	}
	return true, nil
}
