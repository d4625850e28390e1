package staff

import (
	"context"
	"strconv"
	"time"

	"seatflow/services"
	"seatflow/services/mail"
	"seatflow/services/orders"
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
	// Refund is the refund an "order.refund" entry records (after only).
	Refund *RefundAudit `json:"refund,omitempty"`
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

// Refund refunds what is left of the paid order orderNo for staff member actorID
// (RefundSeats without seats). Errors: as RefundSeats.
func (s *StaffOrders) Refund(ctx context.Context, actorID int64, orderNo, reason string) (*services.Order, error) {
	return s.RefundSeats(ctx, actorID, orderNo, reason, nil)
}

// RefundSeats refunds the seats seatIDs of the paid order orderNo for staff member
// actorID, or every seat it still has when seatIDs is empty (orders.Payments.Refund: one
// refund row with its seats, the payments' refunded part, the order ending refunded with
// its last seats and staying paid otherwise, the audit entry "order.refund" and the
// buyer's e-mail naming the seats, in one transaction; then the provider, once, and the
// seats freed in the seat cache, so they can be sold again and leave the buyer's
// purchase limit). Errors: NOT_FOUND, ORDER_STATE (the order is not paid, also when
// already refunded; a seat already refunded, seats naming it), INVALID_REQUEST (reason
// too long or not one clean line, CheckReason; a seat not in the order or named twice),
// UNAVAILABLE.
func (s *StaffOrders) RefundSeats(ctx context.Context, actorID int64, orderNo, reason string, seatIDs []int64) (*services.Order, error) {
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
	won, err := s.refund(ctx, actorID, order, reason, msg, seatIDs)
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

// RefundAudit is how a refund appears in the audit log besides the order: its name, the
// money it gave back (minor units) and the labels of its seats.
type RefundAudit struct {
	RefundID    string   `json:"refund_id"`
	AmountMinor int64    `json:"amount_minor"`
	Seats       []string `json:"seats"`
}

// refund refunds seatIDs (none: all that is left) of order (read before) and reports
// whether it was still paid; the transaction queues the buyer's e-mail msg (its Kind and
// Data, for a refund that ends the order; the order's user, number and show are filled
// in, invariant 16). Errors: as orders.Payments.Refund.
func (s *StaffOrders) refund(ctx context.Context, actorID int64, order *services.Order, reason string, msg mail.Message, seatIDs []int64) (bool, error) {
	if order.Status != services.OrderPaid {
		return false, nil
	}
	before := auditOrder(order)
	_, won, err := s.payments.Refund(ctx, order, orders.RefundRequest{SeatIDs: seatIDs, ActorID: actorID, Reason: reason, Mail: msg,
		Audit: s.audit, AuditAction: "order.refund", AuditBefore: before,
		AuditAfter: func(r *orders.RefundDone) any {
			after := before
			if r.Ended {
				now := r.Refund.CreatedAt
				after.Status, after.CancelledAt, after.CancelReason = services.OrderRefunded, &now, &reason
			}
			for _, p := range r.Payments {
				after.Payments = append(after.Payments, p.Payment.PaymentID)
			}
			after.Refund = &RefundAudit{RefundID: r.Refund.RefundID, AmountMinor: r.Refund.AmountMinor, Seats: r.Labels}
			return after
		}})
	return won, err
}
