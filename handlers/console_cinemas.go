package handlers

import (
	"strconv"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/views"
)

// cinemasPage lists the install's cinemas with their forms (admins);
// ?saved=<id> adds the notice of a save just made.
func (d *Deps) cinemasPage(c *fiber.Ctx) error {
	p := views.CinemasPageProps{Page: page(c, "Cinemas")}
	if id, err := strconv.ParseInt(c.Query("saved"), 10, 64); err == nil && id > 0 {
		ctx, cancel := ctxOf(c)
		cin, err := d.Cinemas.Cinema(ctx, id)
		cancel()
		if err == nil {
			p.Notice = "Saved " + cin.Name + "."
		}
	}
	return d.renderCinemas(c, fiber.StatusOK, p)
}

// readCinemaForm reads a cinema form's fields as typed.
func readCinemaForm(c *fiber.Ctx) views.CinemaForm {
	return views.CinemaForm{Name: utils.CopyString(c.FormValue("name")), TimeZone: utils.CopyString(c.FormValue("time_zone")),
		Currency: utils.CopyString(c.FormValue("currency"))}
}

// saveCinema creates (POST /admin/cinemas) or changes (POST /admin/cinemas/:id) a
// cinema and redirects (303) to the list with a notice. A blank field, an unknown time
// zone or currency (400) or a name in use (409) shows the list again with what was
// typed and the message; an unknown cinema is the 404 page.
func (d *Deps) saveCinema(c *fiber.Ctx) error {
	var cinemaID int64
	if c.Params("id") != "" {
		var ok bool
		if cinemaID, ok = idParam(c, "id"); !ok {
			return renderErrorPage(c, fiber.StatusNotFound, "There is no such cinema.")
		}
	}
	f := readCinemaForm(c)
	in := catalog.CinemaInput{Name: f.Name, TimeZone: f.TimeZone, Currency: f.Currency}
	ctx, cancel := ctxOf(c)
	defer cancel()
	var out services.Cinema
	var err error
	if cinemaID == 0 {
		out, err = d.Catalog.CreateCinema(ctx, currentUser(c).ID, in)
	} else {
		out, err = d.Catalog.UpdateCinema(ctx, currentUser(c).ID, cinemaID, in)
	}
	if err != nil {
		st, se := pageError(c, err)
		if st == fiber.StatusNotFound || st >= fiber.StatusInternalServerError {
			return renderErrorPage(c, st, se.Message)
		}
		p := views.CinemasPageProps{Page: page(c, "Cinemas"), EditID: cinemaID, Error: sentence(se.Message)}
		if cinemaID == 0 {
			p.New = f
		} else {
			p.Edit = f
		}
		return d.renderCinemas(c, st, p)
	}
	return c.Redirect("/admin/cinemas?saved="+id(out.ID), fiber.StatusSeeOther)
}

// renderCinemas renders the cinemas page with status.
func (d *Deps) renderCinemas(c *fiber.Ctx, status int, p views.CinemasPageProps) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	cs, err := d.Cinemas.Cinemas(ctx)
	if err != nil {
		return errorPage(c, err)
	}
	counts, err := d.Catalog.CinemaCounts(ctx)
	if err != nil {
		return errorPage(c, err)
	}
	p.Cinemas, p.Now = cs, d.now()
	p.Halls, p.Staff = make(map[int64]int, len(counts)), make(map[int64]int, len(counts))
	for id, n := range counts {
		p.Halls[id], p.Staff[id] = n.Halls, n.Staff
	}
	return render(c, status, views.CinemasPage(p))
}
