package handlers

import (
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/views"
)

// page is the layout's part of a page's props, with the CSRF token its forms carry.
func page(c *fiber.Ctx, title string) views.Page {
	uri, _ := localPath(string(c.Request().RequestURI()))
	return views.Page{Title: title, User: currentUser(c), Path: c.Path(), CSRF: csrfToken(c), URI: strings.Clone(uri),
		Lang: views.LangOf(c.UserContext())}
}

// render writes a templ component as the HTML answer with status.
func render(c *fiber.Ctx, status int, comp templ.Component) error {
	c.Status(status)
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Type("html", "utf-8")
	return comp.Render(c.UserContext(), c.Response().BodyWriter())
}

// renderErrorPage answers with an HTML error page in the layout.
func renderErrorPage(c *fiber.Ctx, status int, msg string) error {
	c.Response().ResetBody() // a page that failed half way leaves nothing behind
	l := langOf(c)
	if msg == "" {
		msg = l.StatusTitle(status)
	}
	props := views.ErrorPageProps{Page: page(c, l.StatusTitle(status)), Status: status, Message: msg}
	if status == fiber.StatusTooManyRequests {
		props.RetryAfterS, _ = strconv.Atoi(string(c.Response().Header.Peek(fiber.HeaderRetryAfter)))
	}
	if c.Method() == fiber.MethodGet {
		if u, ok := localPath(string(c.Request().RequestURI())); ok {
			props.TryURL = strings.Clone(u)
		}
	}
	return render(c, status, views.ErrorPage(props))
}

// errorPage renders err as an error page with its contract status.
func errorPage(c *fiber.Ctx, err error) error {
	st, se := pageError(c, err)
	return renderErrorPage(c, st, serviceText(langOf(c), se, se.Message))
}

// pageError maps err to its status and message, and sets Retry-After for rate limits.
func pageError(c *fiber.Ctx, err error) (int, *services.Error) {
	st, se := asError(err)
	if se.RetryAfterS > 0 {
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(se.RetryAfterS))
	}
	return st, se
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

// localPath accepts only a path on this site ("/..." but not "//..." or "/\..."), so a
// next parameter can never send the user elsewhere.
func localPath(next string) (string, bool) {
	if len(next) == 0 || len(next) > 512 || next[0] != '/' {
		return "", false
	}
	if len(next) > 1 && (next[1] == '/' || next[1] == '\\') {
		return "", false
	}
	for i := 0; i < len(next); i++ {
		if next[i] < 0x20 || next[i] == 0x7f || next[i] == '\\' {
			return "", false
		}
	}
	return next, true
}

// nowUTC is the time pages are rendered at.
func nowUTC() time.Time { return time.Now().UTC() }

// copyParam copies a route parameter out of Fiber's reused buffer.
func copyParam(c *fiber.Ctx, name string) string {
	return strings.Clone(c.Params(name))
}
