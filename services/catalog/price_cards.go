package catalog

import (
	"context"
	"database/sql"
	"errors"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/store"
)

// MaxPriceCardName is the longest price card name in characters; MaxApplyShows the most
// shows one application of a card reaches.
const (
	MaxPriceCardName = 100
	MaxApplyShows    = 500
)

// PriceCardInput is a price card as staff write it: its cinema (fixed once created), a
// name (1..MaxPriceCardName characters, unique in the cinema) and its ticket type ×
// zone prices (minor units; zones by code, as the cinema's halls name them; adult
// prices are the zone prices of the shows it is applied to).
type PriceCardInput struct {
	CinemaID int64
	Name     string
	Prices   []services.TicketPrice
}

// PriceCardApplied is what applying a card did: the shows it priced, by id, and per
// show the zones of its hall the card has no adult price for (they keep theirs).
type PriceCardApplied struct {
	Shows     []int64
	Unpriced  map[int64][]string
	CardName  string
	AppliedAt time.Time
}

// PriceCards lists the price cards of a cinema (0: of every cinema in ctx's scope,
// services.CinemaScopeOf) with their prices, by cinema and name. Errors: FORBIDDEN (a
// cinema outside the scope), UNAVAILABLE.
func (w *CatalogWriter) PriceCards(ctx context.Context, cinemaID int64) ([]*services.PriceCard, error) {
	scope := services.CinemaScopeOf(ctx)
	if cinemaID != 0 {
		if err := scope.Check(cinemaID); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	cards, err := store.PriceCards(ctx, w.db, cinemaID)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	cards = services.InCinemaScope(scope, cards, func(c *services.PriceCard) int64 { return c.CinemaID })
	if err := withCardPrices(ctx, w.db, cards); err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return cards, nil
}

// PriceCard reads one price card with its prices. Errors: NOT_FOUND, FORBIDDEN (a card
// of a cinema outside ctx's scope, services.CinemaScopeOf), UNAVAILABLE.
func (w *CatalogWriter) PriceCard(ctx context.Context, id int64) (*services.PriceCard, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	card, err := store.PriceCardByID(ctx, w.db, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, services.Errorf(services.CodeNotFound, "price card %d not found", id)
	}
	if err == nil {
		err = withCardPrices(ctx, w.db, []*services.PriceCard{card})
	}
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	if err := services.CinemaScopeOf(ctx).Check(card.CinemaID); err != nil {
		return nil, err // another cinema's card: staff limited to cinemas neither see nor change it
	}
	return card, nil
}

func withCardPrices(ctx context.Context, q store.Querier, cards []*services.PriceCard) error {
	if len(cards) == 0 {
		return nil
	}
	ids := make([]int64, len(cards))
	byID := map[int64]*services.PriceCard{}
	for i, c := range cards {
		ids[i], byID[c.ID] = c.ID, c
	}
	rows, err := store.PriceCardPrices(ctx, q, ids)
	for _, r := range rows {
		byID[r.CardID].Prices = append(byID[r.CardID].Prices, r.TicketPrice)
	}
	return err
}

// checkPriceCard trims and checks a card's name and prices: known ticket types, zone
// codes, each pair once, prices 0..MaxPriceMinor; the prices sorted adult first.
// Errors: INVALID_REQUEST, UNAVAILABLE.
func (w *CatalogWriter) checkPriceCard(ctx context.Context, in PriceCardInput) (PriceCardInput, error) {
	in.Name = strings.TrimSpace(in.Name)
	if in.Name == "" || !utf8.ValidString(in.Name) || utf8.RuneCountInString(in.Name) > MaxPriceCardName {
		return in, services.Errorf(services.CodeInvalidRequest, "name must be 1 to %d characters", MaxPriceCardName)
	}
	if err := services.CheckText("name", in.Name, services.SingleLine); err != nil {
		return in, err
	}
	if len(in.Prices) == 0 {
		return in, services.Errorf(services.CodeInvalidRequest, "prices must list at least one ticket type and zone")
	}
	changes := make([]TicketPriceChange, len(in.Prices))
	for i := range in.Prices {
		p := &in.Prices[i]
		p.Zone = strings.TrimSpace(p.Zone)
		if p.Zone != "" && (len(p.Zone) > 32 || services.CheckText("zone", p.Zone, services.SingleLine) != nil) {
			return in, services.Errorf(services.CodeInvalidRequest, "zone %q is not a zone code", p.Zone)
		}
		changes[i] = TicketPriceChange{Type: p.Type, Zone: p.Zone, PriceMinor: &p.PriceMinor}
	}
	if err := w.catalog.checkTicketPrices(ctx, changes, nil, false); err != nil {
		return in, err
	}
	sort.SliceStable(in.Prices, func(i, j int) bool {
		a, b := in.Prices[i], in.Prices[j]
		if (a.Type == services.TicketAdult) != (b.Type == services.TicketAdult) {
			return a.Type == services.TicketAdult
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.Zone < b.Zone
	})
	return in, nil
}

// CreatePriceCard stores a price card of a cinema for actorID, audited as
// "price_card.create", and returns it. Errors: INVALID_REQUEST, NOT_FOUND (cinema), FORBIDDEN
// (a cinema outside ctx's scope),
// CONFLICT (the name is taken in the cinema), UNAVAILABLE.
func (w *CatalogWriter) CreatePriceCard(ctx context.Context, actorID int64, in PriceCardInput) (*services.PriceCard, error) {
	in, err := w.checkPriceCard(ctx, in)
	if err != nil {
		return nil, err
	}
	if _, err := w.catalog.Cinema(ctx, in.CinemaID); err != nil {
		return nil, err
	}
	if err := services.CinemaScopeOf(ctx).Check(in.CinemaID); err != nil {
		return nil, err
	}
	now := w.clock.Now().UTC().Truncate(time.Microsecond)
	var id int64
	ctx2, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	err = store.InTx(ctx2, w.db, func(tx *sqlx.Tx) error {
		var err error
		if id, err = store.InsertPriceCard(ctx2, tx, in.CinemaID, in.Name, now); err != nil {
			return err
		}
		if err := store.ReplacePriceCardPrices(ctx2, tx, id, in.Prices); err != nil {
			return err
		}
		return w.audit.Record(ctx2, tx, actorID, "price_card.create", "price_card", strconv.FormatInt(id, 10), nil, cardAudit(in))
	})
	if err != nil {
		return nil, priceCardWriteError(err, in.Name)
	}
	return w.PriceCard(ctx, id)
}

// UpdatePriceCard renames a card and replaces its prices for actorID, audited as
// "price_card.update" with before and after. Shows it was applied to keep their prices
// (and orders theirs): only later applications use the new prices. Errors:
// INVALID_REQUEST, NOT_FOUND, CONFLICT (name taken), UNAVAILABLE.
func (w *CatalogWriter) UpdatePriceCard(ctx context.Context, actorID, id int64, in PriceCardInput) (*services.PriceCard, error) {
	before, err := w.PriceCard(ctx, id)
	if err != nil {
		return nil, err
	}
	in.CinemaID = before.CinemaID
	if in, err = w.checkPriceCard(ctx, in); err != nil {
		return nil, err
	}
	ctx2, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	err = store.InTx(ctx2, w.db, func(tx *sqlx.Tx) error {
		if err := store.UpdatePriceCard(ctx2, tx, id, in.Name, w.clock.Now().UTC().Truncate(time.Microsecond)); err != nil {
			return err
		}
		if err := store.ReplacePriceCardPrices(ctx2, tx, id, in.Prices); err != nil {
			return err
		}
		was := PriceCardInput{CinemaID: before.CinemaID, Name: before.Name, Prices: before.Prices}
		return w.audit.Record(ctx2, tx, actorID, "price_card.update", "price_card", strconv.FormatInt(id, 10), cardAudit(was), cardAudit(in))
	})
	if err != nil {
		return nil, priceCardWriteError(err, in.Name)
	}
	return w.PriceCard(ctx, id)
}

// ApplyPriceCard prices shows (1..MaxApplyShows, each of the card's cinema, not
// cancelled, not started) from the card for actorID, in one transaction, each show
// audited as "show.apply_price_card": adult prices become the zone prices of the zones
// of its hall the card names (other zones keep theirs), and the other types are sold
// exactly as the card says in its hall's zones (pairs the card does not name stop
// selling). Orders keep their prices. Errors: INVALID_REQUEST (no show, too many, a
// show of another cinema, cancelled or started), NOT_FOUND, UNAVAILABLE.
func (w *CatalogWriter) ApplyPriceCard(ctx context.Context, actorID, cardID int64, showIDs []int64) (*PriceCardApplied, error) {
	if len(showIDs) == 0 || len(showIDs) > MaxApplyShows {
		return nil, services.Errorf(services.CodeInvalidRequest, "show_ids must list 1 to %d shows", MaxApplyShows)
	}
	card, err := w.PriceCard(ctx, cardID)
	if err != nil {
		return nil, err
	}
	now := w.clock.Now()
	out := &PriceCardApplied{Unpriced: map[int64][]string{}, CardName: card.Name, AppliedAt: now.UTC()}
	seen := map[int64]bool{}
	ctx2, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	err = store.InTx(ctx2, w.db, func(tx *sqlx.Tx) error {
		for _, id := range showIDs {
			if seen[id] {
				continue
			}
			seen[id] = true
			s, err := lockShow(ctx2, tx, id)
			if err != nil {
				return err
			}
			if err := w.applyCard(ctx2, tx, actorID, card, s, now, out); err != nil {
				return err
			}
			out.Shows = append(out.Shows, id)
		}
		return nil
	})
	for id := range seen {
		w.catalog.ForgetShow(id)
	}
	if err != nil {
		return nil, asServiceError(err)
	}
	return out, nil
}

// applyCard prices one locked show s from card inside tx (ApplyPriceCard).
func (w *CatalogWriter) applyCard(ctx context.Context, tx *sqlx.Tx, actorID int64, card *services.PriceCard, s *services.Show, now time.Time, out *PriceCardApplied) error {
	hall, err := w.catalog.Hall(ctx, s.HallID)
	if err != nil {
		return err
	}
	switch {
	case hall.CinemaID != card.CinemaID:
		return services.Errorf(services.CodeInvalidRequest, "show %d is not in the price card's cinema", s.ID)
	case s.Stored() == services.ShowCancelled:
		return services.Errorf(services.CodeInvalidRequest, "show %d is cancelled", s.ID)
	case !now.Before(s.StartsAt):
		return services.Errorf(services.CodeInvalidRequest, "show %d has started", s.ID)
	}
	before := showWriteAuditOf(s, now)
	var changes []TicketPriceChange
	adult := map[string]bool{}
	for i := range card.Prices {
		p := card.Prices[i]
		if _, ok := zoneOf(hall, p.Zone); !ok {
			continue
		}
		if p.Type == services.TicketAdult {
			adult[p.Zone] = true
		}
		changes = append(changes, TicketPriceChange{Type: p.Type, Zone: p.Zone, PriceMinor: &card.Prices[i].PriceMinor})
	}
	for _, z := range hall.Zones {
		if !adult[z.Code] {
			out.Unpriced[s.ID] = append(out.Unpriced[s.ID], z.Code)
		}
	}
	if err := store.DeleteShowTicketPrices(ctx, tx, s.ID); err != nil {
		return err
	}
	s.TicketPrices = nil
	if err := setTicketPrices(ctx, tx, s, hall, changes); err != nil {
		return err
	}
	after := showWriteAuditOf(s, now)
	return w.audit.Record(ctx, tx, actorID, "show.apply_price_card", "show", strconv.FormatInt(s.ID, 10), before,
		struct {
			*ShowWriteAudit
			PriceCard int64 `json:"price_card_id"`
		}{after, card.ID})
}

// cardAudit is what the audit log keeps of a price card.
func cardAudit(in PriceCardInput) map[string]any {
	prices := map[string]int64{}
	for _, p := range in.Prices {
		prices[p.Type+"/"+p.Zone] = p.PriceMinor
	}
	return map[string]any{"cinema_id": in.CinemaID, "name": in.Name, "prices": prices}
}

func priceCardWriteError(err error, name string) error {
	if store.DuplicateOn(err, store.PriceCardNameIndex) {
		return services.Errorf(services.CodeConflict, "this cinema already has a price card named %q", name)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return services.Errorf(services.CodeNotFound, "price card not found")
	}
	return asServiceError(err)
}
