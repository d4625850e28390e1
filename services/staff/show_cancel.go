package staff

import (
	"context"
	"strconv"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/mail"
	"seatflow/services/orders"
	"seatflow/services/store"
)

// ShowCancellation is the outcome of cancelling a show: the show as the public sees it
// now, and how many pending orders this call cancelled and paid orders it refunded.
type ShowCancellation struct {
	Show            *services.Show
	CancelledOrders int
	RefundedOrders  int
}

// ShowAudit is how a show's status change appears in the audit log.
type ShowAudit struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// CancelShow cancels show showID for staff member actorID: one conditional update sets
// its status to cancelled (audited in the same transaction), so no order can be paid
// from then on (Payments refuses to start one and refunds a late approval, invariant
// 10); then every pending order of the show is cancelled (its seats released) and every
// paid order refunded through its provider. Cancelling a cancelled show returns it
// unchanged with zero counts (it only ends orders an earlier, interrupted call left).
// Errors: NOT_FOUND, INVALID_REQUEST (CheckReason), UNAVAILABLE (the show may then
// be cancelled with some orders left: call it again).
func (s *StaffOrders) CancelShow(ctx context.Context, actorID, showID int64, reason string) (*ShowCancellation, error) {
	if err := CheckReason(reason); err != nil {
		return nil, err
	}
	note := reason
	if reason == "" {
		reason = services.ReasonShowCancelled
	}
	show, err := s.orders.Catalog().Show(ctx, showID)
	if err != nil {
		return nil, err
	}
	if _, err := s.markCancelled(ctx, actorID, show, reason); err != nil {
		return nil, err
	}
	s.orders.Catalog().ForgetShow(showID)
	// when it was cancelled before, its orders were ended then: this finds none, unless
	// that call was cut short or an order was created from a show read just before
	out := &ShowCancellation{}
	if out.CancelledOrders, out.RefundedOrders, err = s.endOrders(ctx, actorID, showID, reason, note); err != nil {
		return nil, err
	}
	if out.Show, err = s.shows.Get(ctx, showID); err != nil {
		return nil, err
	}
	return out, nil
}

// markCancelled sets the show's status to cancelled unless it already is, with its
// audit entry, and reports whether this call changed it.
func (s *StaffOrders) markCancelled(ctx context.Context, actorID int64, show *services.Show, reason string) (bool, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), store.DBTimeout)
	defer cancel()
	var won bool
	err := store.InTx(ctx, s.db, func(tx *sqlx.Tx) error {
		won = false
		before, err := store.LockShowStatus(ctx, tx, show.ID)
		if err != nil {
			return err
		}
		if before == services.ShowCancelled {
			return nil
		}
		if won, err = store.MarkShowCancelled(ctx, tx, show.ID); err != nil || !won {
			return err
		}
		id := strconv.FormatInt(show.ID, 10)
		return s.audit.Record(ctx, tx, actorID, "show.cancel", "show", id,
			ShowAudit{ID: id, Status: before}, ShowAudit{ID: id, Status: services.ShowCancelled, Reason: reason})
	})
	if err != nil {
		if store.IsNoRows(err) {
			return false, services.Errorf(services.CodeNotFound, "show %d not found", show.ID)
		}
		if services.ErrorCode(err) != "" {
			return false, err
		}
		return false, store.Unavailable("the database", err)
	}
	return won, nil
}

// endOrders cancels the pending orders of a cancelled show and refunds its paid ones,
// and returns how many of each this call ended. note is the staff's own words for the
// e-mails ("" for none).
func (s *StaffOrders) endOrders(ctx context.Context, actorID, showID int64, reason, note string) (cancelled, refunded int, err error) {
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	nos, err := store.LiveOrderNosOfShow(qctx, s.db, showID)
	cancel()
	if err != nil {
		return 0, 0, store.Unavailable("the database", err)
	}
	for _, no := range nos {
		c, r, err := s.endOne(ctx, actorID, no, reason, note)
		if err != nil {
			return cancelled, refunded, err
		}
		if c {
			cancelled++
		}
		if r {
			refunded++
		}
	}
	return cancelled, refunded, nil
}

// endOne cancels the order orderNo when it is pending or refunds it when it is paid,
// and reports which this call did. An order that was paid between the read and the
// cancel is read again and refunded. Either way the buyer's one e-mail is
// show_cancelled (mail.ShowCancelledMessage), queued in the transaction that ended the
// order, with the audit entry (order.cancel or order.refund).
func (s *StaffOrders) endOne(ctx context.Context, actorID int64, orderNo, reason, note string) (cancelled, refunded bool, err error) {
	for attempt := 0; attempt < 2; attempt++ {
		order, err := s.orders.ByNo(ctx, orderNo)
		if err != nil {
			return false, false, err
		}
		switch order.Status {
		case services.OrderPending:
			now := s.orders.Clock().Now()
			before := auditOrder(order)
			after := before
			after.Status, after.CancelledAt, after.CancelReason = services.OrderCancelled, &now, &reason
			msg := mail.ShowCancelledMessage(mail.OutcomeCancelled, note)
			won, err := s.orders.End(ctx, order, orders.Change{To: services.OrderCancelled, Reason: reason, At: now, Mail: &msg,
				Audit: &orders.ChangeAudit{Log: s.audit, Actor: actorID, Action: "order.cancel", Before: before, After: after}})
			if err != nil {
				return false, false, err
			}
			if !won {
				continue // ended or paid meanwhile: look again
			}
			return true, false, nil
		case services.OrderPaid:
			won, err := s.refund(ctx, actorID, order, reason, mail.ShowCancelledMessage(mail.OutcomeRefunded, note), nil)
			return false, won, err
		default:
			return false, false, nil
		}
	}
	return false, false, nil
}
