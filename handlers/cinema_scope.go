package handlers

import (
	"context"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
	"seatflow/services/staff"
)

// CinemaScopeService is what the handlers need of staff.CinemaScopes: the cinemas a
// signed-in user works for, and the cinema of a hall, show, order or ticket.
type CinemaScopeService interface {
	ScopeOf(ctx context.Context, u *services.User) (services.CinemaScope, error)
	CinemaOf(ctx context.Context, kind, key string) (int64, bool, error)
}

const cinemaScopeKey = "cinema_scope"

// loadCinemaScope puts the cinemas the signed-in staff member works for into the
// request's context (services.WithCinemaScope), where the services that list and write
// halls, shows, orders and the audit log read it; admins and customers need no query.
func (d *Deps) loadCinemaScope(c *fiber.Ctx, u *services.User) error {
	if d.Scopes == nil || u.Role != services.RoleStaff {
		return nil
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	s, err := d.Scopes.ScopeOf(ctx, u)
	if err != nil {
		return err
	}
	c.Locals(cinemaScopeKey, s)
	c.SetUserContext(services.WithCinemaScope(c.UserContext(), s))
	return nil
}

// cinemaScope returns the signed-in user's cinemas (every cinema unless limited staff).
func cinemaScope(c *fiber.Ctx) services.CinemaScope {
	s, _ := c.Locals(cinemaScopeKey).(services.CinemaScope)
	return s
}

// guardCinema runs in front of every staff route of the API (below prefix
// "/api/v1/admin") and the console ("/admin"): for a limited staff member, a path that
// names a hall, show, order, ticket or voucher (/halls/:id, /shows/:id/..., /orders/:no,
// /tickets/:ref, /vouchers/:code) of another cinema answers 403, and so does the door's show or ticket
// (?show=, form show_id and ref). An object that does not exist passes on to the route's
// own 404; lists are filtered by the services from the request's context.
func (d *Deps) guardCinema(prefix string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		scope := cinemaScope(c)
		if scope.All() || d.Scopes == nil {
			return c.Next()
		}
		for _, o := range cinemaObjects(c, prefix) {
			ctx, cancel := ctxOf(c)
			id, found, err := d.Scopes.CinemaOf(ctx, o.kind, o.key)
			cancel()
			if err != nil {
				return err
			}
			if found && !scope.Allows(id) {
				return d.refuseCinema(c, prefix, scope.Check(id))
			}
		}
		return c.Next()
	}
}

// cinemaObject is a hall, show, order or ticket a request names.
type cinemaObject struct{ kind, key string }

// cinemaObjects returns the objects the request below prefix names in its path, and on
// the door's routes in its query and form.
func cinemaObjects(c *fiber.Ctx, prefix string) []cinemaObject {
	rest := strings.TrimPrefix(c.Path(), prefix)
	segs := strings.Split(strings.Trim(rest, "/"), "/")
	var out []cinemaObject
	if len(segs) >= 2 {
		switch segs[0] {
		case staff.ScopeHall, staff.ScopeShow, staff.ScopeOrder, staff.ScopeTicket, staff.ScopeVoucher:
			if segs[0] == staff.ScopeVoucher && segs[1] == "batch" {
				break // the batch routes, not a voucher's code
			}
			if key, err := url.PathUnescape(segs[1]); err == nil && key != "" {
				out = append(out, cinemaObject{segs[0], key})
			}
		}
	}
	if segs[0] == "door" || len(segs) >= 3 && segs[0] == staff.ScopeShow && segs[2] == "door" {
		for _, v := range []string{c.Query("show"), c.FormValue("show_id")} {
			if v != "" {
				out = append(out, cinemaObject{staff.ScopeShow, utils.CopyString(v)})
			}
		}
		if ref := doorRef(c.FormValue("ref")); ref != "" {
			out = append(out, cinemaObject{staff.ScopeTicket, utils.CopyString(ref)})
		}
	}
	return out
}

// refuseCinema answers a limited staff member's request for another cinema's object:
// the contract's 403 JSON on the API, the 403 page in the console.
func (d *Deps) refuseCinema(c *fiber.Ctx, prefix string, err error) error {
	if strings.HasPrefix(prefix, "/api/") {
		return err
	}
	return renderErrorPage(c, fiber.StatusForbidden, "This belongs to a cinema your account does not work for.")
}

// showCinemaID is a show's cinema, for services.InCinemaScope.
func showCinemaID(s *services.Show) int64 { return s.CinemaID }
