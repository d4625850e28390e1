package services

import (
	"context"
	"strconv"

	"github.com/jmoiron/sqlx"
)

// ShowCancellation is the outcome of cancelling a show: the show as the public sees it
// now, and how many pending orders this call cancelled and paid orders it refunded.
type ShowCancellation struct {
	Show            *Show
	CancelledOrders int
	RefundedOrders  int
}

// showAudit is how a show's status change appears in the audit log.
type showAudit struct {
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
// Errors: NOT_FOUND, INVALID_REQUEST (reason too long), UNAVAILABLE (the show may then
// be cancelled with some orders left: call it again).
func (s *StaffOrders) CancelShow(ctx context.Context, actorID, showID int64, reason string) (*ShowCancellation, error) {
	if len([]rune(reason)) > MaxReasonLen {
		return nil, errf(CodeInvalidRequest, "reason is longer than %d characters", MaxReasonLen)
	}
	if reason == "" {
		reason = "the show was cancelled"
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
	if out.CancelledOrders, out.RefundedOrders, err = s.endOrders(ctx, actorID, showID, reason); err != nil {
		return nil, err
	}
	if out.Show, err = s.shows.Get(ctx, showID); err != nil {
		return nil, err
	}
	return out, nil
}

// markCancelled sets the show's status to cancelled unless it already is, with its
// audit entry, and reports whether this call changed it.
func (s *StaffOrders) markCancelled(ctx context.Context, actorID int64, show *Show, reason string) (bool, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), dbTimeout)
	defer cancel()
	var won bool
	err := inTx(ctx, s.db, func(tx *sqlx.Tx) error {
		won = false
		var before string
		if err := tx.GetContext(ctx, &before, "SELECT status FROM shows WHERE id = ? FOR UPDATE", show.ID); err != nil {
			return err
		}
		if before == ShowCancelled {
			return nil
		}
		res, err := tx.ExecContext(ctx, "UPDATE shows SET status = 'cancelled' WHERE id = ? AND status <> 'cancelled'", show.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		won = true
		id := strconv.FormatInt(show.ID, 10)
		return s.audit.Record(ctx, tx, actorID, "show.cancel", "show", id,
			showAudit{ID: id, Status: before}, showAudit{ID: id, Status: ShowCancelled, Reason: reason})
	})
	if err != nil {
		if isNoRows(err) {
			return false, errf(CodeNotFound, "show %d not found", show.ID)
		}
		if ErrorCode(err) != "" {
			return false, err
		}
		return false, unavailable("the database", err)
	}
	return won, nil
}

// endOrders cancels the pending orders of a cancelled show and refunds its paid ones,
// and returns how many of each this call ended.
func (s *StaffOrders) endOrders(ctx context.Context, actorID, showID int64, reason string) (cancelled, refunded int, err error) {
	var nos []string
	qctx, cancel := context.WithTimeout(ctx, dbTimeout)
	err = s.db.SelectContext(qctx, &nos, "SELECT order_no FROM orders WHERE show_id = ? AND status IN ('pending', 'paid') ORDER BY id", showID)
	cancel()
	if err != nil {
		return 0, 0, unavailable("the database", err)
	}
	for _, no := range nos {
		c, r, err := s.endOne(ctx, actorID, no, reason)
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
// cancel is read again and refunded.
func (s *StaffOrders) endOne(ctx context.Context, actorID int64, orderNo, reason string) (cancelled, refunded bool, err error) {
	for attempt := 0; attempt < 2; attempt++ {
		order, err := s.orders.byNo(ctx, orderNo)
		if err != nil {
			return false, false, err
		}
		switch order.Status {
		case OrderPending:
			won, err := s.orders.end(ctx, order, OrderCancelled, reason, false)
			if err != nil {
				return false, false, err
			}
			if !won {
				continue // ended or paid meanwhile: look again
			}
			before, after := auditOrder(order), auditOrder(order)
			now := s.orders.Clock().Now()
			before.Status = OrderPending
			after.CancelledAt, after.CancelReason = &now, &reason
			if err := s.audit.Record(ctx, s.db, actorID, "order.cancel", "order", order.OrderNo, before, after); err != nil {
				s.orders.Log().Error("order cancelled with its show but not audited", "order_no", order.OrderNo, "err", err)
			}
			return true, false, nil
		case OrderPaid:
			won, err := s.refund(ctx, actorID, order, reason)
			return false, won, err
		default:
			return false, false, nil
		}
	}
	return false, false, nil
}
