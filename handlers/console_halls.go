package handlers

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/views"
)

// newHallLayout is the layout a new hall's form starts with.
const newHallLayout = "SSSSSS.SSSSSS\nSSSSSS.SSSSSS\nSSSSSS.SSSSSS\nPPPPPP.PPPPPP\nPPPPPP.PPPPPP\nWCSSSS.SSSSCW\n"

// hallListPage lists the halls (?saved= names one just saved).
func (d *Deps) hallListPage(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	halls, err := d.Catalog.HallLayouts(ctx)
	if err != nil {
		return errorPage(c, err)
	}
	saved := ""
	if id, ok := parseID(c.Query("saved")); ok {
		for _, h := range halls {
			if h.ID == id {
				saved = h.Name
			}
		}
	}
	names := map[int64]string{}
	if d.Cinemas != nil {
		cinemas, err := d.Cinemas.Cinemas(ctx)
		if err != nil {
			return errorPage(c, err)
		}
		for _, cin := range cinemas {
			names[cin.ID] = cin.Name
		}
	}
	return render(c, fiber.StatusOK, views.HallListPage(views.HallListProps{Page: page(c, "Halls"), Halls: halls, Saved: saved, Cinemas: names}))
}

// newHallPage shows the empty form with a sample layout.
func (d *Deps) newHallPage(c *fiber.Ctx) error {
	return d.renderHallForm(c, fiber.StatusOK, 0, hallForm{Layout: newHallLayout, Numbering: string(catalog.NumberLeftToRight)}, "")
}

// editHallPage shows a hall's form with its layout as text.
func (d *Deps) editHallPage(c *fiber.Ctx) error {
	hallID, ok := idParam(c, "id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, "There is no such hall.")
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	h, err := d.Catalog.Hall(ctx, hallID)
	if err != nil {
		if services.ErrorCode(err) == services.CodeNotFound {
			return renderErrorPage(c, fiber.StatusNotFound, "There is no such hall.")
		}
		return errorPage(c, err)
	}
	msg := ""
	if h.LayoutErr != "" {
		msg = "This hall's seats cannot be written as layout text (" + h.LayoutErr + "); saving a layout here replaces them."
	}
	return d.renderHallForm(c, fiber.StatusOK, hallID, hallForm{Name: h.Name, Layout: h.Layout, Numbering: string(h.Numbering)}, msg)
}

// hallForm is the hall form as typed; Prices are the optional prices of the layout
// zones for the hall's upcoming shows that have none (zone code -> as typed).
type hallForm struct {
	Name, Layout, Numbering string
	Prices                  map[string]string
	CinemaID                int64 // a new hall's cinema (0: the first the user may use)
}

func readHallForm(c *fiber.Ctx) hallForm {
	return hallForm{
		Name:      utils.CopyString(c.FormValue("name")),
		Layout:    utils.CopyString(c.FormValue("layout")),
		Numbering: utils.CopyString(c.FormValue("numbering")),
		CinemaID:  formCinemaID(c),
	}
}

// formCinemaID is the form's cinema_id, 0 when absent or not an id.
func formCinemaID(c *fiber.Ctx) int64 {
	n, _ := parseID(c.FormValue("cinema_id"))
	return n
}

// saveHall creates (POST /admin/halls) or updates (POST /admin/halls/:id) a hall and
// redirects (303) to the list; the Preview button (action=preview) only re-renders the
// form with the preview. An edit also reads the optional new-zone prices. Bad input
// re-renders the form with what was typed: 400 with the layout's problems or a price that
// is not an amount, 409 for a name in use, seats taken for future shows, or shows left
// without a price for a zone.
func (d *Deps) saveHall(c *fiber.Ctx) error {
	var hallID int64
	if c.Params("id") != "" {
		var ok bool
		if hallID, ok = idParam(c, "id"); !ok {
			return renderErrorPage(c, fiber.StatusNotFound, "There is no such hall.")
		}
	}
	f := readHallForm(c)
	if c.FormValue("action") == "preview" {
		return d.renderHallForm(c, fiber.StatusOK, hallID, f, "")
	}
	ctx, cancel := hallCtxOf(c)
	defer cancel()
	in := catalog.HallInput{Name: f.Name, Layout: f.Layout, Numbering: catalog.Numbering(f.Numbering), CinemaID: f.CinemaID}
	if hallID != 0 {
		var problem string
		if in.Prices, f.Prices, problem = formPrices(c, layoutZones(f), d.Currency, false); problem != "" {
			return d.renderHallForm(c, fiber.StatusBadRequest, hallID, f, problem)
		}
	}
	var h *catalog.HallLayout
	var err error
	if hallID == 0 {
		h, err = d.Catalog.CreateHall(ctx, currentUser(c).ID, in)
	} else {
		h, err = d.Catalog.UpdateHall(ctx, currentUser(c).ID, hallID, in)
	}
	if err != nil {
		st, se := pageError(c, err)
		var le *catalog.LayoutError
		switch {
		case se.Code == services.CodeNotFound && hallID == 0:
			return d.renderHallForm(c, st, hallID, f, "There is no such cinema.")
		case se.Code == services.CodeNotFound:
			return renderErrorPage(c, st, "There is no such hall.")
		case errors.As(err, &le):
			return d.renderHallForm(c, st, hallID, f, layoutProblemsText(le))
		case st < fiber.StatusInternalServerError:
			return d.renderHallForm(c, st, hallID, f, sentence(se.Message))
		}
		return renderErrorPage(c, st, se.Message)
	}
	return c.Redirect("/admin/halls?saved="+id(h.ID), fiber.StatusSeeOther)
}

// layoutZones are the zones the typed layout uses (all layout zones when it does not
// parse: the save then reports the layout's problems): a price typed for a zone the
// layout does not use is left out rather than refused.
func layoutZones(f hallForm) []services.Zone {
	l, err := catalog.ParseLayout(f.Layout, catalog.Numbering(f.Numbering))
	if err != nil {
		return catalog.LayoutZones
	}
	return l.Hall(f.Name).Zones
}

// hallPreview answers the htmx preview of the form's layout: the grid with counts, or
// the problems naming line and column (200 either way, so htmx swaps it in).
func (d *Deps) hallPreview(c *fiber.Ctx) error {
	f := readHallForm(c)
	return render(c, fiber.StatusOK, views.HallPreview(previewOf(f)))
}

// previewOf parses the typed layout for the preview; empty text previews nothing.
func previewOf(f hallForm) views.HallPreviewProps {
	if strings.TrimSpace(f.Layout) == "" {
		return views.HallPreviewProps{}
	}
	l, err := catalog.ParseLayout(f.Layout, catalog.Numbering(f.Numbering))
	var le *catalog.LayoutError
	if errors.As(err, &le) {
		return views.HallPreviewProps{Problems: layoutProblemsView(le.Problems)}
	}
	return views.HallPreviewProps{Layout: hallLayoutView(l)}
}

// renderHallForm renders the hall form with what was typed, its preview and msg.
func (d *Deps) renderHallForm(c *fiber.Ctx, status int, hallID int64, f hallForm, msg string) error {
	title := "New hall"
	if hallID != 0 {
		title = "Edit hall"
	}
	var cinemas []services.Cinema
	if hallID == 0 {
		ctx, cancel := ctxOf(c)
		all, err := d.Cinemas.Cinemas(ctx)
		cancel()
		if err != nil {
			return errorPage(c, err)
		}
		cinemas = services.InCinemaScope(cinemaScope(c), all, func(x services.Cinema) int64 { return x.ID })
	}
	return render(c, status, views.HallFormPage(views.HallFormProps{
		Page: page(c, title), ID: hallID, Name: f.Name, Layout: f.Layout, Numbering: f.Numbering, Error: msg, Preview: previewOf(f),
		Prices: f.Prices, Currency: d.Currency, Zones: catalog.LayoutZones, Legend: layoutLegendView(),
		Cinemas: cinemas, CinemaID: f.CinemaID,
	}))
}

// layoutProblemsText says what is wrong with a layout, every problem named (the preview
// marks where): "The layout is empty: add at least one row of seats, e.g. A|SSSS." for an
// empty one, else "The layout has 2 problems: line 2, column 2: ...; line 3: ...".
func layoutProblemsText(le *catalog.LayoutError) string {
	if len(le.Problems) == 1 && le.Problems[0].Line == 0 && strings.HasPrefix(le.Problems[0].Msg, "the layout has no seat to sell") {
		return "The layout is empty: add at least one row of seats, e.g. SSSSSS.SSSSSS (S a seat, . an aisle)."
	}
	if len(le.Problems) == 1 {
		return "The layout has a problem: " + le.Problems[0].String() + "."
	}
	return fmt.Sprintf("The layout has %d problems: %s.", len(le.Problems), le.Error())
}
