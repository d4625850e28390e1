package handlers

import (
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
	"seatflow/services/orders"
)

// The API's orders of the signed-in customer: create, list, read, cancel, pay; and the
// payment providers' webhook.

// apiCreateOrder holds seats for the signed-in user: chosen seat_ids or best available
// (zone + quantity), with an optional Idempotency-Key -> 201 the order. Errors: the
// contract's (400, 404, 409 SEAT_TAKEN..., 422, 429).
func (d *Deps) apiCreateOrder(c *fiber.Ctx) error {
	u := currentUser(c)
	req := orders.CreateOrderRequest{UserID: u.ID, Email: u.Email, Lang: u.Lang}
	if err := parseOrderBody(c.Body(), &req); err != nil {
		return err
	}
	showID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "show not found"}
	}
	req.ShowID = showID
	req.IdempotencyKey = utils.CopyString(c.Get("Idempotency-Key"))
	req.AdmissionToken = admissionToken(c, showID)
	ctx, cancel := ctxOf(c)
	defer cancel()
	o, err := d.Orders.Create(ctx, req)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(d.buyerOrderOut(o))
}

// apiOrders lists the signed-in user's orders, newest first -> 200 {"orders"}.
func (d *Deps) apiOrders(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	orders, err := d.Orders.List(ctx, currentUser(c).ID, 200)
	if err != nil {
		return err
	}
	out := make([]orderJSON, len(orders))
	for i, o := range orders {
		out[i] = d.buyerOrderOut(o)
	}
	return c.JSON(fiber.Map{"orders": out})
}

// apiOrder is one of the signed-in user's orders -> 200 (a paid one with its ticket
// code); 404 NOT_FOUND (also another user's).
func (d *Deps) apiOrder(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	o, err := d.Orders.Get(ctx, currentUser(c).ID, utils.CopyString(c.Params("no")))
	if err != nil {
		return err
	}
	out := d.buyerOrderOut(o)
	if out.TicketRef != "" {
		out.TicketCode = d.ticketCode(ctx, o)
	}
	return c.JSON(out)
}

// apiCancel cancels a pending order of the signed-in user -> 200 the order; a paid one
// is refunded (200, refunded) until its show's self-refund cut-off; 409 ORDER_STATE
// otherwise.
func (d *Deps) apiCancel(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	o, err := d.Payments.Cancel(ctx, currentUser(c).ID, utils.CopyString(c.Params("no")))
	if err != nil {
		return err
	}
	return c.JSON(d.buyerOrderOut(o))
}

// apiPay starts paying an order with {"provider"} (optional) -> 200 {"payment_id",
// "redirect_url"}; 503 UNAVAILABLE when no provider is configured. An order whose total
// is 0 is paid at once: 200 {"payment_id": null, "redirect_url": the order's page,
// "paid": true}.
func (d *Deps) apiPay(c *fiber.Ctx) error {
	var in struct {
		Provider string `json:"provider"`
	}
	if len(c.Body()) > 0 {
		if err := decodeJSON(c, &in); err != nil {
			return err
		}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	// no provider named: the configured default; none configured: 503 UNAVAILABLE
	p, url, err := d.Payments.Start(ctx, currentUser(c).ID, utils.CopyString(c.Params("no")), in.Provider)
	if err != nil {
		return err
	}
	if p == nil { // a free order (total 0) was paid at once: no payment, the order's page
		return c.JSON(fiber.Map{"payment_id": nil, "redirect_url": url, "paid": true})
	}
	return c.JSON(fiber.Map{"payment_id": p.PaymentID, "redirect_url": url})
}

// apiWebhook takes a payment provider's signed event (the signature in the provider's
// header: X-Signature, or its own such as Stripe-Signature) -> 200 {"ok","payment_id"},
// or {"ok","ignored":true} for an event that concerns no payment (a provider's other
// event types).
func (d *Deps) apiWebhook(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	provider := utils.CopyString(c.Params("provider"))
	raw := append([]byte(nil), c.Body()...)
	p, err := d.Payments.HandleWebhook(ctx, provider, raw, utils.CopyString(c.Get(d.Payments.SignatureHeader(provider))))
	if err != nil {
		return err
	}
	if p == nil {
		return c.JSON(fiber.Map{"ok": true, "ignored": true})
	}
	return c.JSON(fiber.Map{"ok": true, "payment_id": p.PaymentID})
}
