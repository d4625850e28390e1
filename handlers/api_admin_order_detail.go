package handlers

import (
	"github.com/gofiber/fiber/v2"

	"seatflow/services/staff"
)

// adminPaymentJSON is a payment of an order as staff read it.
type adminPaymentJSON struct {
	PaymentID   string `json:"payment_id"`
	Provider    string `json:"provider"`
	Status      string `json:"status"`
	AmountMinor int64  `json:"amount_minor"`
	Currency    string `json:"currency"`
	CreatedAt   string `json:"created_at"`
	UpdatedAt   string `json:"updated_at"`
}

// adminOrderJSON is one order for staff: the order as its buyer sees it, the buyer, its
// payments (oldest first) and its audit history (newest first).
type adminOrderJSON struct {
	staffOrderJSON
	Payments []adminPaymentJSON `json:"payments"`
	History  []auditEntryJSON   `json:"history"`
}

// apiAdminOrder returns one order with its buyer, payments and audit history:
// GET /api/v1/admin/orders/{order_no}. Errors: 404 unknown order, 503.
func (d *Deps) apiAdminOrder(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	det, err := d.StaffOrders.Detail(ctx, typedOrderNoParam(c))
	if err != nil {
		return err
	}
	out := adminOrderJSON{
		staffOrderJSON: staffOrderJSON{orderJSON: orderOut(det.Order), User: userRef(det.UserID, det.UserEmail)},
		Payments:       make([]adminPaymentJSON, len(det.Payments)),
		History:        make([]auditEntryJSON, len(det.History)),
	}
	for i, p := range det.Payments {
		out.Payments[i] = paymentOut(p)
	}
	for i, e := range det.History {
		out.History[i] = auditOut(e)
	}
	return c.JSON(out)
}

func paymentOut(p *staff.OrderPayment) adminPaymentJSON {
	return adminPaymentJSON{PaymentID: p.PaymentID, Provider: p.Provider, Status: p.Status, AmountMinor: p.AmountMinor,
		Currency: p.Currency, CreatedAt: rfc(p.CreatedAt), UpdatedAt: rfc(p.UpdatedAt)}
}
