package handlers

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"log/slog"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/csrf"

	"seatflow/views"
)

// CSRFCookie is the browser's CSRF cookie; every POST form echoes its token in the
// views.CSRFField hidden input.
const CSRFCookie = "sf_csrf"

// csrfExpiration is how long a CSRF token lives after the last page that used it (each
// GET extends it), so a form left open over a long break still posts.
const csrfExpiration = 12 * time.Hour

// csrfTokenKey is where the CSRF middleware leaves the request's token in c.Locals.
const csrfTokenKey = "csrf_token"

// CSRF protects the browser's form POSTs with Fiber's CSRF middleware: a GET issues a
// token in the HttpOnly, SameSite=Lax cookie CSRFCookie (Secure with SecureCookies) and
// in c.Locals for page() to put in every form; a POST must send the same token in the
// views.CSRFField form field, and the token must still be in storage. Anything else is
// refused with a 403 page before a handler runs. The JSON API (Bearer tokens, and the
// signed server-to-server payment webhook), /static and the ops endpoints are skipped.
// storage keeps the tokens (nil: this process's memory).
func (d *Deps) CSRF(storage fiber.Storage) fiber.Handler {
	return csrf.New(csrf.Config{
		Next:              skipCSRF,
		Extractor:         csrfFromBoundForm,
		HandlerContextKey: csrfHandlerKey,
		CookieName:        CSRFCookie,
		CookiePath:        "/",
		CookieSecure:      d.SecureCookies,
		CookieHTTPOnly:    true,
		CookieSameSite:    fiber.CookieSameSiteLaxMode,
		Expiration:        csrfExpiration,
		Storage:           storage,
		ContextKey:        csrfTokenKey,
		ErrorHandler:      csrfRefused,
	})
}

// skipCSRF is true for the paths that take no browser forms.
func skipCSRF(c *fiber.Ctx) bool {
	if isAPI(c) {
		return true
	}
	p := c.Path()
	for _, prefix := range []string{"/static", "/healthz", "/readyz", "/metrics"} {
		if p == prefix || strings.HasPrefix(p, prefix+"/") {
			return true
		}
	}
	return false
}

// csrfRefused answers a POST whose CSRF token is missing, wrong or expired: a 403 page
// in the layout; no handler ran, so nothing changed.
func csrfRefused(c *fiber.Ctx, err error) error {
	slog.Debug("csrf: form refused", "method", c.Method(), "path", c.Path(), "err", err)
	return renderErrorPage(c, fiber.StatusForbidden, tr(c, "err.csrf", nil))
}

// csrfHandlerKey is where the CSRF middleware leaves its handler (to delete a token).
const csrfHandlerKey = "csrf_handler"

// csrfToken is the value the page's forms carry in views.CSRFField: the request's CSRF
// token bound to the session (csrfBound); "" when the middleware issued none.
func csrfToken(c *fiber.Ctx) string {
	tok, _ := c.Locals(csrfTokenKey).(string)
	if tok == "" {
		return ""
	}
	return csrfBound(c, strings.Clone(tok))
}

// csrfBound is "<token>.<mac>": the mac is an HMAC-SHA256 of the token keyed with the
// request's session cookie, so a form only posts within the session it was made for
// (a token planted from elsewhere, or one from before sign-in, is refused).
func csrfBound(c *fiber.Ctx, token string) string {
	return csrfBind(c.Cookies(SessionCookie), token)
}

// csrfBind is token bound to the session token session ("" for a signed-out visitor).
func csrfBind(session, token string) string {
	m := hmac.New(sha256.New, []byte("seatflow-csrf|"+session))
	m.Write([]byte(token))
	return token + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
}

// csrfFromBoundForm reads the form's CSRF field and checks its binding to the session;
// it returns the bare token for the middleware's double-submit and storage checks.
func csrfFromBoundForm(c *fiber.Ctx) (string, error) {
	v := c.FormValue(views.CSRFField)
	if v == "" {
		return "", csrf.ErrTokenNotFound
	}
	tok, _, ok := strings.Cut(v, ".")
	if !ok || len(v) > 2*maxCSRFTokenLen || !hmac.Equal([]byte(csrfBound(c, tok)), []byte(v)) {
		return "", csrf.ErrTokenInvalid
	}
	return strings.Clone(tok), nil
}

// rotateCSRF ends the request's CSRF token (storage and cookie), so the next page
// issues a new one: at sign-in and sign-out.
func rotateCSRF(c *fiber.Ctx) {
	if h, ok := c.Locals(csrfHandlerKey).(*csrf.CSRFHandler); ok {
		if err := h.DeleteToken(c); err != nil {
			slog.Debug("csrf: token not deleted", "err", err)
		}
	}
}

// maxCSRFTokenLen bounds the cookie values looked up in storage (tokens are UUIDs).
const maxCSRFTokenLen = 64

// CSRFStorage adapts three functions to fiber.Storage, so the CSRF middleware can keep
// its tokens in a store every process shares (web wires it to Redis) while the handlers
// stay free of Redis. Get returns nil, nil for a missing token; errors are logged and
// read as "no such token" by the middleware (the form is refused, nothing changes).
type CSRFStorage struct {
	GetFunc    func(key string) ([]byte, error)
	SetFunc    func(key string, val []byte, exp time.Duration) error
	DeleteFunc func(key string) error
}

// Get implements fiber.Storage.
func (s CSRFStorage) Get(key string) ([]byte, error) {
	if key == "" || len(key) > maxCSRFTokenLen {
		return nil, nil
	}
	v, err := s.GetFunc(key)
	if err != nil {
		slog.Warn("csrf: token store unavailable", "err", err)
	}
	return v, err
}

// Set implements fiber.Storage.
func (s CSRFStorage) Set(key string, val []byte, exp time.Duration) error {
	if key == "" || len(key) > maxCSRFTokenLen || len(val) == 0 {
		return nil
	}
	err := s.SetFunc(key, val, exp)
	if err != nil {
		slog.Warn("csrf: token store unavailable", "err", err)
	}
	return err
}

// Delete implements fiber.Storage.
func (s CSRFStorage) Delete(key string) error {
	if key == "" || len(key) > maxCSRFTokenLen {
		return nil
	}
	return s.DeleteFunc(key)
}

// Reset implements fiber.Storage; the middleware never calls it.
func (CSRFStorage) Reset() error { return nil }

// Close implements fiber.Storage; the store's owner closes it.
func (CSRFStorage) Close() error { return nil }
