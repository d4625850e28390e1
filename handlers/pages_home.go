package handlers

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
	"seatflow/views"
)

// programmeDays is how many local days the home page lists: today and the next 6.
const programmeDays = 7

// homePage lists the shows of today and the next days, grouped by local day; ?date=
// (one of those days, cinema time) keeps one day, ?movie= (a movie id) one movie and,
// in a chain, ?cinema= (an id, or "all"; remembered in a cookie) one cinema. Unknown
// values show everything.
func (d *Deps) homePage(c *fiber.Ctx) error {
	movieID, _ := strconv.ParseInt(c.Query("movie"), 10, 64)
	p, err := d.programme(c, movieID)
	if err != nil {
		return errorPage(c, err)
	}
	return render(c, fiber.StatusOK, views.HomePage(p))
}

// movieShowtimesPage is one movie with its showtimes over the programme's days; 404 for a movie
// with no show in them.
func (d *Deps) movieShowtimesPage(c *fiber.Ctx) error {
	movieID, ok := idParam(c, "id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, tr(c, "err.no_movie", nil))
	}
	p, err := d.programme(c, movieID)
	if err != nil {
		return errorPage(c, err)
	}
	for _, m := range p.Movies {
		if m.ID == movieID {
			p.Page.Title = m.Title
			return render(c, fiber.StatusOK, views.MovieShowtimesPage(p, m))
		}
	}
	return renderErrorPage(c, fiber.StatusNotFound, tr(c, "err.movie_no_shows", nil))
}

// cinemaCookie remembers the cinema a buyer chose on the programme: a cinema id, or
// "all" for every cinema.
const cinemaCookie = "cinema"

// chosenCinema is the cinema the programme lists (0: every cinema) of cinemas (nil: a
// single-cinema install, which has no choice): ?cinema= (an id, or "all") when it names
// one, remembered in cinemaCookie for a year, else the cookie's; anything else is every
// cinema.
func (d *Deps) chosenCinema(c *fiber.Ctx, cinemas []services.Cinema) int64 {
	if cinemas == nil {
		return 0
	}
	known := func(v string) (int64, bool) {
		if v == "all" {
			return 0, true
		}
		if id, ok := parseID(v); ok {
			for _, cn := range cinemas {
				if cn.ID == id {
					return id, true
				}
			}
		}
		return 0, false
	}
	if v := c.Query("cinema"); v != "" {
		if id, ok := known(v); ok {
			c.Cookie(&fiber.Cookie{Name: cinemaCookie, Value: utils.CopyString(v), Path: "/", MaxAge: 365 * 24 * 3600,
				HTTPOnly: true, SameSite: fiber.CookieSameSiteLaxMode, Secure: d.SecureCookies})
			return id
		}
		return 0
	}
	id, _ := known(c.Cookies(cinemaCookie))
	return id
}

// programme reads the shows of today and the next days, keeping one movie when movieID
// is one of theirs, one day when ?date= names one of the days, and in a chain one
// cinema when the buyer chose one (chosenCinema). Each show sits on its local day in
// its own cinema's zone; the days are those of the chosen cinema (every cinema: the
// first's).
func (d *Deps) programme(c *fiber.Ctx, movieID int64) (views.HomeProps, error) {
	ctx, cancel := ctxOf(c)
	defer cancel()
	var chain []services.Cinema
	loc := d.Shows.Zone()
	if d.Cinemas != nil {
		cinemas, err := d.Cinemas.Cinemas(ctx)
		if err != nil {
			return views.HomeProps{}, err
		}
		if len(cinemas) > 1 {
			chain = cinemas
		}
	}
	cinemaID := d.chosenCinema(c, chain)
	for _, cn := range chain {
		if cn.ID == cinemaID {
			loc = cn.Loc()
		}
	}
	now := d.now()
	local := now.In(loc)
	from := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
	to := from.AddDate(0, 0, programmeDays)
	// another cinema's local days lie within a day of these
	read, err := d.Shows.Between(ctx, from.AddDate(0, 0, -1).UTC(), to.AddDate(0, 0, 1).UTC())
	if err != nil {
		return views.HomeProps{}, err
	}
	first, last := from.Format(time.DateOnly), to.AddDate(0, 0, -1).Format(time.DateOnly)
	shows := read[:0:0]
	for _, s := range read {
		day := s.StartsAt.In(views.ShowLoc(s, loc)).Format(time.DateOnly)
		if day >= first && day <= last && (cinemaID == 0 || s.CinemaID == cinemaID) {
			shows = append(shows, s)
		}
	}
	movies := views.MoviesOf(shows)
	known := false
	for _, m := range movies {
		known = known || m.ID == movieID
	}
	if !known {
		movieID = 0
	}
	if movieID > 0 {
		kept := shows[:0:0]
		for _, s := range shows {
			if s.Movie.ID == movieID {
				kept = append(kept, s)
			}
		}
		shows = kept
	}
	all := views.GroupByDay(shows, now, loc, programmeDays)
	days, date := all, ""
	for _, day := range all {
		if day.Date == c.Query("date") {
			days, date = []views.ShowDay{day}, day.Date
		}
	}
	// a show with no free seat is told as the show page tells it: "all seats held" while
	// some may come back, "sold out" once all are paid (its seat map decides)
	states := map[int64]views.ShowState{}
	l := langOf(c)
	for _, day := range days {
		for _, s := range day.Shows {
			if s.SeatsLeft > 0 {
				continue
			}
			if m, err := d.Shows.SeatMap(ctx, s.ID); err == nil {
				states[s.ID] = l.StateWithMap(s, now, views.ShowLoc(s, loc), seatMapView(m), d.Orders.HoldFor())
			}
		}
	}
	return views.HomeProps{Page: page(c, tr(c, "layout.shows", nil)), Days: days, Now: now, Zone: loc, AllDays: all,
		Date: date, Movies: movies, MovieID: movieID, States: states, Cinemas: chain, CinemaID: cinemaID,
		Path: utils.CopyString(c.Path())}, nil
}
