package catalog

import (
	"context"
	"time"

	"seatflow/services"
)

// MaxRepeatDays is the most days one "every day for N days" creates.
const MaxRepeatDays = 31

// LocalShow is a show as staff enter it in the console: dates (YYYY-MM-DD) and clock
// times (HH:MM) local to the cinema's zone, and Days, how many days in a row the show
// is created (1..MaxRepeatDays): day i starts i days after the first at the same local
// clock time and its sale closes i days later too (each show's sale closes the same
// way before its start); the sale opens at the same instant for every day.
// WaitingRoom turns every day's waiting room on from the start (a show of high
// expected demand) at AdmitPerMinute buyers a minute (0 means DefaultAdmitPerMinute).
type LocalShow struct {
	MovieID, HallID        int64
	Date, Start            string
	OpensDate, OpensTime   string
	ClosesDate, ClosesTime string
	Prices                 []ZonePrice
	PurchaseLimit          int
	SelfRefundUntilH       *int // buyers' self-refund cut-off in hours before the start (nil: none)
	Days                   int
	WaitingRoom            bool
	SingleSeatRule         string // off, warn or enforce ("" means off)
	AdmitPerMinute         int
	// TicketPrices price other ticket types per zone (minor units; a nil price: a pair
	// of the price card not sold). PriceCardID (0: none) is a price card of the hall's
	// cinema copied in under what was typed: its adult prices fill the zones Prices
	// leaves out, its other types are sold as it says but for the pairs TicketPrices names.
	TicketPrices []TicketPriceChange
	PriceCardID  int64
}

// DayResult is the outcome of one day of a repeat: its local date (YYYY-MM-DD) and the
// show created, or Err saying why that day was not created.
type DayResult struct {
	Date string
	Show *services.Show
	Err  error
}

// Created counts the days of results that got their show.
func Created(results []DayResult) int {
	n := 0
	for _, r := range results {
		if r.Err == nil {
			n++
		}
	}
	return n
}

// CreateDaily creates the show in on each of in.Days days in a row for actorID, every
// day on its own (each audited as "show.create" by CreateShow): a day whose local time
// does not exist or is ambiguous (daylight saving), or whose show would overlap another
// in the hall, is skipped and reported with its reason, and the other days are still
// created. It returns one result per day in date order. What applies to every day is
// checked first and refused with nothing created. Errors: INVALID_REQUEST (days out of
// range, malformed date or time, purchase limit, waiting room pace, single-seat rule,
// prices, a price card of another cinema),
// NOT_FOUND (movie, hall or price card),
// CONFLICT (a retired movie), UNAVAILABLE (also when the store fails mid-way: the
// results so far are returned with it).
func (w *CatalogWriter) CreateDaily(ctx context.Context, actorID int64, in LocalShow) ([]DayResult, error) {
	if in.Days < 1 || in.Days > MaxRepeatDays {
		return nil, services.Errorf(services.CodeInvalidRequest, "repeat must be a whole number of days from 1 to %d", MaxRepeatDays)
	}
	if in.MovieID <= 0 || in.HallID <= 0 {
		return nil, services.Errorf(services.CodeInvalidRequest, "choose a movie and a hall")
	}
	first, err := parseDates(in.Date, in.OpensDate, in.ClosesDate)
	if err != nil {
		return nil, err
	}
	limit := in.PurchaseLimit
	if limit == 0 {
		limit = w.defaultLimit
	}
	if err := checkLimit(limit); err != nil {
		return nil, err
	}
	if in.AdmitPerMinute != 0 {
		if err := checkPace(in.AdmitPerMinute); err != nil {
			return nil, err
		}
	}
	if in.SingleSeatRule != "" {
		if err := checkRule(in.SingleSeatRule); err != nil {
			return nil, err
		}
	}
	hall, err := w.catalog.Hall(ctx, in.HallID)
	if err != nil {
		return nil, err
	}
	if err := services.CinemaScopeOf(ctx).Check(hall.CinemaID); err != nil {
		return nil, err
	}
	if in.PriceCardID != 0 {
		card, err := w.PriceCard(ctx, in.PriceCardID)
		if err != nil {
			return nil, err
		}
		if card.CinemaID != hall.CinemaID {
			return nil, services.Errorf(services.CodeInvalidRequest, "the price card %q is not of the hall's cinema", card.Name)
		}
		in.Prices, in.TicketPrices = underTyped(card, hall, in.Prices, in.TicketPrices)
	} else {
		_, in.TicketPrices = underTyped(nil, hall, nil, in.TicketPrices)
	}
	if err := checkPrices(in.Prices, hall, true); err != nil {
		return nil, err
	}
	movie, err := w.MovieSummary(ctx, in.MovieID)
	if err != nil {
		return nil, err
	}
	if movie.Retired() {
		return nil, services.Errorf(services.CodeConflict, "the movie %q is retired; un-retire it to schedule new shows", movie.Title)
	}
	cinema, err := w.hallCinema(ctx, hall.CinemaID)
	if err != nil {
		return nil, err
	}
	loc := cinema.Loc() // the dates and times are typed in the hall's cinema's zone
	out := make([]DayResult, 0, in.Days)
	for i := 0; i < in.Days; i++ {
		day := first[0].AddDate(0, 0, i).Format(time.DateOnly)
		res := DayResult{Date: day}
		res.Show, res.Err = w.createDay(ctx, actorID, in, loc, i, first)
		out = append(out, res)
		if services.ErrorCode(res.Err) == services.CodeUnavailable {
			return out, res.Err
		}
	}
	return out, nil
}

// createDay creates day i of in: its dates moved i days on, read in loc.
func (w *CatalogWriter) createDay(ctx context.Context, actorID int64, in LocalShow, loc *time.Location, i int, first [3]time.Time) (*services.Show, error) {
	day := func(d time.Time) string { return d.AddDate(0, 0, i).Format(time.DateOnly) }
	starts, err := services.LocalTime(day(first[0]), in.Start, loc)
	if err != nil {
		return nil, err
	}
	opens, err := services.LocalTime(first[1].Format(time.DateOnly), in.OpensTime, loc)
	if err != nil {
		return nil, prefixed("sale opens: ", err)
	}
	closes, err := services.LocalTime(day(first[2]), in.ClosesTime, loc)
	if err != nil {
		return nil, prefixed("sale closes: ", err)
	}
	return w.CreateShow(ctx, actorID, NewShow{MovieID: in.MovieID, HallID: in.HallID, StartsAt: starts,
		SaleOpensAt: opens, SaleClosesAt: closes, Prices: in.Prices, PurchaseLimit: in.PurchaseLimit, SelfRefundUntilH: in.SelfRefundUntilH,
		WaitingRoom: in.WaitingRoom, AdmitPerMinute: in.AdmitPerMinute, SingleSeatRule: in.SingleSeatRule,
		TicketPrices: in.TicketPrices})
}

// underTyped returns the zone prices and other types' prices of a new show in hall:
// card's (nil: none) in hall's zones under what was typed. A zone prices leaves out
// takes card's adult price; card's other pairs are sold unless typed names them; a
// typed pair with a nil price is not sold, the others are.
func underTyped(card *services.PriceCard, hall *services.Hall, prices []ZonePrice, typed []TicketPriceChange) ([]ZonePrice, []TicketPriceChange) {
	has := map[string]bool{}
	for _, p := range prices {
		has[p.Zone] = true
	}
	var pairs []TicketPriceChange
	if card != nil {
		for i := range card.Prices {
			p := card.Prices[i]
			if _, ok := zoneOf(hall, p.Zone); !ok {
				continue
			}
			if p.Type == services.TicketAdult {
				if !has[p.Zone] {
					prices = append(prices, ZonePrice{Zone: p.Zone, PriceMinor: p.PriceMinor})
					has[p.Zone] = true
				}
				continue
			}
			pairs = append(pairs, TicketPriceChange{Type: p.Type, Zone: p.Zone, PriceMinor: &card.Prices[i].PriceMinor})
		}
	}
	named := map[string]bool{}
	for _, t := range typed {
		named[t.Type+"/"+t.Zone] = true
	}
	out := pairs[:0]
	for _, p := range pairs {
		if !named[p.Type+"/"+p.Zone] {
			out = append(out, p)
		}
	}
	for _, t := range typed {
		if t.PriceMinor != nil {
			out = append(out, t)
		}
	}
	return prices, out
}

// parseDates reads the show's date and the sale window's dates (YYYY-MM-DD, calendar
// days, no zone). Errors: INVALID_REQUEST.
func parseDates(dates ...string) ([3]time.Time, error) {
	var out [3]time.Time
	names := []string{"the date", "the sale opening date", "the sale closing date"}
	for i, d := range dates {
		t, err := time.Parse(time.DateOnly, d)
		if err != nil || !services.LocalDateRe.MatchString(d) {
			return out, services.Errorf(services.CodeInvalidRequest, "%s %q must be a date YYYY-MM-DD", names[i], d)
		}
		out[i] = t
	}
	return out, nil
}

// prefixed returns err with its message after prefix (an *Error keeps its code).
func prefixed(prefix string, err error) error {
	if e, ok := err.(*services.Error); ok {
		c := *e
		c.Message = prefix + c.Message
		return &c
	}
	return err
}
