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
	ctx, cancel := ctxOf(c)
	defer cancel()
	loc := d.Shows.Zone()
	now := nowUTC()
	local := now.In(loc)
	from := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
	to := from.AddDate(0, 0, programmeDays)
	shows, err := d.Shows.Between(ctx, from.UTC(), to.UTC())
	if err != nil {
		return errorPage(c, err)
	}
	movies := views.MoviesOf(shows)
	var movieID int64
	if id, err := strconv.ParseInt(c.Query("movie"), 10, 64); err == nil {
		for _, m := range movies {
			if m.ID == id {
				movieID = id
			}
		}
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
	return render(c, fiber.StatusOK, views.HomePage(views.HomeProps{
		Page:    page(c, "Shows"),
		Days:    days,
		Now:     now,
		Zone:    loc,
		AllDays: all,
		Date:    date,
		Movies:  movies,
		MovieID: movieID,
	}))
}
