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
	show, err := s.orders.catalog.Show(ctx, showID)
	if err != nil {
		return nil, err
	}
	if _, err := s.markCancelled(ctx, actorID, show, reason); err != nil {
		return nil, err
	}
	s.orders.catalog.ForgetShow(showID)
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
		order, err := s.orders.byNo(ctx, no)
		if err != nil {
			return cancelled, refunded, err
		}
		switch order.Status {
		case OrderPending:
			won, err := s.orders.end(ctx, order, OrderCancelled, reason, false)
			if err != nil {
				return cancelled, refunded, err
			}
			if won {
				cancelled++
				s.orders.metrics.OrdersCancelled.Inc()
				after := auditOrder(order)
				now := s.orders.clock.Now()
				after.Status, after.CancelledAt, after.CancelReason = OrderCancelled, &now, &reason
				before := auditOrder(order)
				before.Status = OrderPending
				if err := s.audit.Record(ctx, s.db, actorID, "order.cancel", "order", order.OrderNo, before, after); err != nil {
					s.orders.log.Error("order cancelled with its show but not audited", "order_no", order.OrderNo, "err", err)
				}
			}
		case OrderPaid:
			won, err := s.refund(ctx, actorID, order, reason)
			if err != nil {
				return cancelled, refunded, err
			}
			if won {
				refunded++
			}
		}
	}
	return cancelled, refunded, nil
}
