package handlers

import (
	"log/slog"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/views"
)

// LangLocal is the fiber Locals key holding the request's views.Lang.
const LangLocal = "lang"

// langCookieAge is how long the language switcher's choice is kept.
const langCookieAge = 365 * 24 * time.Hour

// Lang chooses the language of the moviegoer pages, first match wins: ?lang=en|zh-Hans
// (the switcher's links: the choice is kept in the sf_lang cookie for a year and the
// browser is sent to the same address without lang), the sf_lang cookie, then the
// Accept-Language header. Junk values are ignored. The choice is put in Locals
// (LangLocal) and in the user context the pages render with (views.LangOf), and the
// answer varies on Accept-Language and Cookie.
//
// The staff console (/admin...) and the JSON API (/api/...) stay English: the console
// is a tool for the cinema's staff, and the API's messages are part of its contract.
// Their requests pass through untouched. secure marks the cookie Secure (HTTPS sites).
// switched (nil: none) is told of a switcher's choice before the redirect (SaveLang).
func Lang(secure bool, switched func(c *fiber.Ctx, lang views.Lang)) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p := c.Path()
		if isAPI(c) || p == "/admin" || strings.HasPrefix(p, "/admin/") {
			return c.Next()
		}
		get := c.Method() == fiber.MethodGet || c.Method() == fiber.MethodHead
		query := ""
		if get {
			query = c.Query(views.LangParam)
		}
		lang, fromQuery := views.NegotiateLang(query, c.Cookies(views.LangCookie), c.Get(fiber.HeaderAcceptLanguage))
		if fromQuery {
			c.Cookie(&fiber.Cookie{
				Name: views.LangCookie, Value: string(lang), Path: "/",
				MaxAge: int(langCookieAge / time.Second), Expires: time.Now().Add(langCookieAge),
				Secure: secure, HTTPOnly: true, SameSite: fiber.CookieSameSiteLaxMode,
			})
			if switched != nil {
				switched(c, lang)
			}
			return c.Redirect(withoutLang(c), fiber.StatusSeeOther)
		}
		c.Locals(LangLocal, lang)
		c.SetUserContext(views.WithLang(c.UserContext(), lang))
		c.Vary(fiber.HeaderAcceptLanguage, fiber.HeaderCookie)
		return c.Next()
	}
}

// withoutLang is the request's path (as the browser sent it) and query without the lang
// parameter; "/" when that would not be a path on this site.
func withoutLang(c *fiber.Ctx) string {
	args := &fiber.Args{}
	c.Request().URI().QueryArgs().CopyTo(args)
	args.Del(views.LangParam)
	u, _, _ := strings.Cut(string(c.Request().RequestURI()), "?")
	if q := args.String(); q != "" {
		u += "?" + q
	}
	if local, ok := localPath(u); ok {
		return local
	}
	return "/"
}

// SaveLang records a signed-in user's switch of language (Lang's switched) in their
// account, so their e-mails follow it: the session cookie names the user (Lang runs
// before Authenticate; the session cache answers), and accounts.Users.SetLang writes
// only when the language changed. It runs only for a switcher's click, never on an
// ordinary page; a failure is logged (the cookie still keeps the choice for the pages).
func (d *Deps) SaveLang(c *fiber.Ctx, lang views.Lang) {
	tok := c.Cookies(SessionCookie)
	if tok == "" {
		return
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	u, err := d.Users.Authenticate(ctx, utils.CopyString(tok))
	if err != nil {
		return // signed out, or the session ended: nobody to record it for
	}
	if err := d.Users.SetLang(ctx, u.ID, string(lang)); err != nil {
		slog.Warn("language switch not recorded in the account", "user_id", u.ID, "err", err)
	}
}
