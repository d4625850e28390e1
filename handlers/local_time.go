package handlers

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/views"
)

// showZone is the time zone s's local dates and times are shown and typed in: its
// cinema's, or the install's first cinema's when s is nil or was read without it.
func (d *Deps) showZone(s *services.Show) *time.Location {
	return views.ShowLoc(s, d.Shows.Zone())
}

// chainCinema is the name of s's cinema when the install has more than one (pages then
// say which cinema a show is at); "" for a single cinema, a nil show or unread cinemas.
func (d *Deps) chainCinema(ctx context.Context, s *services.Show) string {
	if s == nil || d.Cinemas == nil {
		return ""
	}
	if cs, err := d.Cinemas.Cinemas(ctx); err == nil && len(cs) > 1 {
		return s.CinemaName
	}
	return ""
}

// hallLocale returns the time zone and currency (ISO 4217) of hall's cinema: the zone
// a show's dates are typed in and the currency of its prices. A nil hall, or a cinema
// that cannot be read, has the first cinema's zone and the install's currency.
func (d *Deps) hallLocale(ctx context.Context, hall *catalog.HallSummary) (*time.Location, string) {
	if hall != nil && d.Cinemas != nil {
		if c, err := d.Cinemas.Cinema(ctx, hall.CinemaID); err == nil {
			return c.Loc(), c.Currency
		}
	}
	return d.Shows.Zone(), d.Currency
}

// formLocale returns the time zone and currency the new-show form is typed in: the
// chosen hall's cinema's; with no hall chosen, the cinema of a staff member limited to
// exactly one, otherwise the first cinema's zone and the install's currency.
func (d *Deps) formLocale(ctx context.Context, c *fiber.Ctx, hall *catalog.HallSummary) (*time.Location, string) {
	if scope := cinemaScope(c); hall == nil && len(scope.IDs) == 1 && d.Cinemas != nil {
		if cn, err := d.Cinemas.Cinema(ctx, scope.IDs[0]); err == nil {
			return cn.Loc(), cn.Currency
		}
	}
	return d.hallLocale(ctx, hall)
}

// rezoneOpening moves the new-show form's sale opening, while it is still the one the
// form filled in, to the same moment in loc (the chosen hall's cinema's zone), and
// records loc as the zone of the filled-in opening.
func rezoneOpening(f *views.ShowForm, loc *time.Location) {
	if f.DefaultsZone == "" || f.DefaultsZone == loc.String() {
		return
	}
	if f.OpensDate+" "+f.OpensTime == f.OpensDefault {
		from := services.Location(f.DefaultsZone)
		if date, clock, err := services.Rezone(f.OpensDate, f.OpensTime, from, loc); err == nil {
			f.OpensDate, f.OpensTime, f.OpensDefault = date, clock, date+" "+clock
		}
	}
	f.DefaultsZone = loc.String()
}

// pageZone is the zone of a console page's own clock, dates and rows about no show: the
// cinema of a staff member limited to exactly one, otherwise the first cinema's
// (staff.PageZone); pages name it.
func (d *Deps) pageZone(ctx context.Context, c *fiber.Ctx) *time.Location {
	if scope := cinemaScope(c); len(scope.IDs) == 1 && d.Cinemas != nil {
		if cn, err := d.Cinemas.Cinema(ctx, scope.IDs[0]); err == nil {
			return cn.Loc()
		}
	}
	return d.Shows.Zone()
}
