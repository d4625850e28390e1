package handlers

import (
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/views"
)

// The password reset pages: /password/forgot asks for a link by e-mail,
// /password/reset?token=… takes the new password twice, then sign-in says it worked.

// forgotPasswordPage shows the form that asks for a reset link.
func (d *Deps) forgotPasswordPage(c *fiber.Ctx) error {
	return render(c, fiber.StatusOK, views.ForgotPasswordPage(views.ForgotPasswordProps{Page: page(c, tr(c, "reset.forgot_title", nil))}))
}

// forgotPassword asks for a reset link and says one was sent, the same for any
// address; a refused request (no address, rate limit) re-renders the form.
func (d *Deps) forgotPassword(c *fiber.Ctx) error {
	email := strings.TrimSpace(c.FormValue("email"))
	props := views.ForgotPasswordProps{Page: page(c, tr(c, "reset.forgot_title", nil)), Email: email}
	again := func(status int, msg string) error {
		props.Error = msg
		return render(c, status, views.ForgotPasswordPage(props))
	}
	if email == "" {
		return again(fiber.StatusBadRequest, tr(c, "reset.enter_email", nil))
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	if err := d.Resets.RequestReset(ctx, email, c.IP()); err != nil {
		st, se := pageError(c, err)
		switch se.Code {
		case services.CodeRateLimited: // the wait is minutes: said in whole minutes, rounded up
			wait := time.Duration((se.RetryAfterS+59)/60) * time.Minute
			return again(st, tr(c, "reset.too_many", views.D{"When": langOf(c).Until(wait)}))
		case services.CodeInvalidRequest:
			return again(st, tr(c, "reset.enter_email", nil))
		}
		return again(st, serviceText(langOf(c), se, sentence(se.Message)))
	}
	props.Sent = true
	return render(c, fiber.StatusOK, views.ForgotPasswordPage(props))
}

// resetPasswordPage shows the new-password form of a reset link, or says at once that
// the link no longer works.
func (d *Deps) resetPasswordPage(c *fiber.Ctx) error {
	props := views.ResetPasswordProps{Page: page(c, tr(c, "reset.title", nil)), Token: c.Query("token")}
	ctx, cancel := ctxOf(c)
	defer cancel()
	if err := d.Resets.CheckReset(ctx, props.Token); err != nil {
		st, se := pageError(c, err)
		if se.Code != services.CodeResetTokenInvalid {
			return errorPage(c, err)
		}
		props.Error, props.Dead = tr(c, "svc.reset_token_invalid", nil), true
		return render(c, st, views.ResetPasswordPage(props))
	}
	return render(c, fiber.StatusOK, views.ResetPasswordPage(props))
}

// resetPassword sets the new password of a reset link (typed twice, the same), then
// sends the browser to sign in with a notice; the reset ended every session, the
// browser's own too, so its cookie is cleared. A refusal re-renders the form.
func (d *Deps) resetPassword(c *fiber.Ctx) error {
	props := views.ResetPasswordProps{Page: page(c, tr(c, "reset.title", nil)), Token: c.FormValue("token")}
	password, repeat := c.FormValue("password"), c.FormValue("password2")
	again := func(status int, msg string) error {
		props.Error = msg
		return render(c, status, views.ResetPasswordPage(props))
	}
	if password != repeat {
		return again(fiber.StatusBadRequest, tr(c, "reset.mismatch", nil))
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	if err := d.Resets.ResetPassword(ctx, props.Token, password); err != nil {
		st, se := pageError(c, err)
		switch se.Code {
		case services.CodeResetTokenInvalid:
			props.Dead = true
			return again(st, tr(c, "svc.reset_token_invalid", nil))
		case services.CodeInvalidRequest:
			return again(st, tr(c, "reset.password_rule", nil))
		}
		return again(st, serviceText(langOf(c), se, sentence(se.Message)))
	}
	if c.Cookies(SessionCookie) != "" {
		c.Cookie(&fiber.Cookie{Name: SessionCookie, Value: "", Path: "/", Expires: time.Unix(0, 0), MaxAge: -1,
			HTTPOnly: true, SameSite: fiber.CookieSameSiteLaxMode, Secure: d.SecureCookies})
	}
	rotateCSRF(c)
	return c.Redirect("/login?reset=done", fiber.StatusSeeOther)
}
