package reports_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/internal/testenv"
	"seatflow/services/reports"
	"seatflow/services/store"
)

// setClock moves the test clock to at.
func setClock(e *testenv.TestEnv, at time.Time) {
	e.Clock.Mu.Lock()
	e.Clock.T = at.UTC()
	e.Clock.Mu.Unlock()
}

// report is a report's rows and totals as text, for comparing two reads.
func report(t *testing.T, r *reports.Reports, from, to, by string) string {
	t.Helper()
	rep, err := r.Sales(context.Background(), reports.Query{From: from, To: to, By: by})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("rows %+v\ntotals %+v", rep.Rows, rep.Totals)
}

// rolledDays counts the rolled-up (cinema, local date) pairs of the dates from..to.
func rolledDays(t *testing.T, e *testenv.TestEnv, from, to string) int {
	t.Helper()
	var n int
	if err := e.DB.Get(&n, "SELECT COUNT(*) FROM sales_days WHERE local_day BETWEEN ? AND ?", from, to); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSalesRollup_MatchesLive: every grouping's report of 24 Oct .. 1 Dec 2026 read with
// the rollup answers exactly what the live query answers, rows and totals: with no day
// complete (all live), with part of the range complete (rolled up, the rest live), with
// all of it complete (the first read rolls the rest up, the second reads the rollup
// alone), and after a range's rollup is dropped (rolled up afresh). The 25-hour day the
// clocks go back in Berlin is among them.
func TestSalesRollup_MatchesLive(t *testing.T) {
	fx := newSalesFixture(t)
	e := fx.e
	r := reports.New(e.DB, e.Clock)
	const from, to = "2026-10-24", "2026-12-01"
	setClock(e, utc("2026-10-20T12:00:00Z"))
	live := map[string]string{}
	for _, by := range reports.Bys {
		live[by] = report(t, r, from, to, by)
	}
	if n := rolledDays(t, e, "2000-01-01", "2100-01-01"); n != 0 {
		t.Fatalf("%d days rolled up before any was complete", n)
	}
	for _, step := range []struct {
		name  string
		clock string
		drop  bool
		days  int // rolled-up (cinema, day) pairs of the range after the step: 2 cinemas
	}{
		{"part complete", "2026-11-30T12:00:00Z", false, 2 * 37}, // 24 Oct .. 29 Nov
		{"all complete, rolls the rest up", "2026-12-20T12:00:00Z", false, 2 * 39},
		{"all complete, from the rollup", "2026-12-20T12:00:00Z", false, 2 * 39},
		{"after a drop of 25 Oct .. 30 Nov", "2026-12-20T12:00:00Z", true, 2 * 39},
	} {
		t.Run(step.name, func(t *testing.T) {
			setClock(e, utc(step.clock))
			if step.drop {
				n, err := store.DropSalesRollup(context.Background(), e.DB, nil, utc("2026-10-25T00:00:00Z"), utc("2026-11-30T00:00:00Z"))
				if err != nil || n != 2*37 {
					t.Fatalf("dropped %d days (%v), want %d", n, err, 2*37)
				}
			}
			for _, by := range reports.Bys {
				t.Run(by, func(t *testing.T) {
					if got := report(t, r, from, to, by); got != live[by] {
						t.Errorf("with the rollup\n%s\nlive\n%s", got, live[by])
					}
				})
			}
			if n := rolledDays(t, e, from, to); n != step.days {
				t.Errorf("%d (cinema, day) pairs rolled up, want %d", n, step.days)
			}
		})
	}
	if n := e.CountRows("sales_day_shows"); n == 0 {
		t.Error("the show rollup is empty")
	}
}

// TestSalesRollup_RefundTodayOfRolledDay: a refund given today of an order paid on a
// rolled-up day counts on today's row (read live) and leaves the past day's row as it
// was; once today is complete and rolled up the refund stays on its own day.
func TestSalesRollup_RefundTodayOfRolledDay(t *testing.T) {
	fx := newSalesFixture(t)
	e := fx.e
	r := reports.New(e.DB, e.Clock)
	ctx := context.Background()
	row := func(key string) line {
		t.Helper()
		rep, err := r.Sales(ctx, reports.Query{From: "2026-10-24", To: "2026-12-10", By: reports.ByDay})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range rep.Rows {
			if x.Key == key && x.Currency == "CNY" {
				return lineOf(x)
			}
		}
		return line{}
	}
	setClock(e, utc("2026-12-10T12:00:00Z"))
	if got, want := row("2026-10-24"), (line{"2026-10-24", "CNY", 1, 1, 4500, 0, 0, 4500}); got != want {
		t.Fatalf("24 Oct before the refund: %v, want %v", got, want)
	}
	if n := rolledDays(t, e, "2026-10-24", "2026-10-24"); n != 2 {
		t.Fatalf("24 Oct rolled up for %d cinemas, want 2", n)
	}
	a1 := testenv.HallSeatIDs(t, e.Hall, "A1")[0]
	e.Exec("UPDATE order_seats SET live = NULL WHERE order_id = ? AND seat_id = ?", fx.c.ID, a1)
	if err := store.InsertRefund(ctx, e.DB, &store.RefundRow{RefundID: "test-refund-c-a1", OrderID: fx.c.ID, AmountMinor: 4500,
		Currency: "CNY", Reason: "test", CreatedAt: utc("2026-12-10T11:00:00Z")},
		[]store.RefundSeatRow{{SeatID: a1, AmountMinor: 4500}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, clock string }{
		{"today, live", "2026-12-10T12:00:00Z"},
		{"the next day, rolled up", "2026-12-11T12:00:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setClock(e, utc(tc.clock))
			if got, want := row("2026-10-24"), (line{"2026-10-24", "CNY", 1, 1, 4500, 0, 0, 4500}); got != want {
				t.Errorf("24 Oct: %v, want %v", got, want)
			}
			if got, want := row("2026-12-10"), (line{"2026-12-10", "CNY", 0, 0, 0, 0, 4500, -4500}); got != want {
				t.Errorf("10 Dec: %v, want %v", got, want)
			}
		})
	}
	if n := rolledDays(t, e, "2026-12-10", "2026-12-10"); n != 2 {
		t.Errorf("10 Dec rolled up for %d cinemas after it ended, want 2", n)
	}
}

// TestSalesRollup_TodayIsLive: today and a day that ended less than SettleMargin ago are
// never rolled up; sales made today after a report show in the next report.
func TestSalesRollup_TodayIsLive(t *testing.T) {
	fx := newSalesFixture(t)
	e := fx.e
	r := reports.New(e.DB, e.Clock)
	ctx := context.Background()
	todayRow := func() line {
		t.Helper()
		rep, err := r.Sales(ctx, reports.Query{From: "2026-12-01", To: "2026-12-05", By: reports.ByDay})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range rep.Rows {
			if x.Key == "2026-12-05" {
				return lineOf(x)
			}
		}
		return line{}
	}
	for i, at := range []string{"2026-12-05T09:00:00Z", "2026-12-05T10:00:00Z"} {
		buyAt(e, e.Hall, fx.showS, utc(at), true, "", nil, fmt.Sprintf("C%d", i+1))
		setClock(e, utc(at).Add(30*time.Minute))
		if got, want := todayRow(), (line{"2026-12-05", "CNY", int64(i + 1), int64(i + 1), 4500 * int64(i+1), 0, 0, 4500 * int64(i+1)}); got != want {
			t.Errorf("after sale %d: today's row %v, want %v", i+1, got, want)
		}
		if n := rolledDays(t, e, "2026-12-05", "2026-12-05"); n != 0 {
			t.Errorf("today rolled up (%d)", n)
		}
		if n := rolledDays(t, e, "2026-12-04", "2026-12-04"); n != 2 {
			t.Errorf("yesterday rolled up for %d cinemas, want 2", n)
		}
	}
	// Berlin's 5 Dec ends at 23:00 UTC; Tokyo's at 15:00 UTC on 5 Dec
	for _, tc := range []struct {
		clock string
		days  int
	}{
		{"2026-12-05T23:10:00Z", 1}, // ended 10 min ago in Berlin: Tokyo's only
		{"2026-12-05T23:20:00Z", 2},
	} {
		t.Run(tc.clock, func(t *testing.T) {
			setClock(e, utc(tc.clock))
			if got := todayRow(); got.orders != 2 {
				t.Errorf("5 Dec: %v, want 2 orders", got)
			}
			if n := rolledDays(t, e, "2026-12-05", "2026-12-05"); n != tc.days {
				t.Errorf("5 Dec rolled up for %d cinemas, want %d", n, tc.days)
			}
		})
	}
}

// TestLastCompleteDay: a local day is complete SettleMargin after it ends in its zone,
// the 25-hour day the clocks go back included.
func TestLastCompleteDay(t *testing.T) {
	berlin := services.Location("Europe/Berlin")
	for _, tc := range []struct{ now, want string }{
		{"2026-12-05T12:00:00Z", "2026-12-04"},
		{"2026-12-05T23:14:59Z", "2026-12-04"}, // 00:14:59 on 6 Dec in Berlin
		{"2026-12-05T23:15:00Z", "2026-12-05"},
		{"2026-10-25T23:14:00Z", "2026-10-24"}, // 25 Oct (25 hours) ended at 23:00 UTC
		{"2026-10-25T23:15:00Z", "2026-10-25"},
	} {
		t.Run(tc.now, func(t *testing.T) {
			if got := reports.LastCompleteDay(berlin, utc(tc.now)).Format(time.DateOnly); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestSalesRollup_ConcurrentRollUps: reports rolling up the same days at once (over
// overlapping ranges, around a day rolled up before) add each day's figures once: the
// rollup then answers what the live query does and every (cinema, day) is marked once.
func TestSalesRollup_ConcurrentRollUps(t *testing.T) {
	fx := newSalesFixture(t)
	e := fx.e
	r := reports.New(e.DB, e.Clock)
	ctx := context.Background()
	const from, to = "2026-10-24", "2026-12-01"
	setClock(e, utc("2026-10-20T12:00:00Z"))
	live := map[string]string{}
	for _, by := range reports.Bys {
		live[by] = report(t, r, from, to, by)
	}
	setClock(e, utc("2026-12-20T12:00:00Z"))
	cinemas, err := store.Cinemas(ctx, e.DB)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.RollUp(ctx, cinemas, utc("2026-10-25T00:00:00Z"), utc("2026-10-25T00:00:00Z")); err != nil {
		t.Fatal(err)
	}
	ranges := [][2]string{{from, to}, {"2026-10-24", "2026-11-29"}, {from, to}, {"2026-11-01", to}}
	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, len(ranges))
	for _, rg := range ranges {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs <- r.RollUp(ctx, cinemas, utc(rg[0]+"T00:00:00Z"), utc(rg[1]+"T00:00:00Z"))
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := rolledDays(t, e, from, to); n != 2*39 {
		t.Errorf("%d (cinema, day) pairs rolled up, want %d", n, 2*39)
	}
	for _, by := range reports.Bys {
		t.Run(by, func(t *testing.T) {
			if got := report(t, r, from, to, by); got != live[by] {
				t.Errorf("with the rollup\n%s\nlive\n%s", got, live[by])
			}
		})
	}
}

// TestSalesRollup_DSTDay: the 25-hour day Berlin's clocks go back (25 Oct 2026) is rolled
// up with both its sales, the 00:30 CEST one and the 23:30 CET one, and neither
// neighbouring day's.
func TestSalesRollup_DSTDay(t *testing.T) {
	fx := newSalesFixture(t)
	e := fx.e
	r := reports.New(e.DB, e.Clock)
	setClock(e, utc("2026-12-20T12:00:00Z"))
	rep, err := r.Sales(context.Background(), reports.Query{From: "2026-10-24", To: "2026-10-26", By: reports.ByDay, CinemaID: fx.berlin})
	if err != nil {
		t.Fatal(err)
	}
	var got []line
	for _, x := range rep.Rows {
		got = append(got, lineOf(x))
	}
	want := []line{{"2026-10-24", "CNY", 1, 1, 4500, 0, 0, 4500}, {"2026-10-25", "CNY", 2, 3, 13500, 0, 0, 13500},
		{"2026-10-26", "CNY", 1, 1, 4500, 0, 0, 4500}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	var seats int64
	if err := e.DB.Get(&seats, "SELECT COALESCE(SUM(seats), 0) FROM sales_day_totals WHERE cinema_id = ? AND local_day = '2026-10-25'", fx.berlin); err != nil {
		t.Fatal(err)
	}
	if seats != 3 {
		t.Errorf("the rollup of 25 Oct holds %d seats, want 3", seats)
	}
}

// TestSalesRollup_ZoneChangeDropsCinema: a cinema moved to another time zone loses its
// rolled-up days (cut in the old zone) and the other cinemas keep theirs; the next
// report rolls it up in the new zone and answers what the live query does.
func TestSalesRollup_ZoneChangeDropsCinema(t *testing.T) {
	fx := newSalesFixture(t)
	e := fx.e
	r := reports.New(e.DB, e.Clock)
	ctx := context.Background()
	const from, to = "2026-10-24", "2026-12-01"
	setClock(e, utc("2026-12-20T12:00:00Z"))
	report(t, r, from, to, reports.ByDay) // rolls every day up
	c, err := store.CinemaByID(ctx, e.DB, fx.berlin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.CatalogWriter(e.Shows).UpdateCinema(ctx, 0, fx.berlin, catalog.CinemaInput{Name: c.Name, TimeZone: "Europe/London", Currency: c.Currency}); err != nil {
		t.Fatal(err)
	}
	if n := rolledDays(t, e, from, to); n != 39 {
		t.Errorf("%d (cinema, day) pairs rolled up after the zone change, want Tokyo's 39", n)
	}
	setClock(e, utc("2026-10-20T12:00:00Z"))
	live := map[string]string{}
	for _, by := range reports.Bys {
		live[by] = report(t, r, from, to, by)
	}
	setClock(e, utc("2026-12-20T12:00:00Z"))
	for _, by := range reports.Bys {
		t.Run(by, func(t *testing.T) {
			if got := report(t, r, from, to, by); got != live[by] {
				t.Errorf("with the rollup\n%s\nlive\n%s", got, live[by])
			}
		})
	}
}

// TestSalesRollup_RecentRollsUpEveryCinemasPastDays: the scheduled roll-up marks the
// complete past days of every cinema within its window, none of today's, and leaves the
// reports' answers as they were.
func TestSalesRollup_RecentRollsUpEveryCinemasPastDays(t *testing.T) {
	fx := newSalesFixture(t)
	e := fx.e
	r := reports.New(e.DB, e.Clock)
	const from, to = "2026-10-24", "2026-12-01"
	setClock(e, utc("2026-10-20T12:00:00Z")) // no day of the range complete: read live
	before := report(t, r, from, to, "day")
	setClock(e, utc("2026-12-02T12:00:00Z"))
	if err := r.RollUpRecent(context.Background(), 60); err != nil {
		t.Fatal(err)
	}
	cinemas, err := store.Cinemas(context.Background(), e.DB)
	if err != nil {
		t.Fatal(err)
	}
	if n := rolledDays(t, e, "2026-10-03", "2026-12-01"); n != 60*len(cinemas) {
		t.Errorf("%d (cinema, day) pairs rolled up over 60 days of %d cinemas, want %d", n, len(cinemas), 60*len(cinemas))
	}
	if n := rolledDays(t, e, "2026-12-02", "2100-01-01"); n != 0 {
		t.Errorf("%d days from today on rolled up, want none", n)
	}
	if after := report(t, r, from, to, "day"); after != before {
		t.Errorf("the report changed after the scheduled roll-up:\nbefore %s\nafter  %s", before, after)
	}
}
