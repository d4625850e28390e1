package handlers

import (
	"context"
	"time"

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
