package handlers

import (
	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/views"
)

// paymentIDParam is the :payment_id route parameter, or false when it cannot be one.
func paymentIDParam(c *fiber.Ctx) (string, bool) {
	id := copyParam(c, "payment_id")
	return id, id != "" && len(id) <= 64
}

// DemoPayments marks every request as served with the built-in demo payment provider
// on when on is true: the layout then shows the demo banner and the provider's pages
// answer. When it is off they answer 404.
func DemoPayments(on bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if on {
			c.SetUserContext(views.WithDemoPayments(c.UserContext()))
		}
		return c.Next()
	}
}

// demoOn reports whether the demo provider's pages are served for this request.
func demoOn(c *fiber.Ctx) bool { return views.DemoPaymentsOn(c.UserContext()) }

// demoPayPage is the demo provider's page: the amount, the order and two POST forms.
// It needs no login: it stands for an external provider.
func (d *Deps) demoPayPage(c *fiber.Ctx) error {
	id, ok := paymentIDParam(c)
	if !ok || !demoOn(c) {
		return renderErrorPage(c, fiber.StatusNotFound, tr(c, "err.no_payment", nil))
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	pay, err := d.Payments.Payment(ctx, id)
	if err != nil {
		if services.ErrorCode(err) == services.CodeNotFound {
			return renderErrorPage(c, fiber.StatusNotFound, tr(c, "err.no_payment", nil))
		}
		return errorPage(c, err)
	}
	props := views.DemoPayProps{Page: page(c, tr(c, "demo.brand", nil)), Payment: paymentView(pay), Now: d.now(), Zone: d.Shows.Zone()}
	if o, err := d.Orders.ByNo(ctx, pay.OrderNo); err == nil {
		if o.Status == services.OrderPending {
			props.Deadline = o.ExpiresAt // the order's deadline, counted down on the page
		}
		if s, err := d.Shows.Get(ctx, o.ShowID); err == nil {
			props.Zone = d.showZone(s) // the deadline in the show's cinema's time
		}
	}
	return render(c, fiber.StatusOK, views.DemoPayPage(props))
}

// demoDecide approves or declines a demo payment (as the provider would, then its
// webhook) and sends the buyer back to the order.
func (d *Deps) demoDecide(approve bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, ok := paymentIDParam(c)
		if !ok || !demoOn(c) {
			return renderErrorPage(c, fiber.StatusNotFound, tr(c, "err.no_payment", nil))
		}
		ctx, cancel := ctxOf(c)
		defer cancel()
		pay, err := d.Payments.DemoDecide(ctx, id, approve)
		if err != nil {
			if services.ErrorCode(err) == services.CodeNotFound {
				return renderErrorPage(c, fiber.StatusNotFound, tr(c, "err.no_payment", nil))
			}
			return errorPage(c, err)
		}
		// the order page tells how this payment ended (declined, refunded)
		return c.Redirect(views.OrderURL(pay.OrderNo)+"?payment="+pay.PaymentID, fiber.StatusSeeOther)
	}
}
