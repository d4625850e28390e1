package staff

import (
	"context"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/mail"
	"seatflow/services/orders"
	"seatflow/services/store"
)

// OrderAudit is how an order appears in the audit log.
type OrderAudit struct {
	OrderNo      string     `json:"order_no"`
	UserID       string     `json:"user_id"`
	ShowID       string     `json:"show_id"`
	Status       string     `json:"status"`
	TotalMinor   int64      `json:"total_minor"`
	Currency     string     `json:"currency"`
	Seats        []string   `json:"seats"`
	PaidAt       *time.Time `json:"paid_at,omitempty"`
	CancelledAt  *time.Time `json:"cancelled_at,omitempty"`
	CancelReason *string    `json:"cancel_reason,omitempty"`
	Payments     []string   `json:"payments,omitempty"`
}

func auditOrder(o *services.Order) OrderAudit {
	return OrderAudit{OrderNo: o.OrderNo, UserID: strconv.FormatInt(o.UserID, 10), ShowID: strconv.FormatInt(o.ShowID, 10),
		Status: o.Status, TotalMinor: o.TotalMinor, Currency: o.Currency, Seats: orders.Labels(o.Seats),
		PaidAt: o.PaidAt, CancelledAt: o.CancelledAt, CancelReason: o.CancelReason}
}

// MaxReasonLen is the longest cancel or refund reason stored (characters).
const MaxReasonLen = 200

// CheckReason checks a staff reason (a refund, a cancellation, a release, house seats):
// at most MaxReasonLen characters on one line, without control characters or
// bidirectional overrides (services.CheckText). Errors: INVALID_REQUEST naming "reason".
func CheckReason(reason string) error {
	if len([]rune(reason)) > MaxReasonLen {
		return services.Errorf(services.CodeInvalidRequest, "reason is longer than %d characters", MaxReasonLen)
	}
	return services.CheckText("reason", reason, services.SingleLine)
}

// Refund refunds the paid order orderNo for staff member actorID: one conditional
// update moves it from paid to refunded (invariant 5), its seats stop being live and its
// approved payments are marked refunded, with the audit entry, all in one transaction.
// Only the winner then refunds the money through each payment's provider and frees the
// seats in the seat cache (owner-checked, from held or sold, invariant 4), so they can be
// sold again and no longer count toward the buyer's purchase limit.
// Errors: NOT_FOUND, ORDER_STATE (the order is not paid, also when already refunded),
// INVALID_REQUEST (reason too long or not one clean line, CheckReason), UNAVAILABLE.
func (s *StaffOrders) Refund(ctx context.Context, actorID int64, orderNo, reason string) (*services.Order, error) {
	if err := CheckReason(reason); err != nil {
		return nil, err
	}
	msg := mail.Message{Kind: mail.OrderRefunded, Data: map[string]string{mail.DataReason: mail.ReasonStaff}}
	if reason != "" {
		msg.Data[mail.DataNote] = reason
	} else {
		reason = "refunded by the cinema"
	}
	order, err := s.orders.ByNo(ctx, orderNo)
	if err != nil {
		return nil, err
	}
	won, err := s.refund(ctx, actorID, order, reason, msg)
	if err != nil {
		return nil, err
	}
	if !won {
		if order, err = s.orders.ByNo(ctx, orderNo); err != nil {
			return nil, err
		}
		return nil, services.Errorf(services.CodeOrderState, "the order is %s and cannot be refunded", order.Status)
	}
	return s.orders.ByNo(ctx, orderNo)
}

// refund runs the refund of order (read before) and reports whether this call won the
// paid -> refunded transition; the winner's transaction queues the buyer's e-mail msg
// (its Kind and Data; the order's user, number and show are filled in, invariant 16).
// Errors: UNAVAILABLE.
func (s *StaffOrders) refund(ctx context.Context, actorID int64, order *services.Order, reason string, msg mail.Message) (bool, error) {
	if order.Status != services.OrderPaid {
		return false, nil
	}
	o := s.orders
	now := o.Clock().Now()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), store.DBTimeout)
	defer cancel()
	var won bool
	var pays []*orders.Payment
	before := auditOrder(order)
	err := store.InTx(ctx, s.db, func(tx *sqlx.Tx) error {
		won, pays = false, nil
		after := before
		after.Status, after.CancelledAt, after.CancelReason = services.OrderRefunded, &now, &reason
		markRefunded := func(ctx context.Context, tx *sqlx.Tx) error {
			var err error
			if pays, err = store.LockApprovedPayments(ctx, tx, order.ID); err != nil {
				return err
			}
			for _, p := range pays {
				after.Payments = append(after.Payments, p.PaymentID)
			}
			return store.RefundApprovedPayments(ctx, tx, order.ID, now)
		}
		var err error
		won, err = o.Transition(ctx, tx, order, orders.Change{To: services.OrderRefunded, Reason: reason, At: now,
			Then: markRefunded, Mail: &msg,
			Audit: &orders.ChangeAudit{Log: s.audit, Actor: actorID, Action: "order.refund", Before: before, After: &after}})
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
	o.Metrics().OrdersRefunded.Inc()
	for _, p := range pays {
		p.OrderNo = order.OrderNo
		pr, ok := s.payments.ProviderNamed(p.Provider)
		if !ok {
			o.Metrics().RefundErrors.Inc()
			o.Log().Error("refund: payment provider not configured; refund it by hand", "payment_id", p.PaymentID, "provider", p.Provider)
			continue
		}
		if err := pr.Refund(ctx, p, orders.WholeRefund(p)); err != nil {
			o.Metrics().RefundErrors.Inc()
			o.Log().Error("refund failed at the provider; refund it by hand", "payment_id", p.PaymentID, "order_no", order.OrderNo, "err", err)
		}
	}
	order.Status = services.OrderRefunded
	if err := o.SyncSeats(ctx, order); err != nil {
		o.QueueSeatSync(order, err)
	}
	return true, nil
}
