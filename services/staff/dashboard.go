package staff

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/reports"
	"seatflow/services/store"
)

// Dashboard answers the console's dashboard questions with plain SQL reads: today's
// shows with their occupancy, revenue, today's sales per channel, orders per minute and
// pending orders. "Today"
// and "this week" are days and ISO weeks (Monday first) in the cinema's time zone,
// turned into UTC ranges [from, to) (invariant 7).
type Dashboard struct {
	db    *sqlx.DB
	clock services.Clock
	zone  *time.Location
}

// NewDashboard returns the dashboard reads; zone is the cinema's time zone (UTC when nil).
func NewDashboard(db *sqlx.DB, clock services.Clock, zone *time.Location) *Dashboard {
	if zone == nil {
		zone = time.UTC
	}
	return &Dashboard{db: db, clock: clock, zone: zone}
}

// DashboardPendingListed is how many of the oldest pending orders the snapshot lists.
const DashboardPendingListed = 5

// DashboardSnapshot is everything the dashboard shows, read at Now (UTC).
type DashboardSnapshot struct {
	Now time.Time
	// Zone is the zone of the page's clock and chart (PageZone).
	Zone         *time.Location
	TodayShows   []*ShowOccupancy
	RevenueToday *Revenue
	RevenueWeek  *Revenue
	// Minutes are the 60 one-minute buckets of the last hour, oldest first; the last
	// one is the minute now is in.
	Minutes []MinuteCount
	Pending *PendingOrders
	// Channels are today's sales online and at the box office side by side, each cinema's
	// own local day (reports.ChannelsToday: per currency, online then box office).
	Channels []reports.Row
}

// Snapshot reads every dashboard figure at the clock's now, of the shows and orders of
// the cinemas in ctx's scope (services.CinemaScopeOf). Errors: UNAVAILABLE.
func (d *Dashboard) Snapshot(ctx context.Context) (*DashboardSnapshot, error) {
	now := d.clock.Now().UTC()
	cinemas, err := store.Cinemas(ctx, d.db)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	snap := &DashboardSnapshot{Now: now, Zone: PageZone(cinemas, services.CinemaScopeOf(ctx), d.zone)}
	if snap.TodayShows, err = d.TodayShows(ctx, now); err != nil {
		return nil, err
	}
	if snap.RevenueToday, err = d.LocalRevenue(ctx, now, cinemas, snap.Zone, LocalDay); err != nil {
		return nil, err
	}
	if snap.RevenueWeek, err = d.LocalRevenue(ctx, now, cinemas, snap.Zone, LocalWeek); err != nil {
		return nil, err
	}
	if snap.Minutes, err = d.OrdersPerMinute(ctx, now); err != nil {
		return nil, err
	}
	if snap.Pending, err = d.PendingOrders(ctx, now, DashboardPendingListed); err != nil {
		return nil, err
	}
	scope := services.CinemaScopeOf(ctx)
	if snap.Channels, err = reports.ChannelsToday(ctx, d.db, now, services.InCinemaScope(scope, cinemas, func(c services.Cinema) int64 { return c.ID })); err != nil {
		return nil, err
	}
	return snap, nil
}

// PageZone is the zone of a dashboard's clock and chart: the cinema of a staff member
// limited to exactly one (scope), otherwise the install's first cinema's (cinemas by
// id); fallback when cinemas does not hold it.
func PageZone(cinemas []services.Cinema, scope services.CinemaScope, fallback *time.Location) *time.Location {
	for _, c := range cinemas {
		if len(scope.IDs) != 1 || c.ID == scope.IDs[0] {
			return c.Loc()
		}
	}
	return fallback
}

// LocalDay returns the UTC range [from, to) of the day that t falls on in zone. A day
// with a daylight-saving change is 23 or 25 hours long.
func LocalDay(t time.Time, zone *time.Location) (from, to time.Time) {
	l := t.In(zone)
	start := time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, zone)
	return start.UTC(), start.AddDate(0, 0, 1).UTC()
}

// LocalWeek returns the UTC range [from, to) of the ISO week (Monday 00:00 to the next
// Monday 00:00, in zone) that t falls on.
func LocalWeek(t time.Time, zone *time.Location) (from, to time.Time) {
	l := t.In(zone)
	back := (int(l.Weekday()) + 6) % 7 // days since Monday
	start := time.Date(l.Year(), l.Month(), l.Day()-back, 0, 0, 0, 0, zone)
	return start.UTC(), start.AddDate(0, 0, 7).UTC()
}

// ShowOccupancy is one show with how full it is. Sellable counts the hall's seats that
// are not blocked; Sold the seats of paid orders; Held the seats of pending orders.
// Status is the show's status at the time of reading (Show.StatusAt).
type ShowOccupancy struct {
	ShowID       int64     `db:"id"`
	StartsAt     time.Time `db:"starts_at"`
	MovieTitle   string    `db:"movie_title"`
	HallID       int64     `db:"hall_id"`
	HallName     string    `db:"hall_name"`
	CinemaName   string    `db:"cinema_name"`
	TimeZone     string    `db:"time_zone"` // the hall's cinema's IANA zone
	Status       string    `db:"-"`
	StoredStatus string    `db:"status"`
	SaleOpensAt  time.Time `db:"sale_opens_at"`
	SaleClosesAt time.Time `db:"sale_closes_at"`
	Sellable     int       `db:"sellable"`
	Sold         int       `db:"sold"`
	Held         int       `db:"held"`
}

// Free is the number of sellable seats neither sold nor held (never below 0).
func (s *ShowOccupancy) Free() int { return max(0, s.Sellable-s.Sold-s.Held) }

// SoldPercent is sold seats over sellable seats, 0..100 (0 for a hall without sellable seats).
func (s *ShowOccupancy) SoldPercent() float64 { return percent(s.Sold, s.Sellable) }

// HeldPercent is held seats over sellable seats, 0..100.
func (s *ShowOccupancy) HeldPercent() float64 { return percent(s.Held, s.Sellable) }

func percent(n, of int) float64 {
	if of <= 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// Loc is the time zone of the show's cinema (UTC when unknown).
func (s *ShowOccupancy) Loc() *time.Location { return services.Location(s.TimeZone) }

// TodayShows lists every show (drafts and cancelled ones included) starting on the
// local day of now in its own cinema's zone (each cinema of a chain has its own
// today), by start time then hall, with its seat counts. Errors: UNAVAILABLE.
func (d *Dashboard) TodayShows(ctx context.Context, now time.Time) ([]*ShowOccupancy, error) {
	// every zone's today lies within a day either side of the dashboard zone's
	from, to := LocalDay(now, d.zone)
	all, err := d.showsBetween(ctx, now, from.AddDate(0, 0, -1), to.AddDate(0, 0, 1))
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, s := range all {
		if f, t := LocalDay(now, s.Loc()); !s.StartsAt.Before(f) && s.StartsAt.Before(t) {
			out = append(out, s)
		}
	}
	return out, nil
}

// showsBetween lists the shows starting in [from, to) with their seat counts, their
// status derived at now.
func (d *Dashboard) showsBetween(ctx context.Context, now, from, to time.Time) ([]*ShowOccupancy, error) {
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	rows, err := store.DashboardShowsBetween(qctx, d.db, from, to, services.CinemaScopeOf(ctx).IDs)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	out := make([]*ShowOccupancy, 0, len(rows))
	for _, r := range rows {
		s := (*ShowOccupancy)(r)
		sh := services.Show{Status: s.StoredStatus, SaleOpensAt: s.SaleOpensAt, SaleClosesAt: s.SaleClosesAt}
		s.Status = sh.StatusAt(now)
		out = append(out, s)
	}
	return out, nil
}

// PendingOrders is how many orders wait for payment, how many of them are past their
// deadline (the expiry task or reconciliation ends them), and the oldest few.
type PendingOrders struct {
	Count   int
	Overdue int
	Oldest  []*PendingOrder
}

// PendingOrder is one order waiting for payment. Times are UTC; TotalMinor is in minor
// units of Currency.
type PendingOrder = store.DashboardPendingOrder

// PendingOrders counts the pending orders at now and lists the oldest limit of them
// (oldest first). Errors: UNAVAILABLE.
func (d *Dashboard) PendingOrders(ctx context.Context, now time.Time, limit int) (*PendingOrders, error) {
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	out := &PendingOrders{Oldest: []*PendingOrder{}}
	count, overdue, err := store.DashboardPendingCounts(qctx, d.db, now, services.CinemaScopeOf(ctx).IDs)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	out.Count, out.Overdue = count, overdue
	if limit <= 0 || out.Count == 0 {
		return out, nil
	}
	if out.Oldest, err = store.DashboardOldestPending(qctx, d.db, limit, services.CinemaScopeOf(ctx).IDs); err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return out, nil
}
