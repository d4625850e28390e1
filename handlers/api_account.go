package handlers

import (
	"log/slog"
	"strings"

	"github.com/gofiber/fiber/v2"

	"seatflow/services/accounts"
)

// The API's accounts (API.md, Authentication): registering, signing in for a Bearer
// token, signing out.

// apiRegister creates a customer account: {"email","password","name","lang"?} -> 201
// {"user_id"}; lang ("en" or "zh-Hans", default "en") is the language of the account's
// e-mails. Errors: 400 INVALID_REQUEST, 409 CONFLICT (email taken), 429 RATE_LIMITED.
func (d *Deps) apiRegister(c *fiber.Ctx) error {
	var in struct {
		Email    string `json:"email"`
		Password string `json:"password"`
		Name     string `json:"name"`
		Lang     string `json:"lang"`
	}
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	if in.Lang == "" {
		in.Lang = accounts.LangEn
	}
	if err := accounts.CheckLang(in.Lang); err != nil {
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
	if in.Lang != accounts.LangEn { // the column's default
		if err := d.Users.SetLang(ctx, uid, in.Lang); err != nil {
			slog.Warn("register: language not recorded; e-mails go out in English", "user_id", uid, "err", err)
		}
	}
	return c.Status(fiber.StatusCreated).JSON(fiber.Map{"user_id": id(uid)})
}

// apiLogin signs in: {"email","password"} -> 200 {"token","user_id","role"}. Errors: 400
// INVALID_REQUEST, 401 UNAUTHENTICATED (wrong email or password), 429 RATE_LIMITED.
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

// apiLogout ends the session of the Bearer token -> 204.
func (d *Deps) apiLogout(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	tok, _ := c.Locals("token").(string)
	if err := d.Users.Logout(ctx, tok); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}
