package handlers

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
)

func decodeJSON(c *fiber.Ctx, v any) error {
	if err := json.Unmarshal(c.Body(), v); err != nil {
		return invalid("the body must be a JSON object: %s", jsonProblem(err))
	}
	return nil
}

func (d *Deps) apiRegister(c *fiber.Ctx) error {
	var in struct {
		Email    string `json:"email"`
		Password string `json:"password"`
		Name     string `json:"name"`
	}
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	if err := d.Limiter.AllowRegister(ctx, c.IP()); err != nil {
		return err
	}
	uid, err := d.Users.Register(ctx, in.Email, in.Password, in.Name)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(fiber.Map{"user_id": id(uid)})
}

func (d *Deps) apiLogin(c *fiber.Ctx) error {
	var in struct {
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	if strings.TrimSpace(in.Email) == "" || in.Password == "" {
		return invalid("email and password are required")
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	if err := d.Limiter.AllowLogin(ctx, in.Email, c.IP()); err != nil {
		return err
	}
	tok, u, err := d.Users.Login(ctx, in.Email, in.Password)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"token": tok, "user_id": id(u.ID), "role": u.Role})
}

func (d *Deps) apiLogout(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	tok, _ := c.Locals("token").(string)
	if err := d.Users.Logout(ctx, tok); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (d *Deps) apiShows(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	shows, err := d.Shows.OnDate(ctx, utils.CopyString(c.Query("date")))
	if err != nil {
		return err
	}
	out := make([]showJSON, len(shows))
	for i, s := range shows {
		out[i] = showOut(s, false, 0)
	}
	return c.JSON(fiber.Map{"shows": out})
}

func (d *Deps) apiShow(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "show not found"}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	s, err := d.Shows.Get(ctx, showID)
	if err != nil {
		return err
	}
	return c.JSON(showOut(s, true, d.Orders.HoldFor()))
}

func (d *Deps) apiSeats(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "show not found"}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	lag := time.Duration(0)
	if currentUser(c) == nil {
		lag = seatMapAnonymousLag
	}
	version := func() uint64 { return d.Shows.SeatMapVersion(showID) }
	build := func(ctx context.Context) (any, error) {
		m, err := d.Shows.SeatMap(ctx, showID)
		if err != nil {
			return nil, err
		}
		return seatMapOut(m), nil
	}
	// a big hall's map is about 100 bytes a seat: gzipped (once per build) it is a
	// tenth of that, for every client that accepts it
	get := d.seatMaps.get
	c.Vary(fiber.HeaderAcceptEncoding)
	if c.Get(fiber.HeaderAcceptEncoding) != "" && c.AcceptsEncodings("gzip") == "gzip" {
		get = d.seatMaps.getGzip
		c.Set(fiber.HeaderContentEncoding, "gzip")
	}
	body, err := get(ctx, showID, lag, version, build)
	if err != nil {
		c.Response().Header.Del(fiber.HeaderContentEncoding)
		return err
	}
	c.Type("json", "utf-8")
	return c.Send(body)
}

func (d *Deps) apiCreateOrder(c *fiber.Ctx) error {
	req := services.CreateOrderRequest{UserID: currentUser(c).ID}
	if err := parseOrderBody(c.Body(), &req); err != nil {
		return err
	}
	showID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "show not found"}
	}
	req.ShowID = showID
	req.IdempotencyKey = utils.CopyString(c.Get("Idempotency-Key"))
	ctx, cancel := ctxOf(c)
	defer cancel()
	o, err := d.Orders.Create(ctx, req)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(orderOut(o))
}

func (d *Deps) apiOrders(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	orders, err := d.Orders.List(ctx, currentUser(c).ID, 200)
	if err != nil {
		return err
	}
	out := make([]orderJSON, len(orders))
	for i, o := range orders {
		out[i] = orderOut(o)
	}
	return c.JSON(fiber.Map{"orders": out})
}

func (d *Deps) apiOrder(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	o, err := d.Orders.Get(ctx, currentUser(c).ID, utils.CopyString(c.Params("no")))
	if err != nil {
		return err
	}
	return c.JSON(orderOut(o))
}

func (d *Deps) apiCancel(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	o, err := d.Orders.Cancel(ctx, currentUser(c).ID, utils.CopyString(c.Params("no")))
	if err != nil {
		return err
	}
	return c.JSON(orderOut(o))
}

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
	return c.JSON(fiber.Map{"payment_id": p.PaymentID, "redirect_url": url})
}

func (d *Deps) apiWebhook(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	raw := append([]byte(nil), c.Body()...)
	p, err := d.Payments.HandleWebhook(ctx, utils.CopyString(c.Params("provider")), raw, utils.CopyString(c.Get("X-Signature")))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"ok": true, "payment_id": p.PaymentID})
}
