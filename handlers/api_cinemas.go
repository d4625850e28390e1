package handlers

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/catalog"
)

// CinemaReader is what the pages and endpoints read of the cinemas (seats.Listing).
type CinemaReader interface {
	Cinemas(ctx context.Context) ([]services.Cinema, error)
	Cinema(ctx context.Context, id int64) (services.Cinema, error)
}

// CinemaAdminService is what the admin's cinema endpoints and pages need of
// catalog.CatalogWriter.
type CinemaAdminService interface {
	CreateCinema(ctx context.Context, actorID int64, in catalog.CinemaInput) (services.Cinema, error)
	UpdateCinema(ctx context.Context, actorID, id int64, in catalog.CinemaInput) (services.Cinema, error)
	CinemaCounts(ctx context.Context) (map[int64]catalog.CinemaCounts, error)
}

// cinemaRef is a show's cinema as the show carries it (API.md "Cinemas").
type cinemaRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// cinemaJSON is one cinema of GET /api/v1/cinemas: its IANA time zone and ISO 4217 currency.
type cinemaJSON struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	TimeZone string `json:"time_zone"`
	Currency string `json:"currency"`
}

func cinemaOut(c services.Cinema) cinemaJSON {
	return cinemaJSON{ID: id(c.ID), Name: c.Name, TimeZone: c.TimeZone, Currency: c.Currency}
}

// apiCinemas lists every cinema, the install's first first -> 200 {"cinemas":[...]}.
// Errors: 503.
func (d *Deps) apiCinemas(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	cs, err := d.Cinemas.Cinemas(ctx)
	if err != nil {
		return err
	}
	out := make([]cinemaJSON, len(cs))
	for i, x := range cs {
		out[i] = cinemaOut(x)
	}
	return c.JSON(fiber.Map{"cinemas": out})
}

const cinemaShape = `{"name":"seatflow London","time_zone":"Europe/London","currency":"GBP"}`

// apiAdminCreateCinema creates a cinema from {"name","time_zone","currency"} (admin) ->
// 201 the cinema. Errors: 400 (a missing or blank field, an unknown IANA zone or ISO 4217
// currency), 409 CONFLICT (the name is in use), 503.
func (d *Deps) apiAdminCreateCinema(c *fiber.Ctx) error {
	var in catalog.CinemaInput
	if err := decodeObject(c.Body(), &in, cinemaShape); err != nil {
		return err
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	out, err := d.Catalog.CreateCinema(ctx, currentUser(c).ID, in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(cinemaOut(out))
}

// apiAdminUpdateCinema changes any of a cinema's name, time zone and currency (absent
// fields stay) (admin) -> 200 the cinema. Errors: 400, 404, 409 CONFLICT, 503.
func (d *Deps) apiAdminUpdateCinema(c *fiber.Ctx) error {
	cinemaID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "cinema not found"}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	was, err := d.Cinemas.Cinema(ctx, cinemaID)
	if err != nil {
		return err
	}
	in := catalog.CinemaInput{Name: was.Name, TimeZone: was.TimeZone, Currency: was.Currency}
	if err := decodeObject(c.Body(), &in, cinemaShape); err != nil {
		return err
	}
	out, err := d.Catalog.UpdateCinema(ctx, currentUser(c).ID, cinemaID, in)
	if err != nil {
		return err
	}
	return c.JSON(cinemaOut(out))
}
