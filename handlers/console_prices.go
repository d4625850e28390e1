package handlers

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/views"
)

// The console's ticket types and price cards page (views.PricesPage): forms POST and
// answer 303 back to the page saying what was done, or re-render it with the input and
// what was wrong.

// pricesPage shows the ticket types, the price cards (?card= opens one in the form) and
// the bulk action that applies a card to upcoming shows.
func (d *Deps) pricesPage(c *fiber.Ctx) error {
	p := views.PricesPageProps{Done: utils.CopyString(c.Query("done"))}
	if id, ok := parseID(c.Query("card")); ok {
		ctx, cancel := ctxOf(c)
		defer cancel()
		card, err := d.Prices.PriceCard(ctx, id)
		if err != nil {
			return errorPage(c, err)
		}
		p.EditCard = id
		p.CardForm = views.PriceCardForm{CinemaID: strconv.FormatInt(card.CinemaID, 10), Name: card.Name, Prices: cardPricesText(card.Prices)}
	}
	return d.renderPrices(c, fiber.StatusOK, p)
}

// cardPricesText writes a card's prices one "type zone price_minor" a line.
func cardPricesText(ps []services.TicketPrice) string {
	var b strings.Builder
	for _, x := range ps {
		b.WriteString(x.Type + " " + x.Zone + " " + strconv.FormatInt(x.PriceMinor, 10) + "\n")
	}
	return b.String()
}

// parseCardPrices reads the card form's prices, one "type zone price_minor" a line;
// problem says which line is wrong ("" none).
func parseCardPrices(text string) ([]services.TicketPrice, string) {
	var out []services.TicketPrice
	for i, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		n, err := strconv.ParseInt(f[len(f)-1], 10, 64)
		if len(f) != 3 || err != nil {
			return nil, "Line " + strconv.Itoa(i+1) + " of the prices must be a ticket type, a zone code and a price in minor units, such as \"child standard 2500\"."
		}
		out = append(out, services.TicketPrice{Type: f[0], Zone: f[1], PriceMinor: n})
	}
	return out, ""
}

// createTicketTypePage adds a ticket type from the form.
func (d *Deps) createTicketTypePage(c *fiber.Ctx) error {
	f := views.TicketTypeForm{Code: utils.CopyString(c.FormValue("code")), Name: utils.CopyString(c.FormValue("name")),
		NameZh: utils.CopyString(c.FormValue("name_zh")), Note: utils.CopyString(c.FormValue("note")), NoteZh: utils.CopyString(c.FormValue("note_zh"))}
	ctx, cancel := ctxOf(c)
	defer cancel()
	t, err := d.Prices.CreateTicketType(ctx, currentUser(c).ID, catalog.TicketTypeInput{Code: f.Code, Name: f.Name, NameZh: f.NameZh, Note: f.Note, NoteZh: f.NoteZh})
	if err != nil {
		return d.refusedPrices(c, err, views.PricesPageProps{TypeForm: f})
	}
	return c.Redirect(views.PricesURL+"?done="+url.QueryEscape("Added the ticket type "+t.Code+"."), fiber.StatusSeeOther)
}

// savePriceCardPage creates a price card (no :id) or replaces one's name and prices.
func (d *Deps) savePriceCardPage(c *fiber.Ctx) error {
	f := views.PriceCardForm{CinemaID: utils.CopyString(c.FormValue("cinema_id")), Name: utils.CopyString(c.FormValue("name")), Prices: utils.CopyString(c.FormValue("prices"))}
	editing, _ := idParam(c, "id")
	props := views.PricesPageProps{CardForm: f, EditCard: editing}
	prices, problem := parseCardPrices(f.Prices)
	if problem != "" {
		props.Error = problem
		return d.renderPrices(c, fiber.StatusBadRequest, props)
	}
	in := catalog.PriceCardInput{Name: f.Name, Prices: prices}
	ctx, cancel := ctxOf(c)
	defer cancel()
	var card *services.PriceCard
	var err error
	if editing > 0 {
		card, err = d.Prices.UpdatePriceCard(ctx, currentUser(c).ID, editing, in)
	} else {
		in.CinemaID, _ = parseID(f.CinemaID)
		card, err = d.Prices.CreatePriceCard(ctx, currentUser(c).ID, in)
	}
	if err != nil {
		return d.refusedPrices(c, err, props)
	}
	return c.Redirect(views.PricesURL+"?done="+url.QueryEscape("Saved the price card "+card.Name+"."), fiber.StatusSeeOther)
}

// applyPriceCardPage applies the chosen card to the shows ticked (the bulk action).
func (d *Deps) applyPriceCardPage(c *fiber.Ctx) error {
	cardID, _ := parseID(c.FormValue("card_id"))
	var shows []int64
	for _, v := range c.Request().PostArgs().PeekMulti("show") {
		if id, ok := parseID(string(v)); ok {
			shows = append(shows, id)
		}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	res, err := d.Prices.ApplyPriceCard(ctx, currentUser(c).ID, cardID, shows)
	if err != nil {
		return d.refusedPrices(c, err, views.PricesPageProps{})
	}
	return c.Redirect(views.PricesURL+"?done="+url.QueryEscape("Applied "+res.CardName+" to "+strconv.Itoa(len(res.Shows))+" shows."), fiber.StatusSeeOther)
}

// refusedPrices shows the page again with p's input and why err refused it (a 5xx: the
// error page).
func (d *Deps) refusedPrices(c *fiber.Ctx, err error, p views.PricesPageProps) error {
	st, se := pageError(c, err)
	if st >= fiber.StatusInternalServerError {
		return renderErrorPage(c, st, se.Message)
	}
	p.Error = sentence(se.Message)
	return d.renderPrices(c, st, p)
}

func (d *Deps) renderPrices(c *fiber.Ctx, status int, p views.PricesPageProps) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	var err error
	if p.Types, err = d.TicketTypes.TicketTypes(ctx); err != nil {
		return errorPage(c, err)
	}
	if p.Cards, err = d.Prices.PriceCards(ctx, 0); err != nil {
		return errorPage(c, err)
	}
	if p.Sites, err = d.Cinemas.Cinemas(ctx); err != nil {
		return errorPage(c, err)
	}
	p.Cinemas, p.Currencies = map[int64]string{}, map[int64]string{}
	for _, cin := range p.Sites {
		p.Cinemas[cin.ID], p.Currencies[cin.ID] = cin.Name, cin.Currency
	}
	// the card form offers only the cinemas the staff member works for
	p.Sites = services.InCinemaScope(services.CinemaScopeOf(ctx), p.Sites, func(c services.Cinema) int64 { return c.ID })
	now := time.Now()
	if d.Clock != nil {
		now = d.Clock.Now()
	}
	if p.Shows, err = d.Shows.Between(ctx, now, now.AddDate(0, 0, 14)); err != nil {
		return errorPage(c, err)
	}
	p.Page = page(c, "Ticket types and price cards")
	return render(c, status, views.PricesPage(p))
}

// parseTicketPriceChanges reads the show form's changes of ticket type prices, one
// "type zone price_minor" or "type zone none" (stop selling) a line; problem says which
// line is wrong ("" none).
func parseTicketPriceChanges(text string) ([]catalog.TicketPriceChange, string) {
	var out []catalog.TicketPriceChange
	for i, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 3 {
			return nil, "Line " + strconv.Itoa(i+1) + " of the other ticket types must be a ticket type, a zone code and a price in minor units or none."
		}
		ch := catalog.TicketPriceChange{Type: f[0], Zone: f[1]}
		if f[2] != "none" {
			n, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil {
				return nil, "Line " + strconv.Itoa(i+1) + " of the other ticket types must end in a price in minor units or none."
			}
			ch.PriceMinor = &n
		}
		out = append(out, ch)
	}
	return out, ""
}
