package reports_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/reports"
)

// line is a report row as the tests write it: key, currency, orders, seats, gross,
// discount, refunded, net.
type line struct {
	key, cur                          string
	orders, seats                     int64
	gross, discount, refunded, netSum int64
}

func lineOf(r reports.Row) line {
	return line{r.Key, r.Currency, r.Orders, r.Seats, r.GrossMinor, r.DiscountMinor, r.RefundedMinor, r.NetMinor}
}

func id(n int64) string { return strconv.FormatInt(n, 10) }

// TestSalesReport_EachBy: the fixture's sales over 24 Oct .. 1 Dec 2026 for every
// grouping: each cinema's local days (a sale at 23:30 and one at 00:30 land on two days,
// also around the night Berlin's clocks go back, and Tokyo's 00:30 is Berlin's previous
// day); a refund counts on the day it was given; voucher savings are the discount and
// the gross is the list price; an exchanged-away seat and a pending order count nowhere;
// a row per key and currency; totals per currency equal the rows' sums, orders counted
// once each (a by=ticket_type report has V on two rows).
func TestSalesReport_EachBy(t *testing.T) {
	fx := newSalesFixture(t)
	r := reports.New(fx.e.DB, fx.e.Clock)
	ctx := context.Background()
	cny := func(key string, o, s, g, d, ref int64) line { return line{key, "CNY", o, s, g, d, ref, g - d - ref} }
	jpy := func(key string, o, s, g int64) line { return line{key, "JPY", o, s, g, 0, 0, g} }
	totals := []reports.Totals{{Currency: "CNY", Orders: 6, Seats: 8, GrossMinor: 33000, DiscountMinor: 3000, RefundedMinor: 2250, NetMinor: 27750},
		{Currency: "JPY", Orders: 1, Seats: 1, GrossMinor: 4500, NetMinor: 4500}}
	for _, tc := range []struct {
		by   string
		want []line
	}{
		{reports.ByDay, []line{
			cny("2026-10-24", 1, 1, 4500, 0, 0),
			cny("2026-10-25", 2, 3, 13500, 0, 0), // 00:30 CEST and 23:30 CET: one 25-hour day
			cny("2026-10-26", 1, 1, 4500, 0, 0),
			cny("2026-11-29", 1, 2, 6000, 3000, 0),
			cny("2026-11-30", 1, 1, 4500, 0, 0),
			jpy("2026-11-30", 1, 1, 4500),
			cny("2026-12-01", 0, 0, 0, 0, 2250),
		}},
		{reports.ByShow, []line{ // by start: T first
			jpy(id(fx.showT.ID), 1, 1, 4500),
			cny(id(fx.showS.ID), 6, 8, 33000, 3000, 2250),
		}},
		{reports.ByMovie, []line{ // by title: Alpha, Zulu
			cny(id(fx.showS.Movie.ID), 6, 8, 33000, 3000, 2250),
			jpy(id(fx.showT.Movie.ID), 1, 1, 4500),
		}},
		{reports.ByTicketType, []line{
			cny("adult", 6, 7, 31500, 2250, 2250),
			jpy("adult", 1, 1, 4500),
			cny("child", 1, 1, 1500, 750, 0),
		}},
		{reports.ByChannel, []line{
			cny("online", 5, 7, 28500, 3000, 2250),
			jpy("online", 1, 1, 4500),
			cny("box_office", 1, 1, 4500, 0, 0),
		}},
	} {
		t.Run(tc.by, func(t *testing.T) {
			rep, err := r.Sales(ctx, reports.Query{From: "2026-10-24", To: "2026-12-01", By: tc.by})
			if err != nil {
				t.Fatal(err)
			}
			var got []line
			for _, row := range rep.Rows {
				got = append(got, lineOf(row))
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("rows\n got %v\nwant %v", got, tc.want)
			}
			if fmt.Sprint(rep.Totals) != fmt.Sprint(totals) {
				t.Errorf("totals %+v, want %+v", rep.Totals, totals)
			}
			sums := map[string]*reports.Totals{}
			for _, row := range rep.Rows {
				s := sums[row.Currency]
				if s == nil {
					s = &reports.Totals{Currency: row.Currency}
					sums[row.Currency] = s
				}
				s.Orders += row.Orders
				s.Seats += row.Seats
				s.GrossMinor += row.GrossMinor
				s.DiscountMinor += row.DiscountMinor
				s.RefundedMinor += row.RefundedMinor
				s.NetMinor += row.NetMinor
			}
			for _, tot := range rep.Totals {
				s := *sums[tot.Currency]
				if tc.by == reports.ByTicketType {
					s.Orders = tot.Orders // an order of two types is on two rows
				}
				if s != tot {
					t.Errorf("%s: the rows add up to %+v, the totals say %+v", tot.Currency, s, tot)
				}
			}
			for _, row := range rep.Rows {
				if row.Label == "" {
					t.Errorf("row %s has no label", row.Key)
				}
			}
		})
	}
}

// TestSalesReport_LocalDayRanges: from and to are each cinema's local dates, both
// included: Berlin's 25 Oct .. 29 Nov leaves out the 23:30 sale of 24 Oct and the 00:30
// sale of 30 Nov; Tokyo's 29 Nov has nothing (its 00:30 sale is 30 Nov there, though 29
// Nov in Berlin); a day of refunds only is a row of refunds; a limited staff member's
// report without cinema_id covers only their cinemas.
func TestSalesReport_LocalDayRanges(t *testing.T) {
	fx := newSalesFixture(t)
	r := reports.New(fx.e.DB, fx.e.Clock)
	bg := context.Background()
	onlyTokyo := services.WithCinemaScope(bg, services.CinemaScope{IDs: []int64{fx.tokyo}})
	for _, tc := range []struct {
		name string
		ctx  context.Context
		q    reports.Query
		want []string // key currency orders seats net
	}{
		{"Berlin 25 Oct .. 29 Nov", bg, reports.Query{From: "2026-10-25", To: "2026-11-29", CinemaID: fx.berlin},
			[]string{"2026-10-25 CNY 2 3 13500", "2026-10-26 CNY 1 1 4500", "2026-11-29 CNY 1 2 3000"}},
		{"Berlin 24 Oct, before the clocks go back", bg, reports.Query{From: "2026-10-24", To: "2026-10-24", CinemaID: fx.berlin},
			[]string{"2026-10-24 CNY 1 1 4500"}},
		{"Berlin 30 Nov", bg, reports.Query{From: "2026-11-30", To: "2026-11-30", CinemaID: fx.berlin},
			[]string{"2026-11-30 CNY 1 1 4500"}},
		{"Berlin 1 Dec: a refund only", bg, reports.Query{From: "2026-12-01", To: "2026-12-31", CinemaID: fx.berlin},
			[]string{"2026-12-01 CNY 0 0 -2250"}},
		{"Tokyo 29 Nov", bg, reports.Query{From: "2026-11-29", To: "2026-11-29", CinemaID: fx.tokyo}, nil},
		{"Tokyo 30 Nov", bg, reports.Query{From: "2026-11-30", To: "2026-11-30", CinemaID: fx.tokyo},
			[]string{"2026-11-30 JPY 1 1 4500"}},
		{"limited to Tokyo, every cinema of the scope", onlyTokyo, reports.Query{From: "2026-10-01", To: "2026-12-31"},
			[]string{"2026-11-30 JPY 1 1 4500"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := r.Sales(tc.ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, row := range rep.Rows {
				got = append(got, fmt.Sprintf("%s %s %d %d %d", row.Key, row.Currency, row.Orders, row.Seats, row.NetMinor))
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSalesReport_Refusals: an unknown by, a malformed or impossible date, from after
// to and a range over MaxDays are INVALID_REQUEST; another cinema than a limited staff
// member's is FORBIDDEN; a cinema that does not exist NOT_FOUND. None reads a row.
func TestSalesReport_Refusals(t *testing.T) {
	fx := newSalesFixture(t)
	r := reports.New(fx.e.DB, fx.e.Clock)
	bg := context.Background()
	onlyTokyo := services.WithCinemaScope(bg, services.CinemaScope{IDs: []int64{fx.tokyo}})
	for _, tc := range []struct {
		name string
		ctx  context.Context
		q    reports.Query
		code string
	}{
		{"unknown by", bg, reports.Query{From: "2026-11-01", To: "2026-11-30", By: "hall"}, services.CodeInvalidRequest},
		{"from after to", bg, reports.Query{From: "2026-12-01", To: "2026-11-30"}, services.CodeInvalidRequest},
		{"no from", bg, reports.Query{To: "2026-11-30"}, services.CodeInvalidRequest},
		{"malformed date", bg, reports.Query{From: "2026-11-1", To: "2026-11-30"}, services.CodeInvalidRequest},
		{"impossible date", bg, reports.Query{From: "2026-02-30", To: "2026-03-30"}, services.CodeInvalidRequest},
		{"over a year", bg, reports.Query{From: "2026-01-01", To: "2027-01-02"}, services.CodeInvalidRequest},
		{"another cinema", onlyTokyo, reports.Query{From: "2026-11-01", To: "2026-11-30", CinemaID: fx.berlin}, services.CodeForbidden},
		{"no such cinema", bg, reports.Query{From: "2026-11-01", To: "2026-11-30", CinemaID: 999}, services.CodeNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := r.Sales(tc.ctx, tc.q); services.ErrorCode(err) != tc.code {
				t.Errorf("got %v, want %s", err, tc.code)
			}
		})
	}
	if _, err := r.Sales(bg, reports.Query{From: "2026-01-01", To: "2026-12-31"}); err != nil {
		t.Errorf("a whole year (365 days) is refused: %v", err)
	}
}

// TestOffsetSpans: Berlin's offsets over 2026 are three spans, changing at 01:00 UTC on
// 29 Mar and 25 Oct; UTC and Shanghai have one.
func TestOffsetSpans(t *testing.T) {
	lo, hi := utc("2026-01-01T00:00:00Z"), utc("2027-01-01T00:00:00Z")
	for _, tc := range []struct {
		zone string
		want string
	}{
		{"Europe/Berlin", "[{2026-03-29 01:00:00 +0000 UTC 3600} {2026-10-25 01:00:00 +0000 UTC 7200} {2027-01-01 00:00:00 +0000 UTC 3600}]"},
		{"UTC", "[{2027-01-01 00:00:00 +0000 UTC 0}]"},
		{"Asia/Shanghai", "[{2027-01-01 00:00:00 +0000 UTC 28800}]"},
	} {
		t.Run(tc.zone, func(t *testing.T) {
			if got := fmt.Sprint(reports.OffsetSpans(services.Location(tc.zone), lo, hi)); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestChannelsToday: the dashboard's today, each cinema's own local day: at 23:45 UTC on
// 29 Nov it is still 29 Nov in Berlin (V, online, and the pending P nowhere) but 30 Nov in
// Tokyo (J); at 12:00 UTC on 30 Nov both cinemas are on 30 Nov (W at the box office,
// J online); at 10:00 UTC on 1 Dec Berlin's online net is the refund; every currency
// gets both channels.
func TestChannelsToday(t *testing.T) {
	fx := newSalesFixture(t)
	ctx := context.Background()
	cinemas := []services.Cinema{{ID: fx.berlin, TimeZone: "Europe/Berlin", Currency: "CNY"}, {ID: fx.tokyo, TimeZone: "Asia/Tokyo", Currency: "JPY"}}
	for _, tc := range []struct {
		now  time.Time
		want string
	}{
		{utc("2026-11-29T22:45:00Z"), "[{online CNY 1 2 6000 3000 0 3000} {box_office CNY 0 0 0 0 0 0} {online JPY 1 1 4500 0 0 4500} {box_office JPY 0 0 0 0 0 0}]"},
		{utc("2026-11-30T12:00:00Z"), "[{online CNY 0 0 0 0 0 0} {box_office CNY 1 1 4500 0 0 4500} {online JPY 1 1 4500 0 0 4500} {box_office JPY 0 0 0 0 0 0}]"},
		{utc("2026-12-01T10:00:00Z"), "[{online CNY 0 0 0 0 2250 -2250} {box_office CNY 0 0 0 0 0 0} {online JPY 0 0 0 0 0 0} {box_office JPY 0 0 0 0 0 0}]"},
	} {
		t.Run(tc.now.Format(time.RFC3339), func(t *testing.T) {
			rows, err := reports.ChannelsToday(ctx, fx.e.DB, tc.now, cinemas)
			if err != nil {
				t.Fatal(err)
			}
			var got []line
			for _, r := range rows {
				got = append(got, lineOf(r))
			}
			if s := fmt.Sprint(got); s != tc.want {
				t.Errorf("got  %s\nwant %s", s, tc.want)
			}
		})
	}
}
