package handlers

import (
	"context"
	"fmt"
	"strconv"

	"github.com/gofiber/fiber/v2"
)

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

// ctxOf returns a context for service calls of one request, bounded by requestTimeout.
func ctxOf(c *fiber.Ctx) (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.UserContext(), requestTimeout)
}

// idParam parses a positive integer route parameter; anything else is NOT_FOUND
// (an id that cannot exist names nothing).
func idParam(c *fiber.Ctx, name string) (int64, bool) {
	p := c.Params(name)
	if !digits.MatchString(p) || p[0] == '0' {
		return 0, false // one spelling per id: no sign, no leading zeros
	}
	id, err := strconv.ParseInt(p, 10, 64)
	return id, err == nil && id > 0
}

// queryLimit reads the ?limit= of a list: def when absent, else a whole number from 1
// to max (INVALID_REQUEST otherwise).
func queryLimit(c *fiber.Ctx, def, max int) (int, error) {
	q := c.Query("limit")
	if q == "" {
		return def, nil
	}
	n, err := strconv.Atoi(q)
	if err != nil || !digits.MatchString(q) || n < 1 || n > max {
		return 0, invalid("limit must be a whole number from 1 to %d", max)
	}
	return n, nil
}
