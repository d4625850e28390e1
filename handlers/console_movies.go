package handlers

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/views"
)

// movieForm reads the title and runtime fields of a movie form; problem says what is
// wrong with the runtime ("" when it is a whole number).
func movieForm(c *fiber.Ctx) (views.MovieForm, int, string) {
	f := views.MovieForm{Title: utils.CopyString(c.FormValue("title")), Runtime: utils.CopyString(strings.TrimSpace(c.FormValue("runtime_min")))}
	n, err := strconv.Atoi(f.Runtime)
	if err != nil || n < 1 || n > catalog.MaxRuntimeMin {
		return f, 0, "The runtime must be a whole number of minutes from 1 to " + strconv.Itoa(catalog.MaxRuntimeMin) + "."
	}
	return f, n, ""
}

// moviesPage lists the movies with the create form.
func (d *Deps) moviesPage(c *fiber.Ctx) error {
	return d.renderMovies(c, fiber.StatusOK, views.MovieForm{}, "")
}

// createMoviePage creates a movie from the form and redirects (303) to its page; bad
// input (400) or a title in use (409) shows the list again with the input and why.
func (d *Deps) createMoviePage(c *fiber.Ctx) error {
	f, runtime, problem := movieForm(c)
	if problem != "" {
		return d.renderMovies(c, fiber.StatusBadRequest, f, problem)
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	m, err := d.Catalog.CreateMovie(ctx, currentUser(c).ID, f.Title, runtime)
	if err != nil {
		st, se := pageError(c, err)
		if st >= fiber.StatusInternalServerError {
			return renderErrorPage(c, st, se.Message)
		}
		return d.renderMovies(c, st, f, sentence(se.Message))
	}
	return c.Redirect(views.MovieURL(m.ID), fiber.StatusSeeOther)
}

func (d *Deps) renderMovies(c *fiber.Ctx, status int, f views.MovieForm, msg string) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	movies, err := d.Catalog.MovieSummaries(ctx)
	if err != nil {
		return errorPage(c, err)
	}
	return render(c, status, views.MoviesPage(views.MoviesPageProps{Page: page(c, "Movies"), Movies: movieSummariesView(movies), Form: f, Error: msg}))
}

// moviePage shows one movie's edit form and its retire or un-retire button.
func (d *Deps) moviePage(c *fiber.Ctx) error {
	return d.renderMovie(c, fiber.StatusOK, nil, "")
}

// updateMoviePage saves the edit form and redirects (303) back to the movie; bad
// input (400) or a conflict (409: title in use, runtime with upcoming shows) shows the
// form again with the input and why.
func (d *Deps) updateMoviePage(c *fiber.Ctx) error {
	movieID, ok := idParam(c, "id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, "There is no such movie.")
	}
	f, runtime, problem := movieForm(c)
	if problem != "" {
		return d.renderMovie(c, fiber.StatusBadRequest, &f, problem)
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	if _, err := d.Catalog.UpdateMovie(ctx, currentUser(c).ID, movieID, f.Title, runtime); err != nil {
		st, se := pageError(c, err)
		if st >= fiber.StatusInternalServerError || st == fiber.StatusNotFound {
			return renderErrorPage(c, st, se.Message)
		}
		return d.renderMovie(c, st, &f, sentence(se.Message))
	}
	return c.Redirect(views.MovieURL(movieID)+"?saved=1", fiber.StatusSeeOther)
}

// retireMoviePage retires or un-retires a movie and redirects (303) back to it.
func (d *Deps) retireMoviePage(retire bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		movieID, ok := idParam(c, "id")
		if !ok {
			return renderErrorPage(c, fiber.StatusNotFound, "There is no such movie.")
		}
		ctx, cancel := ctxOf(c)
		defer cancel()
		do := d.Catalog.UnretireMovie
		if retire {
			do = d.Catalog.RetireMovie
		}
		if _, err := do(ctx, currentUser(c).ID, movieID); err != nil {
			return errorPage(c, err)
		}
		return c.Redirect(views.MovieURL(movieID), fiber.StatusSeeOther)
	}
}

// renderMovie renders a movie's page; form (nil: the movie as stored) keeps what the
// user typed after a refused save.
func (d *Deps) renderMovie(c *fiber.Ctx, status int, form *views.MovieForm, msg string) error {
	movieID, ok := idParam(c, "id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, "There is no such movie.")
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	m, err := d.Catalog.MovieSummary(ctx, movieID)
	if err != nil {
		if services.ErrorCode(err) == services.CodeNotFound {
			return renderErrorPage(c, fiber.StatusNotFound, "There is no such movie.")
		}
		return errorPage(c, err)
	}
	f := views.MovieForm{Title: m.Title, Runtime: strconv.Itoa(m.RuntimeMin)}
	if form != nil {
		f = *form
	}
	return render(c, status, views.MoviePage(views.MoviePageProps{Page: page(c, m.Title), Movie: movieSummaryView(m), Form: f, Error: msg,
		Saved: status == fiber.StatusOK && c.Query("saved") == "1", Zone: d.Shows.Zone()}))
}
