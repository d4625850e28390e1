package handlers

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/catalog"
)

// The API's ticket types and price cards (API.md "Ticket types and price cards").

// TicketTypeReader lists the ticket types, adult first (catalog.Catalog).
type TicketTypeReader interface {
	TicketTypes(ctx context.Context) ([]services.TicketType, error)
}

// PriceAdminService is what the ticket type and price card endpoints and pages need of
// catalog.CatalogWriter.
type PriceAdminService interface {
	CreateTicketType(ctx context.Context, actorID int64, in catalog.TicketTypeInput) (services.TicketType, error)
	PriceCards(ctx context.Context, cinemaID int64) ([]*services.PriceCard, error)
	PriceCard(ctx context.Context, id int64) (*services.PriceCard, error)
	CreatePriceCard(ctx context.Context, actorID int64, in catalog.PriceCardInput) (*services.PriceCard, error)
	UpdatePriceCard(ctx context.Context, actorID, id int64, in catalog.PriceCardInput) (*services.PriceCard, error)
	ApplyPriceCard(ctx context.Context, actorID, cardID int64, showIDs []int64) (*catalog.PriceCardApplied, error)
}

// ticketTypeJSON is a ticket type as the admin API gives it: name and note in English,
// and in zh-Hans.
type ticketTypeJSON struct {
	Code   string `json:"code"`
	Name   string `json:"name"`
	NameZh string `json:"name_zh"`
	Note   string `json:"note,omitempty"`
	NoteZh string `json:"note_zh,omitempty"`
}

func ticketTypeOut(t services.TicketType) ticketTypeJSON {
	return ticketTypeJSON{Code: t.Code, Name: t.NameEn, NameZh: t.NameZh, Note: t.NoteEn, NoteZh: t.NoteZh}
}

// ticketTypeOrAdult is code, or adult for a seat sold before ticket types.
func ticketTypeOrAdult(code string) string {
	if code == "" {
		return services.TicketAdult
	}
	return code
}

// apiAdminTicketTypes lists the ticket types, adult first -> 200 {"ticket_types"}.
// Errors: 503.
func (d *Deps) apiAdminTicketTypes(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	ts, err := d.TicketTypes.TicketTypes(ctx)
	if err != nil {
		return err
	}
	out := make([]ticketTypeJSON, len(ts))
	for i, t := range ts {
		out[i] = ticketTypeOut(t)
	}
	return c.JSON(fiber.Map{"ticket_types": out})
}

// apiAdminCreateTicketType creates a ticket type {"code","name"} (optional name_zh,
// note, note_zh) -> 201 the type. Errors: 400, 409 CONFLICT (the code is taken), 503.
func (d *Deps) apiAdminCreateTicketType(c *fiber.Ctx) error {
	var in catalog.TicketTypeInput
	if err := decodeObject(c.Body(), &in, `{"code":"child","name":"Child","name_zh":"儿童","note":"ID required at the door"}`); err != nil {
		return err
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	t, err := d.Prices.CreateTicketType(ctx, currentUser(c).ID, in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(ticketTypeOut(t))
}

// showTicketTypeJSON is a type a show sells, with its price in each zone that sells it.
type showTicketTypeJSON struct {
	Code   string           `json:"code"`
	Name   string           `json:"name"`
	Note   string           `json:"note,omitempty"`
	Prices []zonePriceJSON  `json:"prices"`
	types  map[string]int64 // zone -> price, for the pages
}

type zonePriceJSON struct {
	Zone       string `json:"zone"`
	PriceMinor int64  `json:"price_minor"`
}

// showTicketTypes returns the types s sells, adult first, named in lang (types the
// reader does not know yet are named by their code).
func (d *Deps) showTicketTypes(ctx context.Context, s *services.Show, lang string) []showTicketTypeJSON {
	known := map[string]services.TicketType{services.TicketAdult: services.AdultTicketType}
	if d.TicketTypes != nil {
		if ts, err := d.TicketTypes.TicketTypes(ctx); err == nil {
			for _, t := range ts {
				known[t.Code] = t
			}
		}
	}
	var out []showTicketTypeJSON
	for _, code := range s.TicketTypeCodes() {
		t, ok := known[code]
		if !ok {
			t = services.TicketType{Code: code, NameEn: code, NameZh: code}
		}
		st := showTicketTypeJSON{Code: code, Name: t.Name(lang), Note: t.Note(lang), Prices: []zonePriceJSON{}, types: map[string]int64{}}
		for _, z := range s.Zones {
			if p, ok := s.TicketPrice(code, z.Code); ok {
				st.Prices = append(st.Prices, zonePriceJSON{Zone: z.Code, PriceMinor: p})
				st.types[z.Code] = p
			}
		}
		out = append(out, st)
	}
	return out
}

// showDetailJSON is a show as GET /api/v1/shows/{id} gives it: showOut's detail and the
// ticket types it sells, adult first.
type showDetailJSON struct {
	showJSON
	TicketTypes []showTicketTypeJSON `json:"ticket_types"`
}

func (d *Deps) showDetailOut(c *fiber.Ctx, s *services.Show) showDetailJSON {
	ctx, cancel := ctxOf(c)
	defer cancel()
	return showDetailJSON{showJSON: showOut(s, true, d.Orders.HoldFor()), TicketTypes: d.showTicketTypes(ctx, s, string(langOf(c)))}
}

// jsonTicketPrices reads [{"type","zone","price_minor"}], price_minor a whole number of
// minor units, or null (stop selling the pair) where nullable.
func jsonTicketPrices(r json.RawMessage, nullable bool) ([]catalog.TicketPriceChange, error) {
	var raw []struct {
		Type       json.RawMessage `json:"type"`
		Zone       json.RawMessage `json:"zone"`
		PriceMinor json.RawMessage `json:"price_minor"`
	}
	if err := json.Unmarshal(r, &raw); err != nil {
		return nil, invalid(`ticket_prices must be a list like [{"type":"child","zone":"standard","price_minor":3000}]`)
	}
	out := make([]catalog.TicketPriceChange, len(raw))
	for i, p := range raw {
		if !isSet(p.Type) || json.Unmarshal(p.Type, &out[i].Type) != nil || out[i].Type == "" {
			return nil, invalid("ticket_prices[%d].type must be a ticket type code string", i)
		}
		if !isSet(p.Zone) || json.Unmarshal(p.Zone, &out[i].Zone) != nil || out[i].Zone == "" {
			return nil, invalid("ticket_prices[%d].zone must be a zone code string", i)
		}
		if !isSet(p.PriceMinor) {
			if !nullable || len(p.PriceMinor) == 0 {
				return nil, invalid("ticket_prices[%d].price_minor must be a whole number of minor units%s", i, map[bool]string{true: " or null", false: ""}[nullable])
			}
			continue
		}
		v, err := jsonInt(p.PriceMinor)
		if err != nil || v < 0 {
			return nil, invalid("ticket_prices[%d].price_minor must be a whole number of minor units, not negative", i)
		}
		out[i].PriceMinor = &v
	}
	return out, nil
}

// priceCardJSON is a price card as the admin API gives it.
type priceCardJSON struct {
	ID        string          `json:"id"`
	CinemaID  string          `json:"cinema_id"`
	Name      string          `json:"name"`
	Prices    []cardPriceJSON `json:"prices"`
	UpdatedAt string          `json:"updated_at"`
}

type cardPriceJSON struct {
	Type       string `json:"type"`
	Zone       string `json:"zone"`
	PriceMinor int64  `json:"price_minor"`
}

func priceCardOut(p *services.PriceCard) priceCardJSON {
	out := priceCardJSON{ID: id(p.ID), CinemaID: id(p.CinemaID), Name: p.Name, Prices: make([]cardPriceJSON, len(p.Prices)), UpdatedAt: rfc(p.UpdatedAt)}
	for i, x := range p.Prices {
		out.Prices[i] = cardPriceJSON{Type: x.Type, Zone: x.Zone, PriceMinor: x.PriceMinor}
	}
	return out
}

// priceCardBody is the body of POST and PATCH /api/v1/admin/price-cards.
type priceCardBody struct {
	CinemaID json.RawMessage `json:"cinema_id"`
	Name     json.RawMessage `json:"name"`
	Prices   json.RawMessage `json:"prices"`
}

const priceCardShape = `{"cinema_id":"1","name":"Weekday","prices":[{"type":"adult","zone":"standard","price_minor":4500},{"type":"child","zone":"standard","price_minor":3000}]}`

// parsePriceCard reads a price card body: cinema_id (creating only), name and prices (a
// list of {"type","zone","price_minor"}), all required. Errors: INVALID_REQUEST.
func parsePriceCard(body []byte, creating bool) (catalog.PriceCardInput, error) {
	var b priceCardBody
	var in catalog.PriceCardInput
	if err := decodeObject(body, &b, priceCardShape); err != nil {
		return in, err
	}
	var err error
	if creating {
		if in.CinemaID, err = jsonID(b.CinemaID, "cinema_id"); err != nil {
			return in, err
		}
	} else if isSet(b.CinemaID) {
		return in, invalid("cinema_id of a price card cannot change")
	}
	if !isSet(b.Name) || json.Unmarshal(b.Name, &in.Name) != nil {
		return in, invalid("name must be a string")
	}
	if !isSet(b.Prices) {
		return in, invalid("prices is required")
	}
	ps, err := jsonTicketPrices(b.Prices, false)
	if err != nil {
		return in, err
	}
	for _, p := range ps {
		in.Prices = append(in.Prices, services.TicketPrice{Type: p.Type, Zone: p.Zone, PriceMinor: *p.PriceMinor})
	}
	return in, nil
}

// apiAdminPriceCards lists the price cards (?cinema_id= one cinema's) -> 200
// {"price_cards"}. Errors: 400, 503.
func (d *Deps) apiAdminPriceCards(c *fiber.Ctx) error {
	if err := refuseBlankQuery(c, "cinema_id"); err != nil {
		return err
	}
	var cinemaID int64
	if v := c.Query("cinema_id"); v != "" {
		var ok bool
		if cinemaID, ok = parseID(v); !ok {
			return invalid("cinema_id must be a cinema's id")
		}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	cards, err := d.Prices.PriceCards(ctx, cinemaID)
	if err != nil {
		return err
	}
	out := make([]priceCardJSON, len(cards))
	for i, p := range cards {
		out[i] = priceCardOut(p)
	}
	return c.JSON(fiber.Map{"price_cards": out})
}

// apiAdminCreatePriceCard creates a price card -> 201 the card. Errors: 400, 404 (the
// cinema), 409 CONFLICT (the name is taken in the cinema), 503.
func (d *Deps) apiAdminCreatePriceCard(c *fiber.Ctx) error {
	in, err := parsePriceCard(c.Body(), true)
	if err != nil {
		return err
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	p, err := d.Prices.CreatePriceCard(ctx, currentUser(c).ID, in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(priceCardOut(p))
}

// apiAdminPriceCard is one price card -> 200. Errors: 404, 503.
func (d *Deps) apiAdminPriceCard(c *fiber.Ctx) error {
	cardID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "price card not found"}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	p, err := d.Prices.PriceCard(ctx, cardID)
	if err != nil {
		return err
	}
	return c.JSON(priceCardOut(p))
}

// apiAdminUpdatePriceCard replaces a card's name and prices (shows priced from it
// before keep their prices) -> 200 the card. Errors: 400, 404, 409 CONFLICT, 503.
func (d *Deps) apiAdminUpdatePriceCard(c *fiber.Ctx) error {
	cardID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "price card not found"}
	}
	in, err := parsePriceCard(c.Body(), false)
	if err != nil {
		return err
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	p, err := d.Prices.UpdatePriceCard(ctx, currentUser(c).ID, cardID, in)
	if err != nil {
		return err
	}
	return c.JSON(priceCardOut(p))
}

// apiAdminApplyPriceCard prices shows from a card {"show_ids":[...]} -> 200
// {"price_card_id","show_ids","unpriced_zones":{"<show_id>":[zone...]}} (zones the card
// has no adult price for keep theirs). Errors: 400, 404, 503.
func (d *Deps) apiAdminApplyPriceCard(c *fiber.Ctx) error {
	cardID, ok := idParam(c, "id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "price card not found"}
	}
	var b struct {
		ShowIDs []json.RawMessage `json:"show_ids"`
	}
	if err := decodeObject(c.Body(), &b, `{"show_ids":["12","13"]}`); err != nil {
		return err
	}
	ids := make([]int64, 0, len(b.ShowIDs))
	for i, r := range b.ShowIDs {
		n, err := jsonID(r, "show_ids["+id(int64(i))+"]")
		if err != nil {
			return err
		}
		ids = append(ids, n)
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	res, err := d.Prices.ApplyPriceCard(ctx, currentUser(c).ID, cardID, ids)
	if err != nil {
		return err
	}
	return c.JSON(applyOut(cardID, res))
}

func applyOut(cardID int64, res *catalog.PriceCardApplied) fiber.Map {
	shows := make([]string, len(res.Shows))
	unpriced := map[string][]string{}
	for i, s := range res.Shows {
		shows[i] = id(s)
		if z := res.Unpriced[s]; len(z) > 0 {
			sort.Strings(z)
			unpriced[id(s)] = z
		}
	}
	return fiber.Map{"price_card_id": id(cardID), "show_ids": shows, "unpriced_zones": unpriced}
}
