package staff

import (
	"context"
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
	Totals   []*RevenueLine // one per currency; Name is empty
	ByMovie  []*RevenueLine // by amount, largest first
	ByHall   []*RevenueLine // by amount, largest first
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
