package handlers

import (
	"strings"

	"github.com/gofiber/fiber/v2"
)

// The API's password reset (API.md, Reset a forgotten password): asking for a link by
// e-mail, and using the link's token to set a new password.

// apiPasswordReset e-mails a reset link: {"email"} -> 202 {"status":"sent"}, the same
// whether or not an account has that address. Errors: 400 INVALID_REQUEST (no usable
// address), 429 RATE_LIMITED (per address and per client), 503 UNAVAILABLE.
func (d *Deps) apiPasswordReset(c *fiber.Ctx) error {
	var in struct {
		Email string `json:"email"`
	}
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	if strings.TrimSpace(in.Email) == "" {
		return invalid("email is required")
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	if err := d.Resets.RequestReset(ctx, in.Email, c.IP()); err != nil {
		return err
	}
	return c.Status(fiber.StatusAccepted).JSON(fiber.Map{"status": "sent"})
}

// apiPasswordResetConfirm uses a reset link: {"token","password"} -> 200
// {"status":"reset"}; every session of the account has ended. Errors: 400
// INVALID_REQUEST (the password), 400 RESET_TOKEN_INVALID (unknown, used or expired),
// 503 UNAVAILABLE.
func (d *Deps) apiPasswordResetConfirm(c *fiber.Ctx) error {
	var in struct {
		Token    string `json:"token"`
		Password string `json:"password"`
	}
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	if err := d.Resets.ResetPassword(ctx, in.Token, in.Password); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"status": "reset"})
}
