package reports

import (
	"cmp"
	"context"
	"slices"
	"time"

	"seatflow/services"
	"seatflow/services/store"
)

// ChannelsToday returns the sales of the local day that now falls on in each cinema's
// own zone, online and at the box office side by side: for each currency of cinemas
// (sorted), a ChannelOnline row then a ChannelBoxOffice row (zeros when nothing sold),
// each with its orders, seats and money as Stream counts them (refunds given today
// lower today's net). cinemas are the ones to count (the caller's scope). Errors:
// UNAVAILABLE.
func ChannelsToday(ctx context.Context, q store.Querier, now time.Time, cinemas []services.Cinema) ([]Row, error) {
	byZone := map[string][]services.Cinema{}
	var zones []string
	var currencies []string
	for _, c := range cinemas {
		if _, ok := byZone[c.TimeZone]; !ok {
			zones = append(zones, c.TimeZone)
		}
		byZone[c.TimeZone] = append(byZone[c.TimeZone], c)
		if !slices.Contains(currencies, c.Currency) {
			currencies = append(currencies, c.Currency)
		}
	}
	type key struct{ channel, currency string }
	sums := map[key]*Row{}
	for _, cur := range currencies {
		for _, ch := range []string{ChannelOnline, ChannelBoxOffice} {
			sums[key{ch, cur}] = &Row{Key: ch, Label: ChannelLabel(ch), Currency: cur}
		}
	}
	for _, z := range zones {
		l := now.In(services.Location(z))
		day := time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, time.UTC)
		_, err := stream(ctx, q, ByChannel, SalesQuery(ByChannel, day, day, byZone[z]), func(r Row) error {
			s := sums[key{r.Key, r.Currency}]
			if s == nil {
				s = &Row{Key: r.Key, Label: r.Label, Currency: r.Currency}
				sums[key{r.Key, r.Currency}] = s
			}
			s.Orders += r.Orders
			s.Seats += r.Seats
			s.GrossMinor += r.GrossMinor
			s.DiscountMinor += r.DiscountMinor
			s.RefundedMinor += r.RefundedMinor
			s.NetMinor += r.NetMinor
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	out := make([]Row, 0, len(sums))
	for _, s := range sums {
		out = append(out, *s)
	}
	rank := func(ch string) int { return slices.Index([]string{ChannelOnline, ChannelBoxOffice}, ch) }
	slices.SortFunc(out, func(a, b Row) int {
		if c := cmp.Compare(a.Currency, b.Currency); c != 0 {
			return c
		}
		return cmp.Compare(rank(a.Key), rank(b.Key))
	})
	return out, nil
}
