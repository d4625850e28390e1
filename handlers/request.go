package handlers

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Reading a request, shared by the API, the pages and the console: the context of its
// service calls, its ids, limits and parameters.

// MaxBodyBytes is the largest request body accepted (API.md: 413 over 64 KiB), but
// on the routes that take a hall's layout (TakesLayout).
const MaxBodyBytes = 64 << 10

// MaxLayoutBodyBytes is the largest body of a route that takes a hall's layout: a
// 300 x 300 layout with row labels is about 95 KB of text, a little more as a form.
const MaxLayoutBodyBytes = 256 << 10

// TakesLayout reports whether method and path (as the request names them) reach a route
// that takes a hall's layout: the console's hall form and its preview (POST
// /admin/halls, /admin/halls/preview, /admin/halls/{id}) and the API's hall writes
// (POST /api/v1/admin/halls, PATCH /api/v1/admin/halls/{id}).
func TakesLayout(method, path string) bool {
	if method != fiber.MethodPost && method != fiber.MethodPatch {
		return false
	}
	p := strings.TrimSuffix(strings.ToLower(path), "/")
	for _, prefix := range []string{"/admin/halls", "/api/v1/admin/halls"} {
		if rest, ok := strings.CutPrefix(p, prefix); ok && (rest == "" || rest[0] == '/' && !strings.Contains(rest[1:], "/")) {
			return true
		}
	}
	return false
}

// BodyLimit is the largest body accepted for method and path, in bytes.
func BodyLimit(method, path string) int {
	if TakesLayout(method, path) {
		return MaxLayoutBodyBytes
	}
	return MaxBodyBytes
}

// requestTimeout bounds the services' work for one request.
const requestTimeout = 10 * time.Second

// ctxOf returns a context for service calls of one request, bounded by requestTimeout.
func ctxOf(c *fiber.Ctx) (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.UserContext(), requestTimeout)
}

// hallWriteTimeout bounds the services' work for a request that writes a hall: a
// stadium's 90,000 seats are inserted, locked and compared in one transaction, which
// the catalog bounds itself by the hall's size (a little over 13 s at most).
const hallWriteTimeout = 30 * time.Second

// hallCtxOf is ctxOf for a request that writes a hall, bounded by hallWriteTimeout.
func hallCtxOf(c *fiber.Ctx) (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.UserContext(), hallWriteTimeout)
}

// isDecimal reports whether s is 1 to 19 ASCII digits (no sign, space or other
// character), the shape of every id and whole number the handlers read; without a
// regular expression, as it runs for every id of every request.
func isDecimal(s string) bool {
	if len(s) == 0 || len(s) > 19 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseID reads a positive decimal id ("7") in its one spelling: digits only, no sign,
// spaces or leading zeros ("07" and "+7" are not 7); anything else is false. Every id of
// a cinema, show, movie, hall, user or run in a path, query or body is read with it.
func parseID(s string) (int64, bool) {
	if !isDecimal(s) || s[0] == '0' {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0
}

// idParam parses a positive integer route parameter with parseID; anything else is
// false, which handlers answer with NOT_FOUND (an id that cannot exist names nothing).
func idParam(c *fiber.Ctx, name string) (int64, bool) {
	return parseID(c.Params(name))
}

// queryLimit reads the ?limit= of a list: def when absent, else a whole number from 1
// to max (INVALID_REQUEST otherwise).
func queryLimit(c *fiber.Ctx, def, max int) (int, error) {
	q := c.Query("limit")
	if q == "" {
		return def, nil
	}
	n, err := strconv.Atoi(q)
	if err != nil || !isDecimal(q) || n < 1 || n > max {
		return 0, invalid("limit must be a whole number from 1 to %d", max)
	}
	return n, nil
}

// copyParam copies a route parameter out of Fiber's reused buffer.
func copyParam(c *fiber.Ctx, name string) string {
	return strings.Clone(c.Params(name))
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

// now is the services' time (Deps.Clock) in UTC: what a page's deadlines are measured from.
func (d *Deps) now() time.Time {
	if d.Clock != nil {
		return d.Clock.Now().UTC()
	}
	return nowUTC()
}

// sprintf is fmt.Sprintf.
func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }
