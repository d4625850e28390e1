package handlers

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"seatflow/views"
)

// programmeDays is how many local days the home page lists: today and the next 6.
const programmeDays = 7

// homePage lists the shows of today and the next days, grouped by local day; ?date=
// (one of those days, cinema time) keeps one day and ?movie= (a movie id) one movie.
// Unknown values show everything.
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

// programme reads the shows of today and the next days (cinema time), keeping one
// movie when movieID is one of theirs, and one day when ?date= names one of the days.
func (d *Deps) programme(c *fiber.Ctx, movieID int64) (views.HomeProps, error) {
	ctx, cancel := ctxOf(c)
	defer cancel()
	loc := d.Shows.Zone()
	now := nowUTC()
	local := now.In(loc)
	from := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
	to := from.AddDate(0, 0, programmeDays)
	shows, err := d.Shows.Between(ctx, from.UTC(), to.UTC())
	if err != nil {
		return views.HomeProps{}, err
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
				states[s.ID] = l.StateWithMap(s, now, loc, seatMapView(m), d.Orders.HoldFor())
			}
		}
	}
	return views.HomeProps{Page: page(c, tr(c, "layout.shows", nil)), Days: days, Now: now, Zone: loc, AllDays: all,
		Date: date, Movies: movies, MovieID: movieID, States: states}, nil
}
