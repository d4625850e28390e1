package orders

import (
	"context"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/mail"
	"seatflow/services/store"
)

// Cancel cancels the user's pending order and frees its seats. Cancelling a cancelled
// order returns it unchanged (idempotent). Errors: NOT_FOUND (unknown or another user's),
// ORDER_STATE (paid, expired or refunded), UNAVAILABLE.
func (o *Orders) Cancel(ctx context.Context, userID int64, orderNo string) (*services.Order, error) {
	order, err := o.ByNo(ctx, orderNo)
	if err != nil {
		return nil, err
	}
	if order.UserID != userID {
		return nil, services.Errorf(services.CodeNotFound, "order not found")
	}
	if order.Status == services.OrderPending && !o.clock.Now().Before(order.ExpiresAt) {
		// past its deadline the order has expired, whatever the buyer asks now
		if _, err := o.Expire(ctx, orderNo); err != nil {
			return nil, err
		}
		if order, err = o.ByNo(ctx, orderNo); err != nil {
			return nil, err
		}
	}
	if order.Status == services.OrderPending {
		won, err := o.End(ctx, order, Change{To: services.OrderCancelled, Reason: services.ReasonBuyer,
			Mail: &mail.Message{Kind: mail.OrderCancelled, Data: map[string]string{mail.DataReason: mail.ReasonBuyer}}})
		if err != nil {
			return nil, err
		}
		if won {
			o.metrics.OrdersCancelled.Inc()
		}
		if order, err = o.ByNo(ctx, orderNo); err != nil {
			return nil, err
		}
	}
	switch order.Status {
	case services.OrderCancelled:
		return order, nil
	default:
		return nil, services.Errorf(services.CodeOrderState, "the order is %s and can no longer be cancelled", order.Status)
	}
}

// Expire ends a pending order whose deadline has passed and frees its seats; it is
// what the expiry task and reconciliation call. It reports whether this call expired
// the order; an order that is not pending or not yet due is left alone (idempotent).
func (o *Orders) Expire(ctx context.Context, orderNo string) (bool, error) {
	order, err := o.ByNo(ctx, orderNo)
	if err != nil {
		if services.ErrorCode(err) == services.CodeNotFound {
			return false, nil
		}
		return false, err
	}
	if order.Status != services.OrderPending || o.clock.Now().Before(order.ExpiresAt) {
		return false, nil
	}
	won, err := o.End(ctx, order, Change{To: services.OrderExpired, Reason: services.ReasonDeadline,
		Mail: &mail.Message{Kind: mail.OrderExpired, Data: map[string]string{mail.DataReason: mail.ReasonDeadline}}})
	if won {
		o.metrics.OrdersExpired.Inc()
	}
	return won, err
}

// End moves a pending order to cancelled or expired (ch.To) through Transition in a
// transaction of its own, with ch's e-mail and audit entry, and only when it won frees
// the holds in Redis (owner-checked, invariant 4) and, for a cancel, deletes the expiry
// task. An expiry happens only once the deadline has passed. A lost update writes no
// e-mail (invariant 16) and reports false. Errors: ORDER_STATE (ch.To is not an end of
// a pending order, or order is not pending), UNAVAILABLE.
func (o *Orders) End(ctx context.Context, order *services.Order, ch Change) (bool, error) {
	if ch.To != services.OrderCancelled && ch.To != services.OrderExpired {
		return false, services.Errorf(services.CodeOrderState, "an order cannot be ended as %s", ch.To)
	}
	if ch.At.IsZero() {
		ch.At = o.clock.Now()
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), store.DBTimeout)
	defer cancel()
	won := false
	err := store.InTx(ctx, o.db, func(tx *sqlx.Tx) error {
		var err error
		won, err = o.Transition(ctx, tx, order, ch)
		return err
	})
	if err != nil {
		if services.ErrorCode(err) != "" {
			return false, err
		}
		return false, store.Unavailable("the database", err)
	}
	if !won {
		return false, nil
	}
	order.Status = ch.To
	if err := o.SyncSeats(ctx, order); err != nil {
		o.QueueSeatSync(order, err)
	}
	if ch.To == services.OrderCancelled {
		o.cancelExpiry(ctx, order.OrderNo)
	}
	return true, nil
}

// cancelExpiry deletes the expiry task of an order that was paid or cancelled. A task
// that cannot be deleted is harmless (it finds the order settled) but counted.
func (o *Orders) cancelExpiry(ctx context.Context, orderNo string) {
	if o.expiry == nil {
		return
	}
	if err := o.expiry.CancelExpiry(ctx, orderNo); err != nil {
		o.metrics.ExpiryCancelErrors.Inc()
		o.log.Warn("expiry task not deleted; it will find the order settled", "order_no", orderNo, "err", err)
	}
}

// sold marks the seats of a freshly paid order sold in Redis (owner-checked); a failed
// Redis step is queued for retry (seat-sync outbox).
func (o *Orders) sold(ctx context.Context, order *services.Order) {
	if err := o.SyncSeats(ctx, order); err != nil {
		o.QueueSeatSync(order, err)
	}
	o.metrics.OrdersPaid.Inc()
	o.cancelExpiry(ctx, order.OrderNo)
}

// orderMail is msg about order: its buyer, number and show filled in.
func orderMail(order *services.Order, msg mail.Message) mail.Message {
	msg.UserID, msg.OrderNo, msg.ShowID = order.UserID, order.OrderNo, order.ShowID
	return msg
}
