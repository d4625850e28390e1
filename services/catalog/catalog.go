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
	h := &services.Hall{}
	if err := c.db.GetContext(ctx, h, "SELECT id, name, rows_n, cols_n FROM halls WHERE id = ?", id); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, services.Errorf(services.CodeNotFound, "hall %d not found", id)
		}
		return nil, store.Unavailable("the database", err)
	}
	if err := c.db.SelectContext(ctx, &h.Zones, `SELECT id, code, name, 0 AS price_minor FROM zones
		WHERE hall_id = ? AND id IN (SELECT zone_id FROM seats WHERE hall_id = ?) ORDER BY id`, id, id); err != nil {
		return nil, store.Unavailable("the database", err)
	}
	if err := c.db.SelectContext(ctx, &h.Seats, `SELECT s.id, s.hall_id, s.zone_id, z.code AS zone_code, s.row_no, s.col_no, s.label, s.kind
		FROM seats s JOIN zones z ON z.id = s.zone_id WHERE s.hall_id = ? ORDER BY s.row_no, s.col_no`, id); err != nil {
		return nil, store.Unavailable("the database", err)
	}
	h.Index()
	return h, nil
}

const showColumns = `sh.id, sh.movie_id, sh.hall_id, sh.starts_at, sh.sale_opens_at, sh.sale_closes_at,
	sh.status, sh.purchase_limit, sh.waiting_room, sh.admit_per_minute, sh.single_seat_rule, sh.currency, sh.created_at, h.name AS hall_name,
	m.id AS "movie.id", m.title AS "movie.title", m.runtime_min AS "movie.runtime_min",
	m.rating AS "movie.rating", m.synopsis AS "movie.synopsis"
	FROM shows sh JOIN movies m ON m.id = sh.movie_id JOIN halls h ON h.id = sh.hall_id`

// Show reads one show with its zones and prices afresh. Errors: NOT_FOUND, UNAVAILABLE.
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
	s := &services.Show{}
	if err := c.db.GetContext(ctx, s, "SELECT "+showColumns+" WHERE sh.id = ?", id); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, services.Errorf(services.CodeNotFound, "show %d not found", id)
		}
		return nil, store.Unavailable("the database", err)
	}
	if err := c.db.SelectContext(ctx, &s.Zones, `SELECT z.id, z.code, z.name, p.price_minor
		FROM show_prices p JOIN zones z ON z.id = p.zone_id WHERE p.show_id = ? ORDER BY p.price_minor DESC, z.id`, id); err != nil {
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
	var shows []*services.Show
	if err := c.db.SelectContext(ctx, &shows, "SELECT "+showColumns+
		" WHERE sh.starts_at >= ? AND sh.starts_at < ? AND sh.status <> 'draft' ORDER BY sh.starts_at, h.name", from, to); err != nil {
		return nil, store.Unavailable("the database", err)
	}
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
	q, args, err := sqlx.In(`SELECT p.show_id, z.id, z.code, z.name, p.price_minor
		FROM show_prices p JOIN zones z ON z.id = p.zone_id WHERE p.show_id IN (?) ORDER BY p.price_minor DESC, z.id`, ids)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		ShowID int64 `db:"show_id"`
		services.Zone
	}
	if err := c.db.SelectContext(ctx, &rows, c.db.Rebind(q), args...); err != nil {
		return nil, store.Unavailable("the database", err)
	}
	for _, r := range rows {
		byID[r.ShowID].Zones = append(byID[r.ShowID].Zones, r.Zone)
	}
	return shows, nil
}
