package staff

import (
	"cmp"
	"context"
	"slices"
	"time"

	"seatflow/services"
	"seatflow/services/store"
)

// Revenue is the money taken in [From, To) (UTC): orders that are paid now and were paid
// in the range. A refunded order counts nowhere (its money went back); neither do
// pending, cancelled or expired ones. Amounts are minor units of each line's currency,
// so a cinema selling in two currencies gets a line per currency.
type Revenue struct {
	From, To time.Time
	// EachLocal says the cinemas summed are in more than one zone: each cinema's range
	// is its own local day or week, and From and To are the page zone's.
	EachLocal bool
	Totals    []*RevenueLine // one per currency; Name is empty
	ByMovie   []*RevenueLine // by amount, largest first
	ByHall    []*RevenueLine // by amount, largest first
}

// RevenueLine is what one movie or hall (ID, Name) took in one currency: Orders paid
// orders with Seats seats for AmountMinor.
type RevenueLine = store.RevenueLine

// Revenue sums the paid orders with paid_at in [from, to) (UTC) in total, by movie and
// by hall. Errors: INVALID_REQUEST (to before from), UNAVAILABLE.
func (d *Dashboard) Revenue(ctx context.Context, from, to time.Time) (*Revenue, error) {
	if to.Before(from) {
		return nil, services.Errorf(services.CodeInvalidRequest, "the revenue range ends before it starts")
	}
	out := &Revenue{From: from.UTC(), To: to.UTC()}
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	var err error
	if out.Totals, out.ByMovie, out.ByHall, err = store.DashboardRevenue(qctx, d.db, out.From, out.To, services.CinemaScopeOf(ctx).IDs); err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return out, nil
}

// LocalRevenue sums the revenue of the local day or week (span: LocalDay or LocalWeek)
// that now falls on, each cinema of ctx's scope taking its own zone's: one range when
// they share one zone, else one read per zone, the lines merged (From and To are then
// pageZone's range, EachLocal set). Errors: UNAVAILABLE.
func (d *Dashboard) LocalRevenue(ctx context.Context, now time.Time, cinemas []services.Cinema, pageZone *time.Location,
	span func(time.Time, *time.Location) (time.Time, time.Time)) (*Revenue, error) {
	scope := services.CinemaScopeOf(ctx)
	var zones []string
	byZone := map[string][]int64{}
	for _, c := range cinemas {
		if !scope.Allows(c.ID) {
			continue
		}
		if _, ok := byZone[c.TimeZone]; !ok {
			zones = append(zones, c.TimeZone)
		}
		byZone[c.TimeZone] = append(byZone[c.TimeZone], c.ID)
	}
	if len(zones) <= 1 {
		zone := pageZone
		if len(zones) == 1 {
			zone = services.Location(zones[0])
		}
		from, to := span(now, zone)
		return d.Revenue(ctx, from, to)
	}
	from, to := span(now, pageZone)
	out := &Revenue{From: from, To: to, EachLocal: true}
	for _, z := range zones {
		zf, zt := span(now, services.Location(z))
		part, err := d.Revenue(services.WithCinemaScope(ctx, services.CinemaScope{IDs: byZone[z]}), zf, zt)
		if err != nil {
			return nil, err
		}
		out.Totals = mergeLines(out.Totals, part.Totals)
		out.ByMovie = mergeLines(out.ByMovie, part.ByMovie)
		out.ByHall = mergeLines(out.ByHall, part.ByHall)
	}
	return out, nil
}

// mergeLines adds the lines of more to into, a line per id and currency, largest
// amount first (then by name and currency).
func mergeLines(into, more []*RevenueLine) []*RevenueLine {
	for _, m := range more {
		i := slices.IndexFunc(into, func(l *RevenueLine) bool { return l.ID == m.ID && l.Currency == m.Currency })
		if i < 0 {
			c := *m
			into = append(into, &c)
			continue
		}
		into[i].Orders += m.Orders
		into[i].Seats += m.Seats
		into[i].AmountMinor += m.AmountMinor
	}
	slices.SortStableFunc(into, func(a, b *RevenueLine) int {
		if a.AmountMinor != b.AmountMinor {
			return cmp.Compare(b.AmountMinor, a.AmountMinor)
		}
		if a.Name != b.Name {
			return cmp.Compare(a.Name, b.Name)
		}
		return cmp.Compare(a.Currency, b.Currency)
	})
	if into == nil {
		into = []*RevenueLine{}
	}
	return into
}

// MinuteCount is one minute of order traffic: Created orders created in
// [Start, Start+1min) (UTC), and Paid orders paid in it (whatever happened to them after).
type MinuteCount struct {
	Start   time.Time
	Created int
	Paid    int
}

// OrdersPerMinute returns the 60 minutes up to and including the minute of now, oldest
// first, each with the orders created and paid in it. Errors: UNAVAILABLE.
func (d *Dashboard) OrdersPerMinute(ctx context.Context, now time.Time) ([]MinuteCount, error) {
	end := now.UTC().Truncate(time.Minute).Add(time.Minute)
	start := end.Add(-60 * time.Minute)
	out := make([]MinuteCount, 60)
	for i := range out {
		out[i].Start = start.Add(time.Duration(i) * time.Minute)
	}
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	created, err := store.DashboardOrdersCreatedPerMinute(qctx, d.db, start, end, services.CinemaScopeOf(ctx).IDs)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	for _, r := range created {
		if r.Bucket >= 0 && r.Bucket < len(out) {
			out[r.Bucket].Created += r.N
		}
	}
	paid, err := store.DashboardOrdersPaidPerMinute(qctx, d.db, start, end, services.CinemaScopeOf(ctx).IDs)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	for _, r := range paid {
		if r.Bucket >= 0 && r.Bucket < len(out) {
			out[r.Bucket].Paid += r.N
		}
	}
	return out, nil
}
