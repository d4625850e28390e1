package handlers

import (
	"context"
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/catalog"
)

// HallAdminService is what the hall pages and endpoints need of catalog.CatalogWriter.
type HallAdminService interface {
	HallLayouts(ctx context.Context) ([]*services.Hall, error)
	Hall(ctx context.Context, id int64) (*catalog.HallLayout, error)
	CreateHall(ctx context.Context, actorID int64, in catalog.HallInput) (*catalog.HallLayout, error)
	UpdateHall(ctx context.Context, actorID, id int64, in catalog.HallInput) (*catalog.HallLayout, error)
	ChangeHall(ctx context.Context, actorID, id int64, ch catalog.HallChange) (*catalog.HallLayout, error)
}

// hallLayoutJSON is one hall with its layout: GET, POST and PATCH answer it.
type hallLayoutJSON struct {
	ID        string              `json:"id"`
	CinemaID  string              `json:"cinema_id"`
	Name      string              `json:"name"`
	Rows      int                 `json:"rows"`
	Cols      int                 `json:"cols"`
	Numbering string              `json:"numbering"`
	Layout    *string             `json:"layout"` // null when the hall cannot be written as text
	Seats     int                 `json:"seats"`  // sellable
	Blocked   int                 `json:"blocked"`
	Zones     []hallZoneSeatsJSON `json:"zones"`
}

type hallZoneSeatsJSON struct {
	Code  string `json:"code"`
	Name  string `json:"name"`
	Seats int    `json:"seats"`
}

func hallLayoutOut(h *catalog.HallLayout) hallLayoutJSON {
	out := hallLayoutJSON{ID: id(h.ID), CinemaID: id(h.CinemaID), Name: h.Name, Rows: h.Rows, Cols: h.Cols, Numbering: string(h.Numbering), Zones: []hallZoneSeatsJSON{}}
	if h.LayoutErr == "" {
		out.Layout = &h.Layout
	}
	n := map[string]int{}
	for _, s := range h.Seats {
		if s.Sellable() {
			out.Seats++
			n[s.ZoneCode]++
		} else {
			out.Blocked++
		}
	}
	for _, z := range h.Zones {
		out.Zones = append(out.Zones, hallZoneSeatsJSON{Code: z.Code, Name: z.Name, Seats: n[z.Code]})
	}
	return out
}

// apiAdminHall returns one hall with its layout text -> 200. Errors: 404, 503.
func (d *Deps) apiAdminHall(c *fiber.Ctx) error {
	hallID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "hall not found"}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	h, err := d.Catalog.Hall(ctx, hallID)
	if err != nil {
		return err
	}
	return c.JSON(hallLayoutOut(h))
}

// hallBody is the body of POST and PATCH /api/v1/admin/halls; nil fields were absent.
type hallBody struct {
	CinemaID  int64   // 0 when absent
	Name      *string `json:"name"`
	Layout    *string `json:"layout"`
	Numbering *string `json:"numbering"`
	Prices    []catalog.ZonePrice
}

const hallShape = `{"cinema_id":"1","name":"Hall 4","layout":"SSSS.SSSS\nPPPP.PPPP","numbering":"ltr"}`

func parseHallBody(body []byte) (hallBody, error) {
	var raw struct {
		CinemaID  json.RawMessage `json:"cinema_id"`
		Name      json.RawMessage `json:"name"`
		Layout    json.RawMessage `json:"layout"`
		Numbering json.RawMessage `json:"numbering"`
		Prices    json.RawMessage `json:"prices"`
	}
	var out hallBody
	if err := decodeObject(body, &raw, hallShape); err != nil {
		return out, err
	}
	if isSet(raw.CinemaID) {
		var err error
		if out.CinemaID, err = jsonID(raw.CinemaID, "cinema_id"); err != nil {
			return out, err
		}
	}
	if isSet(raw.Prices) {
		var err error
		if out.Prices, err = jsonPrices(raw.Prices); err != nil {
			return out, err
		}
	}
	for _, f := range []struct {
		raw  json.RawMessage
		dst  **string
		name string
	}{{raw.Name, &out.Name, "name"}, {raw.Layout, &out.Layout, "layout"}, {raw.Numbering, &out.Numbering, "numbering"}} {
		if len(f.raw) == 0 {
			continue
		}
		var s string
		if !isSet(f.raw) || json.Unmarshal(f.raw, &s) != nil {
			return out, invalid("%s must be a string", f.name)
		}
		*f.dst = &s
	}
	return out, nil
}

// apiAdminCreateHall creates a hall from {"cinema_id"?,"name","layout","numbering"?}
// (no cinema_id: the install's first cinema for staff who may use it, else the one
// cinema of staff limited to exactly one) -> 201 the hall. Errors: 400 (name; layout
// problems naming line and column; no cinema_id from staff limited to several cinemas
// without the first), 403 (another cinema), 404 (cinema), 409 CONFLICT (the name is in
// use in the cinema), 503.
func (d *Deps) apiAdminCreateHall(c *fiber.Ctx) error {
	b, err := parseHallBody(c.Body())
	if err != nil {
		return err
	}
	if b.Name == nil || b.Layout == nil {
		return invalid("name and layout are required, like %s", hallShape)
	}
	if len(b.Prices) > 0 {
		return invalid("a new hall has no shows to price: prices go with a change of a hall (PATCH)")
	}
	in := catalog.HallInput{CinemaID: b.CinemaID, Name: *b.Name, Layout: *b.Layout}
	if b.Numbering != nil {
		in.Numbering = catalog.Numbering(*b.Numbering)
	}
	ctx, cancel := hallCtxOf(c)
	defer cancel()
	h, err := d.Catalog.CreateHall(ctx, currentUser(c).ID, in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(hallLayoutOut(h))
}

// apiAdminUpdateHall changes any of a hall's name, layout and numbering (absent fields
// stay; "prices" [{"zone","price_minor"}] price zones the layout adds for the hall's
// shows that have not started) -> 200 the hall. Errors: 400, 404, 409 CONFLICT (the name
// is in use; the layout would remove, move, block or re-zone seats held, sold or kept as
// house seats for shows that have not started: the message names the shows, "seats" the
// labels; or it leaves shows without a price for a zone: the message names them), 503.
func (d *Deps) apiAdminUpdateHall(c *fiber.Ctx) error {
	hallID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "hall not found"}
	}
	b, err := parseHallBody(c.Body())
	if err != nil {
		return err
	}
	ctx, cancel := hallCtxOf(c)
	defer cancel()
	// absent fields stay as the change finds them under the hall's lock, so a rename never
	// undoes a layout change made meanwhile
	ch := catalog.HallChange{Name: b.Name, Layout: b.Layout, Prices: b.Prices}
	if b.Numbering != nil {
		n := catalog.Numbering(*b.Numbering)
		ch.Numbering = &n
	}
	h, err := d.Catalog.ChangeHall(ctx, currentUser(c).ID, hallID, ch)
	if err != nil {
		return err
	}
	return c.JSON(hallLayoutOut(h))
}
