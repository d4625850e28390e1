package handlers

import (
	"log/slog"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/accounts"
	"seatflow/views"
)

// nextParam is where to go after signing in: a local path, or "/".
func nextParam(c *fiber.Ctx) string {
	next := c.FormValue("next")
	if next == "" {
		next = c.Query("next")
	}
	if p, ok := localPath(next); ok {
		return strings.Clone(p)
	}
	return "/"
}

// formNext is next as the forms carry it ("" for the home page).
func formNext(next string) string {
	if next == "/" {
		return ""
	}
	return next
}

// loginPage shows the sign-in form (signed-in users go straight on).
func (d *Deps) loginPage(c *fiber.Ctx) error {
	next := nextParam(c)
	if currentUser(c) != nil {
		return c.Redirect(next, fiber.StatusSeeOther)
	}
	props := views.AuthFormProps{Page: page(c, tr(c, "layout.sign_in", nil)), Next: formNext(next)}
	if c.Query("reset") == "done" { // after a password reset (pages_password.go)
		props.Notice = tr(c, "reset.done", nil)
	}
	return render(c, fiber.StatusOK, views.LoginPage(props))
}

// login checks the rate limit and the password, sets the session cookie and goes on.
func (d *Deps) login(c *fiber.Ctx) error {
	next := nextParam(c)
	email := strings.TrimSpace(c.FormValue("email"))
	password := c.FormValue("password")
	again := func(status int, msg string) error {
		return render(c, status, views.LoginPage(views.AuthFormProps{Page: page(c, tr(c, "layout.sign_in", nil)), Email: email, Next: formNext(next), Error: msg}))
	}
	if email == "" || password == "" {
		return again(fiber.StatusBadRequest, tr(c, "auth.enter_both", nil))
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	if err := d.Limiter.AllowLogin(ctx, email, c.IP()); err != nil {
		st, se := pageError(c, err)
		if se.Code == services.CodeRateLimited {
			return again(st, langOf(c).RetryText(se.RetryAfterS))
		}
		return again(st, serviceText(langOf(c), se, sentence(se.Message)))
	}
	token, _, err := d.Users.Login(ctx, email, password)
	if err != nil {
		st, se := pageError(c, err)
		if se.Code == services.CodeUnauthenticated {
			return again(st, tr(c, "auth.wrong", nil))
		}
		return again(st, serviceText(langOf(c), se, sentence(se.Message)))
	}
	d.setSession(c, token)
	return c.Redirect(next, fiber.StatusSeeOther)
}

// registerPage shows the account form.
func (d *Deps) registerPage(c *fiber.Ctx) error {
	next := nextParam(c)
	if currentUser(c) != nil {
		return c.Redirect(next, fiber.StatusSeeOther)
	}
	return render(c, fiber.StatusOK, views.RegisterPage(views.AuthFormProps{Page: page(c, tr(c, "auth.create_title", nil)), Next: formNext(next)}))
}

// register creates an account in the page's language (its e-mails are written in it),
// signs it in and goes on.
func (d *Deps) register(c *fiber.Ctx) error {
	next := nextParam(c)
	name := strings.TrimSpace(c.FormValue("name"))
	email := strings.TrimSpace(c.FormValue("email"))
	password := c.FormValue("password")
	again := func(status int, msg string) error {
		return render(c, status, views.RegisterPage(views.AuthFormProps{Page: page(c, tr(c, "auth.create_title", nil)), Name: name, Email: email, Next: formNext(next), Error: msg}))
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	if err := d.Limiter.AllowRegister(ctx, c.IP()); err != nil {
		st, se := pageError(c, err)
		if se.Code == services.CodeRateLimited {
			return again(st, langOf(c).RetryText(se.RetryAfterS))
		}
		return again(st, serviceText(langOf(c), se, sentence(se.Message)))
	}
	uid, err := d.Users.Register(ctx, email, password, name)
	if err != nil {
		st, se := pageError(c, err)
		return again(st, serviceText(langOf(c), se, sentence(se.Message)))
	}
	if lang := string(langOf(c)); lang != accounts.LangEn { // the column's default
		if err := d.Users.SetLang(ctx, uid, lang); err != nil {
			slog.Warn("register: language not recorded; e-mails go out in English", "user_id", uid, "err", err)
		}
	}
	token, _, err := d.Users.Login(ctx, email, password)
	if err != nil {
		st, se := pageError(c, err)
		return again(st, tr(c, "auth.created_login_failed", views.D{"Why": serviceText(langOf(c), se, sentence(se.Message))}))
	}
	d.setSession(c, token)
	return c.Redirect(next, fiber.StatusSeeOther)
}

// logout ends the session and clears the cookie.
func (d *Deps) logout(c *fiber.Ctx) error {
	if tok, _ := c.Locals("token").(string); tok != "" {
		ctx, cancel := ctxOf(c)
		defer cancel()
		if err := d.Users.Logout(ctx, tok); err != nil {
			return errorPage(c, err)
		}
	}
	c.Cookie(&fiber.Cookie{Name: SessionCookie, Value: "", Path: "/", Expires: time.Unix(0, 0), MaxAge: -1,
		HTTPOnly: true, SameSite: fiber.CookieSameSiteLaxMode, Secure: d.SecureCookies})
	rotateCSRF(c)
	return c.Redirect("/", fiber.StatusSeeOther)
}

// setSession starts the browser's new session: the session the browser had before
// (if any) is ended, the CSRF token is rotated, and the session cookie is set for the
// session's lifetime.
func (d *Deps) setSession(c *fiber.Ctx, token string) {
	if old := c.Cookies(SessionCookie); old != "" && len(old) <= 100 {
		ctx, cancel := ctxOf(c)
		defer cancel()
		_ = d.Users.Logout(ctx, strings.Clone(old)) // an unknown or expired token is fine
	}
	rotateCSRF(c)
	maxAge := d.SessionMaxAge
	if maxAge <= 0 {
		maxAge = accounts.DefaultSessionPolicy.MaxAge
	}
	c.Cookie(&fiber.Cookie{Name: SessionCookie, Value: token, Path: "/", Expires: time.Now().Add(maxAge),
		HTTPOnly: true, SameSite: fiber.CookieSameSiteLaxMode, Secure: d.SecureCookies})
}
