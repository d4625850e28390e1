package handlers

import (
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
	"seatflow/views"
)

// SessionCookie is the browser's session cookie; it carries the same token as the API's
// Bearer header.
const SessionCookie = "sf_session"

const userKey = "user"

// Authenticate resolves the Bearer token (API) or the session cookie (browser) to the
// signed-in user and stores it in c.Locals("user"), and a staff member's cinemas in the
// request's context (loadCinemaScope); it never refuses a request itself.
func (d *Deps) Authenticate(c *fiber.Ctx) error {
	tok := ""
	if h := c.Get(fiber.HeaderAuthorization); len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		tok = strings.TrimSpace(h[7:])
	} else if ck := c.Cookies(SessionCookie); ck != "" && (!isAPI(c) || isSafeMethod(c.Method())) {
		// API writes take only the Bearer header: a cookie could ride on a forged
		// cross-site request, and the API has no CSRF token (pages do)
		tok = ck
	}
	if tok == "" {
		return c.Next()
	}
	// Users.Authenticate bounds its own MySQL read (a cached session needs no deadline)
	u, err := d.Users.Authenticate(c.UserContext(), utils.CopyString(tok))
	if err != nil {
		if services.ErrorCode(err) == services.CodeUnavailable {
			return err
		}
		if isAPI(c) && c.Get(fiber.HeaderAuthorization) != "" {
			return err // a bad bearer token is 401, not anonymous
		}
		return c.Next()
	}
	c.Locals(userKey, u)
	c.Locals("token", utils.CopyString(tok))
	if err := d.loadCinemaScope(c, u); err != nil {
		return err
	}
	return c.Next()
}

// currentUser returns the signed-in user, or nil.
func currentUser(c *fiber.Ctx) *services.User {
	u, _ := c.Locals(userKey).(*services.User)
	return u
}

// RequireUser refuses API calls without a signed-in user (401 UNAUTHENTICATED).
func RequireUser(c *fiber.Ctx) error {
	if currentUser(c) == nil {
		return &services.Error{Code: services.CodeUnauthenticated, Message: "sign in first: send Authorization: Bearer <token>"}
	}
	return c.Next()
}

// RequireRole refuses users without one of the roles (403 FORBIDDEN).
func RequireRole(roles ...string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		u := currentUser(c)
		if u == nil {
			return &services.Error{Code: services.CodeUnauthenticated, Message: "sign in first"}
		}
		for _, r := range roles {
			if u.Role == r {
				return c.Next()
			}
		}
		return &services.Error{Code: services.CodeForbidden, Message: "your account may not do this"}
	}
}

func isSafeMethod(m string) bool {
	return m == fiber.MethodGet || m == fiber.MethodHead || m == fiber.MethodOptions
}

// requirePageUser sends signed-out visitors to the sign-in form, coming back to the page
// they asked for (for a form post: the page the form is on, the path without its last
// segment).
func requirePageUser(c *fiber.Ctx) error {
	if currentUser(c) != nil {
		return c.Next()
	}
	next := strings.Clone(c.Path())
	if c.Method() != fiber.MethodGet && c.Method() != fiber.MethodHead {
		if i := strings.LastIndexByte(next, '/'); i > 0 {
			next = next[:i]
		}
	} else if q := c.Request().URI().QueryString(); len(q) > 0 {
		next += "?" + string(q)
	}
	return redirectToLogin(c, next)
}

// redirectToLogin sends a signed-out visitor to the sign-in form, coming back to next.
// An htmx request (a panel refreshing itself) gets HX-Redirect instead, so the whole
// page goes to the sign-in form rather than the form landing inside the panel.
func redirectToLogin(c *fiber.Ctx, next string) error {
	if c.Get("HX-Request") == "true" {
		c.Set("HX-Redirect", views.LoginURL(next))
		return c.SendStatus(fiber.StatusNoContent)
	}
	return c.Redirect(views.LoginURL(next), fiber.StatusSeeOther)
}

// requirePageRole lets users with one of roles through; signed-out visitors are sent to
// sign in (coming back here), everyone else gets the 403 page.
func requirePageRole(roles ...string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		u := currentUser(c)
		if u == nil {
			return redirectToLogin(c, strings.Clone(c.Path()))
		}
		if !slices.Contains(roles, u.Role) {
			return renderErrorPage(c, fiber.StatusForbidden, forbiddenPageMessage(roles))
		}
		return c.Next()
	}
}

// forbiddenPageMessage tells a signed-in user without one of roles who the page is for.
func forbiddenPageMessage(roles []string) string {
	if slices.Contains(roles, services.RoleStaff) {
		return "This page is for cinema staff only."
	}
	return "This page is for administrators only."
}
