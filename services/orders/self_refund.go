package orders

import (
	"context"

	"seatflow/services"
	"seatflow/services/mail"
)

// Cancel is the buyer's cancel of order orderNo (POST /api/v1/orders/{no}/cancel): a
// pending order is cancelled (Orders.Cancel); a paid order of a show that lets buyers
// refund themselves (Show.SelfRefundUntilH) is refunded whole through its provider
// until that many hours before the start (Payments.Refund, actor NULL, reason
// services.ReasonBuyerRefund), and a paid order already refunded by the buyer comes back
// unchanged. Errors: NOT_FOUND (unknown or another user's), ORDER_STATE (paid after the
// cut-off or at a show without one; expired or otherwise refunded), UNAVAILABLE.
func (p *Payments) Cancel(ctx context.Context, userID int64, orderNo string) (*services.Order, error) {
	order, err := p.orders.Get(ctx, userID, orderNo)
	if err != nil {
		return nil, err
	}
	if order.Status == services.OrderRefunded && order.CancelReason != nil && *order.CancelReason == services.ReasonBuyerRefund {
		return order, nil // cancelled and refunded by the buyer before: idempotent
	}
	if order.Status != services.OrderPaid {
		return p.orders.Cancel(ctx, userID, orderNo)
	}
	show, err := p.orders.catalog.Show(ctx, order.ShowID)
	if err != nil {
		return nil, err
	}
	until, ok := show.SelfRefundUntil()
	if !ok {
		return nil, services.Errorf(services.CodeOrderState, "the order is paid and this show does not let buyers cancel a paid order")
	}
	if !p.clock.Now().Before(until) {
		return nil, services.Errorf(services.CodeOrderState, "the order is paid and could be cancelled only until %s",
			until.In(show.Loc()).Format("2006-01-02 15:04 MST"))
	}
	_, won, err := p.Refund(ctx, order, RefundRequest{Reason: services.ReasonBuyerRefund,
		Mail: mail.Message{Kind: mail.OrderRefunded, Data: map[string]string{mail.DataReason: mail.ReasonBuyer}}})
	if err != nil {
		return nil, err
	}
	if order, err = p.orders.ByNo(ctx, orderNo); err != nil {
		return nil, err
	}
	if !won && !(order.Status == services.OrderRefunded && order.CancelReason != nil && *order.CancelReason == services.ReasonBuyerRefund) {
		return nil, services.Errorf(services.CodeOrderState, "the order is %s and can no longer be cancelled", order.Status)
	}
	return order, nil
}
