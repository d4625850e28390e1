package handlers

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/views"
)

// showsDayPage lists the shows of ?date= (YYYY-MM-DD in the cinema's zone, default
// today) with their seat counts; a malformed date shows today with a 400.
func (d *Deps) showsDayPage(c *fiber.Ctx) error {
	date, status, msg := utils.CopyString(c.Query("date")), fiber.StatusOK, ""
	day, err := time.Parse(time.DateOnly, date)
	if date == "" || err != nil {
		if date != "" {
			status, msg = fiber.StatusBadRequest, "The day must be a date such as "+d.Shows.Today()+"."
		}
		date = d.Shows.Today()
		day, _ = time.Parse(time.DateOnly, date)
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	shows, err := d.Shows.OnDate(ctx, date, 0)
	if err != nil {
		return errorPage(c, err)
	}
	shows = services.InCinemaScope(cinemaScope(c), shows, showCinemaID)
	counts, err := d.Catalog.SeatCounts(ctx, shows)
	if err != nil {
		return errorPage(c, err)
	}
	return render(c, status, views.ShowsDayPage(views.ShowsDayProps{Page: page(c, "Shows"), Date: date,
		Prev: day.AddDate(0, 0, -1).Format(time.DateOnly), Next: day.AddDate(0, 0, 1).Format(time.DateOnly),
		Today: d.Shows.Today(), Shows: shows, Counts: seatCountsView(counts), Zone: d.Shows.Zone(), Now: nowUTC(), Error: msg}))
}

// newShowPage is the empty new-show form: the hall of ?hall_id= (default none), the day
// of ?date= (default tomorrow) at 19:30, its sale open from now until the start, the
// default purchase limit, once, the waiting room off at the default pace, the
// single-seat rule off; the dates in the zone the form is typed in (formLocale).
func (d *Deps) newShowPage(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	hall, err := d.hallOf(ctx, c.Query("hall_id"))
	if err != nil {
		return errorPage(c, err)
	}
	loc, _ := d.formLocale(ctx, c, hall)
	now := d.now().In(loc)
	date := utils.CopyString(c.Query("date"))
	if _, err := time.Parse(time.DateOnly, date); err != nil || date < now.Format(time.DateOnly) {
		date = now.AddDate(0, 0, 1).Format(time.DateOnly)
	}
	f := views.ShowForm{Date: date, Start: "19:30", OpensDate: now.Format(time.DateOnly), OpensTime: now.Format("15:04"),
		Days: "1", Pace: strconv.Itoa(catalog.DefaultAdmitPerMinute), SingleSeatRule: catalog.RuleOff, Prices: map[string]string{}}
	f.OpensDefault, f.DefaultsZone = f.OpensDate+" "+f.OpensTime, loc.String()
	if hall != nil {
		f.HallID = strconv.FormatInt(hall.ID, 10)
	}
	return d.renderNewShow(c, fiber.StatusOK, f, "", nil)
}

// zonePricesPartial is what htmx swaps in when the hall select changes (?hall_id=, with
// the sale opening as typed and as filled in): the hall's price fields (no hall: the
// hint to choose one), the zone hint, and the untouched sale opening moved to the
// hall's cinema's zone.
func (d *Deps) zonePricesPartial(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	f := showForm(c)
	hall, err := d.hallOf(ctx, f.HallID)
	if err != nil {
		return errorPage(c, err)
	}
	loc, currency := d.formLocale(ctx, c, hall)
	rezoneOpening(&f, loc)
	props := views.NewShowProps{Form: f, Hall: hallSummaryView(hall), Currency: currency, Zone: loc}
	d.nameCinemas(ctx, &props, nil, hall, nil)
	return render(c, fiber.StatusOK, views.HallChosen(props))
}

// createShowPage creates the show of the form (every day for N days) and redirects
// (303) to its page, or to the day's list for a repeat. With step=hall (the "Choose
// hall" button without JavaScript) it only shows the form again with the hall's zones.
// Bad input is 400, a clash 409, with the input kept and the reason shown; a repeat
// that created only some days shows which (409).
func (d *Deps) createShowPage(c *fiber.Ctx) error {
	f := showForm(c)
	ctx, cancel := ctxOf(c)
	defer cancel()
	hall, err := d.hallOf(ctx, f.HallID)
	if err != nil {
		return errorPage(c, err)
	}
	var prices []catalog.ZonePrice
	problem := ""
	loc, currency := d.formLocale(ctx, c, hall)
	rezoneOpening(&f, loc)
	if hall != nil {
		// with a price card, a zone left empty takes the card's price
		prices, f.Prices, problem = formPrices(c, hall.Zones, currency, f.PriceCard == "")
	}
	if c.FormValue("step") == "hall" {
		return d.renderNewShow(c, fiber.StatusOK, f, "", nil)
	}
	in, p := localShow(f, hall, prices)
	if p != "" {
		problem = p
	}
	if problem != "" {
		return d.renderNewShow(c, fiber.StatusBadRequest, f, problem, nil)
	}
	results, err := d.Catalog.CreateDaily(ctx, currentUser(c).ID, in)
	if err != nil && len(results) == 0 {
		st, se := pageError(c, err)
		if st >= fiber.StatusInternalServerError {
			return renderErrorPage(c, st, se.Message)
		}
		return d.renderNewShow(c, st, f, consoleMessage(se.Message, loc), nil)
	}
	for i := range results {
		if results[i].Err != nil { // each day's reason in the console's words
			_, se := asError(results[i].Err)
			results[i].Err = &services.Error{Code: se.Code, Message: consoleMessage(se.Message, loc)}
		}
	}
	created := catalog.Created(results)
	switch {
	case created == len(results) && created == 1:
		return c.Redirect(views.AdminShowURL(results[0].Show.ID), fiber.StatusSeeOther)
	case created == len(results):
		return c.Redirect(views.ShowsDayURL(f.Date), fiber.StatusSeeOther)
	case len(results) == 1:
		st, se := pageError(c, results[0].Err)
		return d.renderNewShow(c, st, f, consoleMessage(se.Message, loc), nil)
	}
	msg := "Not every day could be created: see the list below."
	if created == 0 {
		msg = "No day could be created: see the list below."
	}
	return d.renderNewShow(c, fiber.StatusConflict, f, msg, results)
}

// priceCardOptions are cards as the new-show form offers them.
func priceCardOptions(cards []*services.PriceCard) []views.PriceCardOption {
	out := make([]views.PriceCardOption, len(cards))
	for i, c := range cards {
		out[i] = views.PriceCardOption{ID: c.ID, Name: c.Name}
	}
	return out
}

// hallOf returns the hall summary of a typed hall id; nil for none or an unknown id.
func (d *Deps) hallOf(ctx context.Context, typed string) (*catalog.HallSummary, error) {
	id, ok := parseID(strings.TrimSpace(typed))
	if !ok {
		return nil, nil
	}
	halls, err := d.Catalog.Halls(ctx)
	if err != nil {
		return nil, err
	}
	for _, h := range halls {
		if h.ID == id {
			return h, nil
		}
	}
	return nil, nil
}

// renderNewShow renders the new-show form with the movies on offer and the halls.
func (d *Deps) renderNewShow(c *fiber.Ctx, status int, f views.ShowForm, msg string, results []catalog.DayResult) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	movies, err := d.Catalog.MovieSummaries(ctx)
	if err != nil {
		return errorPage(c, err)
	}
	offered := movies[:0]
	for _, m := range movies {
		if !m.Retired() {
			offered = append(offered, m)
		}
	}
	halls, err := d.Catalog.Halls(ctx)
	if err != nil {
		return errorPage(c, err)
	}
	var hall *catalog.HallSummary
	for _, h := range halls {
		if strconv.FormatInt(h.ID, 10) == f.HallID {
			hall = h
		}
	}
	loc, currency := d.formLocale(ctx, c, hall)
	var cinemaID int64
	if hall != nil {
		cinemaID = hall.CinemaID
	}
	var cards []*services.PriceCard
	if d.Prices != nil {
		if cards, err = d.Prices.PriceCards(ctx, cinemaID); err != nil {
			return errorPage(c, err)
		}
	}
	props := views.NewShowProps{Page: page(c, "New show"), Form: f, Movies: movieSummariesView(offered),
		Halls: hallSummariesView(halls), Hall: hallSummaryView(hall), Currency: currency, Zone: loc, Error: msg, Results: dayResultsView(results),
		PriceCards: priceCardOptions(cards)}
	d.nameCinemas(ctx, &props, halls, hall, cards)
	return render(c, status, views.NewShowPage(props))
}

// nameCinemas names, in a chain, the cinema of each of halls and the chosen hall's (the
// form's dates are typed in its zone) and, with no hall chosen, each price card's; a
// single cinema's form names none.
func (d *Deps) nameCinemas(ctx context.Context, props *views.NewShowProps, halls []*catalog.HallSummary, hall *catalog.HallSummary, cards []*services.PriceCard) {
	cinemas, err := d.Cinemas.Cinemas(ctx)
	if err != nil || len(cinemas) < 2 {
		return
	}
	names := make(map[int64]string, len(cinemas))
	for _, cn := range cinemas {
		names[cn.ID] = cn.Name
	}
	props.CinemaNames = make(map[int64]string, len(halls))
	for _, h := range halls {
		props.CinemaNames[h.ID] = names[h.CinemaID]
	}
	if hall != nil {
		props.CinemaName = names[hall.CinemaID]
		return
	}
	for i, card := range cards {
		props.PriceCards[i].Name = names[card.CinemaID] + " · " + card.Name
	}
}
