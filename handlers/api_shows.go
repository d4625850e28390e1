package handlers

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
)

// The API's shows for everyone: a day's shows, one show, its seat map.

// apiShows lists the shows of ?date= (a date in each show's cinema's zone; today there
// when absent) of every cinema, or of ?cinema_id= -> 200 {"shows"}. Errors: 400 for a
// date that is not YYYY-MM-DD or a cinema_id that is not an id, empty ones included;
// 404 for an unknown cinema.
func (d *Deps) apiShows(c *fiber.Ctx) error {
	if err := refuseBlankQuery(c, "date", "cinema_id"); err != nil {
		return err
	}
	var cinemaID int64
	if v := c.Query("cinema_id"); v != "" {
		var ok bool
		if cinemaID, ok = parseID(v); !ok {
			return invalid("cinema_id must be a cinema's id, such as \"1\" (GET /api/v1/cinemas lists them)")
		}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	shows, err := d.Shows.OnDate(ctx, utils.CopyString(c.Query("date")), cinemaID)
	if err != nil {
		return err
	}
	out := make([]showJSON, len(shows))
	for i, s := range shows {
		out[i] = showOut(s, false, 0)
	}
	return c.JSON(fiber.Map{"shows": out})
}

// apiShow is one show with its zones, prices and hold time -> 200; 404 NOT_FOUND.
func (d *Deps) apiShow(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "show not found"}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	s, err := d.Shows.Get(ctx, showID)
	if err != nil {
		return err
	}
	return c.JSON(d.showDetailOut(c, s))
}

// apiSeats is a show's seat map -> 200 (gzipped when the client accepts it); 404
// NOT_FOUND. Signed-out readers of a busy show may get a map up to seatMapAnonymousLag old.
func (d *Deps) apiSeats(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "show not found"}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	lag := time.Duration(0)
	if currentUser(c) == nil {
		lag = seatMapAnonymousLag
	}
	version := func() uint64 { return d.Shows.SeatMapVersion(showID) }
	build := func(ctx context.Context) (any, error) {
		hall, states, err := d.Shows.SeatStates(ctx, showID)
		if err != nil {
			return nil, err
		}
		layout, err := d.seatMaps.layout(showID, hall)
		if err != nil {
			return nil, err
		}
		return seatMapBody{layout: layout, states: states}, nil
	}
	// a big hall's map is about 100 bytes a seat: gzipped (once per build) it is a
	// tenth of that, for every client that accepts it
	get := d.seatMaps.get
	c.Vary(fiber.HeaderAcceptEncoding)
	if c.Get(fiber.HeaderAcceptEncoding) != "" && c.AcceptsEncodings("gzip") == "gzip" {
		get = d.seatMaps.getGzip
		c.Set(fiber.HeaderContentEncoding, "gzip")
	}
	body, err := get(ctx, showID, lag, version, build)
	if err != nil {
		c.Response().Header.Del(fiber.HeaderContentEncoding)
		return err
	}
	c.Type("json", "utf-8")
	return c.Send(body)
}
