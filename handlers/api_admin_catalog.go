package handlers

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/catalog"
)

// CatalogAdminService is what the admin catalog endpoints need of catalog.CatalogWriter.
type CatalogAdminService interface {
	Halls(ctx context.Context) ([]*catalog.HallSummary, error)
	Movies(ctx context.Context) ([]*services.Movie, error)
	CreateMovie(ctx context.Context, actorID int64, title string, runtimeMin int) (*services.Movie, error)
	CreateShow(ctx context.Context, actorID int64, in catalog.NewShow) (*services.Show, error)
	UpdateShow(ctx context.Context, actorID, id int64, ch catalog.ShowChange) (*services.Show, error)
	OpenSale(ctx context.Context, actorID, id int64) (*services.Show, error)
	CloseSale(ctx context.Context, actorID, id int64) (*services.Show, error)
}

// apiAdminHalls lists the halls -> 200 {"halls":[...]}. Errors: 503.
func (d *Deps) apiAdminHalls(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	halls, err := d.Catalog.Halls(ctx)
	if err != nil {
		return err
	}
	out := make([]adminHallJSON, len(halls))
	for i, h := range halls {
		out[i] = adminHallOut(h)
	}
	return c.JSON(fiber.Map{"halls": out})
}

// apiAdminMovies lists the movies -> 200 {"movies":[...]}. Errors: 503.
func (d *Deps) apiAdminMovies(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	movies, err := d.Catalog.Movies(ctx)
	if err != nil {
		return err
	}
	out := make([]movieJSON, len(movies))
	for i, m := range movies {
		out[i] = movieOut(m)
	}
	return c.JSON(fiber.Map{"movies": out})
}

// apiAdminCreateMovie creates a movie -> 201 the movie. Errors: 400, 409 CONFLICT (the
// title is in use), 503.
func (d *Deps) apiAdminCreateMovie(c *fiber.Ctx) error {
	title, runtime, err := parseMovieBody(c.Body())
	if err != nil {
		return err
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	m, err := d.Catalog.CreateMovie(ctx, currentUser(c).ID, title, runtime)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(movieOut(m))
}

// apiAdminCreateShow creates a show -> 201 the show as GET /api/v1/shows/{id} returns
// it. Errors: 400, 404 (movie or hall), 409 CONFLICT (overlap), 503.
func (d *Deps) apiAdminCreateShow(c *fiber.Ctx) error {
	in, err := parseNewShow(c.Body())
	if err != nil {
		return err
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	s, err := d.Catalog.CreateShow(ctx, currentUser(c).ID, in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(d.showDetailOut(c, s))
}

// apiAdminUpdateShow changes a show's sale window, purchase limit or prices -> 200 the
// show. Errors: 400, 404, 409 CONFLICT (cancelled), 503.
func (d *Deps) apiAdminUpdateShow(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "show not found"}
	}
	ch, err := parseShowChange(c.Body())
	if err != nil {
		return err
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	s, err := d.Catalog.UpdateShow(ctx, currentUser(c).ID, showID, ch)
	if err != nil {
		return err
	}
	return c.JSON(d.showDetailOut(c, s))
}

// apiAdminOpenSale opens a show's sale now -> 200 the show, on_sale. Errors: 404, 409
// CONFLICT (cancelled, or started; a closed window reopens until the start), 503.
func (d *Deps) apiAdminOpenSale(c *fiber.Ctx) error {
	return d.saleControl(c, d.Catalog.OpenSale)
}

// apiAdminCloseSale closes a show's sale now -> 200 the show, closed. Errors: 404, 409
// CONFLICT (cancelled), 503.
func (d *Deps) apiAdminCloseSale(c *fiber.Ctx) error {
	return d.saleControl(c, d.Catalog.CloseSale)
}

func (d *Deps) saleControl(c *fiber.Ctx, do func(ctx context.Context, actorID, id int64) (*services.Show, error)) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "show not found"}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	s, err := do(ctx, currentUser(c).ID, showID)
	if err != nil {
		return err
	}
	return c.JSON(showOut(s, true, d.Orders.HoldFor()))
}
