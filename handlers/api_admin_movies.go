package handlers

import (
	"encoding/json"
	"time"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/catalog"
)

// adminMovieJSON is a movie as the admin movie endpoints return it: the catalog's
// fields, whether it is retired (and since when, RFC 3339 UTC) and its upcoming shows.
type adminMovieJSON struct {
	movieJSON
	Retired       bool    `json:"retired"`
	RetiredAt     *string `json:"retired_at"`
	UpcomingShows int     `json:"upcoming_shows"`
}

func adminMovieOut(m *catalog.MovieSummary) adminMovieJSON {
	out := adminMovieJSON{movieJSON: movieOut(&m.Movie), Retired: m.Retired(), UpcomingShows: m.UpcomingShows}
	if m.RetiredAt != nil {
		s := m.RetiredAt.UTC().Format(time.RFC3339)
		out.RetiredAt = &s
	}
	return out
}

// apiAdminUpdateMovie changes a movie: any of {"title": string, "runtime_min":
// integer} -> 200 the movie. Errors: 400, 404, 409 CONFLICT (the title is in use, or
// the runtime changes while the movie has upcoming shows, which the message names), 503.
func (d *Deps) apiAdminUpdateMovie(c *fiber.Ctx) error {
	movieID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "movie not found"}
	}
	var in struct {
		Title      json.RawMessage `json:"title"`
		RuntimeMin json.RawMessage `json:"runtime_min"`
	}
	if err := decodeObject(c.Body(), &in, `{"title":"Dune","runtime_min":155}`); err != nil {
		return err
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	m, err := d.Catalog.MovieSummary(ctx, movieID)
	if err != nil {
		return err
	}
	title, runtime := m.Title, m.RuntimeMin
	if isSet(in.Title) && json.Unmarshal(in.Title, &title) != nil {
		return invalid("title must be a string")
	}
	if isSet(in.RuntimeMin) {
		n, err := jsonInt(in.RuntimeMin)
		if err != nil || n < 1 || n > catalog.MaxRuntimeMin {
			return invalid("runtime_min must be a whole number of minutes from 1 to %d", catalog.MaxRuntimeMin)
		}
		runtime = int(n)
	}
	if m, err = d.Catalog.UpdateMovie(ctx, currentUser(c).ID, movieID, title, runtime); err != nil {
		return err
	}
	return c.JSON(adminMovieOut(m))
}

// apiAdminRetire retires (retire) or un-retires a movie -> 200 the movie; a retired
// movie is not offered for new shows, its existing shows stay. Errors: 404, 503.
func (d *Deps) apiAdminRetire(retire bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		movieID, ok := idParam(c, "id")
		if !ok {
			return &services.Error{Code: services.CodeNotFound, Message: "movie not found"}
		}
		ctx, cancel := ctxOf(c)
		defer cancel()
		do := d.Catalog.UnretireMovie
		if retire {
			do = d.Catalog.RetireMovie
		}
		m, err := do(ctx, currentUser(c).ID, movieID)
		if err != nil {
			return err
		}
		return c.JSON(adminMovieOut(m))
	}
}
