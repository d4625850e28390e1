package catalog

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/store"
)

// Catalog reads movies, halls and shows from MySQL. Hall layouts are cached (a hall's
// layout is fixed); shows are cached for ShowCacheTTL on the hot paths. A show's
// Status is derived at read time from its stored status and sale window (Show.StatusAt).
type Catalog struct {
	db    *sqlx.DB
	clock services.Clock
	halls *store.TTLCache[int64, *services.Hall]
	shows *store.TTLCache[int64, *services.Show]
	// cinemas holds the list of cinemas under the key 0 (cinemas.go)
	cinemas *store.TTLCache[int, []services.Cinema]
	// ticketTypes holds every ticket type, adult first, under the key 0 (ticket_types.go)
	ticketTypes *store.TTLCache[int, []services.TicketType]
	// announce tells the other processes that a hall changed (HallChanges); nil alone
	announce func(ctx context.Context, hallID int64)
}

// ShowCacheTTL is how long the hot paths (orders, a show's page and seat map) may use a
// show read earlier (status, sale window, prices). Lists and staff pages read afresh.
const ShowCacheTTL = time.Second

// NewCatalog returns a Catalog over db, telling show statuses by the system clock.
func NewCatalog(db *sqlx.DB) *Catalog {
	c := &Catalog{db: db, clock: services.SystemClock{}}
	c.halls = store.NewTTLCache(time.Minute, c.loadHall)
	c.shows = store.NewTTLCache(ShowCacheTTL, c.loadShow)
	c.cinemas = store.NewTTLCache(CinemaCacheTTL, c.loadCinemas)
	c.ticketTypes = store.NewTTLCache(CinemaCacheTTL, c.loadTicketTypes)
	return c
}

// WithClock makes c tell show statuses by clock and returns c.
func (c *Catalog) WithClock(clock services.Clock) *Catalog {
	c.clock = clock
	return c
}

// Hall returns the layout of a hall (zones and seats ordered by row, col), cached.
// Errors: NOT_FOUND, UNAVAILABLE.
func (c *Catalog) Hall(ctx context.Context, id int64) (*services.Hall, error) {
	return c.halls.Get(ctx, id)
}

func (c *Catalog) loadHall(ctx context.Context, id int64) (*services.Hall, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	h, err := store.HallByID(ctx, c.db, id)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, services.Errorf(services.CodeNotFound, "hall %d not found", id)
		}
		return nil, store.Unavailable("the database", err)
	}
	if h.Zones, err = store.HallSeatZones(ctx, c.db, id); err != nil {
		return nil, store.Unavailable("the database", err)
	}
	if h.Seats, err = store.HallSeats(ctx, c.db, id); err != nil {
		return nil, store.Unavailable("the database", err)
	}
	h.Index()
	return h, nil
}

// Show reads one show with its zones, prices and ticket type prices afresh. Errors: NOT_FOUND, UNAVAILABLE.
func (c *Catalog) Show(ctx context.Context, id int64) (*services.Show, error) {
	return c.loadShow(ctx, id)
}

// CachedShow is Show through a cache of ShowCacheTTL, for the hot paths (orders, the
// public show and seat-map reads): at most one pair of queries per show per TTL in
// this process. The value is shared: never modify it (Shows copies it first). Its
// Status may be up to ShowCacheTTL old: decide with OnSaleAt(now), which derives it
// afresh. Staff writes drop it at once (ForgetShow).
func (c *Catalog) CachedShow(ctx context.Context, id int64) (*services.Show, error) {
	return c.shows.Get(ctx, id)
}

// ForgetShow drops a cached show after staff changed it.
func (c *Catalog) ForgetShow(id int64) { c.shows.Forget(id) }

func (c *Catalog) loadShow(ctx context.Context, id int64) (*services.Show, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	s, err := store.ShowByID(ctx, c.db, id)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, services.Errorf(services.CodeNotFound, "show %d not found", id)
		}
		return nil, store.Unavailable("the database", err)
	}
	if s.Zones, err = store.ShowPrices(ctx, c.db, id); err != nil {
		return nil, store.Unavailable("the database", err)
	}
	if s.TicketPrices, err = store.ShowTicketPrices(ctx, c.db, id); err != nil {
		return nil, store.Unavailable("the database", err)
	}
	s.DeriveStatus(c.clock.Now())
	return s, nil
}

// ShowsBetween lists the shows starting in [from, to) (UTC) that the public may see
// (every status but draft), ordered by start time, with their zones and prices.
func (c *Catalog) ShowsBetween(ctx context.Context, from, to time.Time) ([]*services.Show, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	shows, err := store.ShowsStartingBetween(ctx, c.db, from, to)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return c.withPrices(ctx, shows)
}

// ShowsIn lists the shows the public may see (every status but draft) of each window's
// cinemas starting within its window, ordered by start time, with zones and prices.
// Errors: UNAVAILABLE.
func (c *Catalog) ShowsIn(ctx context.Context, windows []store.ShowWindow) ([]*services.Show, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	shows, err := store.ShowsStartingIn(ctx, c.db, windows)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return c.withPrices(ctx, shows)
}

// withPrices derives the shows' statuses and reads their zones and prices.
func (c *Catalog) withPrices(ctx context.Context, shows []*services.Show) ([]*services.Show, error) {
	if len(shows) == 0 {
		return shows, nil
	}
	ids := make([]int64, len(shows))
	byID := map[int64]*services.Show{}
	now := c.clock.Now()
	for i, s := range shows {
		s.DeriveStatus(now)
		ids[i] = s.ID
		byID[s.ID] = s
	}
	rows, err := store.ShowsPrices(ctx, c.db, ids)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	for _, r := range rows {
		byID[r.ShowID].Zones = append(byID[r.ShowID].Zones, r.Zone)
	}
	typed, err := store.ShowsTicketPrices(ctx, c.db, ids)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	for _, r := range typed {
		byID[r.ShowID].TicketPrices = append(byID[r.ShowID].TicketPrices, r.TicketPrice)
	}
	return shows, nil
}
