package services

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// Cancel cancels the user's pending order and frees its seats. Cancelling a cancelled
// order returns it unchanged (idempotent). Errors: NOT_FOUND (unknown or another user's),
// ORDER_STATE (paid, expired or refunded), UNAVAILABLE.
func (o *Orders) Cancel(ctx context.Context, userID int64, orderNo string) (*Order, error) {
	order, err := o.byNo(ctx, orderNo)
	if err != nil {
		return nil, err
	}
	if order.UserID != userID {
		return nil, errf(CodeNotFound, "order not found")
	}
	if order.Status == OrderPending && !o.clock.Now().Before(order.ExpiresAt) {
		// past its deadline the order has expired, whatever the buyer asks now
		if _, err := o.Expire(ctx, orderNo); err != nil {
			return nil, err
		}
		if order, err = o.byNo(ctx, orderNo); err != nil {
			return nil, err
		}
	}
	if order.Status == OrderPending {
		won, err := o.end(ctx, order, OrderCancelled, "cancelled by the buyer", false)
		if err != nil {
			return nil, err
		}
		if won {
			o.metrics.OrdersCancelled.Inc()
		}
		if order, err = o.byNo(ctx, orderNo); err != nil {
			return nil, err
		}
	}
	switch order.Status {
	case OrderCancelled:
		return order, nil
	default:
		return nil, errf(CodeOrderState, "the order is %s and can no longer be cancelled", order.Status)
	}
}

// Expire ends a pending order whose deadline has passed and frees its seats; it is
// what the expiry task and reconciliation call. It reports whether this call expired
// the order; an order that is not pending or not yet due is left alone (idempotent).
func (o *Orders) Expire(ctx context.Context, orderNo string) (bool, error) {
	order, err := o.byNo(ctx, orderNo)
	if err != nil {
		if ErrorCode(err) == CodeNotFound {
			return false, nil
		}
		return false, err
	}
	if order.Status != OrderPending || o.clock.Now().Before(order.ExpiresAt) {
		return false, nil
	}
	won, err := o.end(ctx, order, OrderExpired, "payment deadline passed", true)
	if won {
		o.metrics.OrdersExpired.Inc()
	}
	return won, err
}

// end moves a pending order to cancelled or expired with one conditional update
// (invariant 5), marks its seats no longer live in the same transaction, and only when
// it won frees the holds in Redis (owner-checked, invariant 4).
func (o *Orders) end(ctx context.Context, order *Order, status, reason string, dueOnly bool) (bool, error) {
	now := o.clock.Now()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), dbTimeout)
	defer cancel()
	q := "UPDATE orders SET status = ?, cancelled_at = ?, cancel_reason = ? WHERE id = ? AND status = 'pending'"
	args := []any{status, now, reason, order.ID}
	if dueOnly {
		q += " AND expires_at <= ?"
		args = append(args, now)
	}
	won := false
	err := inTx(ctx, o.db, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			won = false
			return nil
		}
		won = true
		_, err = tx.ExecContext(ctx, "UPDATE order_seats SET live = NULL WHERE order_id = ?", order.ID)
		return err
	})
	if err != nil {
		return false, unavailable("the database", err)
	}
	if !won {
		return false, nil
	}
	if _, err := o.seats.Release(ctx, order.ShowID, order.OrderNo, refsOf(order), false); err != nil {
		o.log.Error("seats of an ended order not released; reconciliation will free them", "order_no", order.OrderNo, "err", err)
	}
	if o.expiry != nil && status != OrderExpired {
		o.expiry.CancelExpiry(ctx, order.OrderNo)
	}
	return true, nil
}

// sold marks the seats of a freshly paid order sold in Redis (owner-checked).
func (o *Orders) sold(ctx context.Context, order *Order) {
	conflicts, err := o.seats.Sell(ctx, order.ShowID, order.OrderNo, order.UserID, refsOf(order))
	if err != nil {
		o.log.Error("paid seats not marked sold in the seat cache; reconciliation will", "order_no", order.OrderNo, "err", err)
	} else if len(conflicts) > 0 {
		o.log.Error("paid seats held by another order in the seat cache", "order_no", order.OrderNo, "seats", conflicts)
	}
	o.metrics.OrdersPaid.Inc()
	if o.expiry != nil {
		o.expiry.CancelExpiry(ctx, order.OrderNo)
	}
}
