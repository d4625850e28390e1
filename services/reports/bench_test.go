package reports_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/internal/testenv"
	"seatflow/services/reports"
	"seatflow/services/store"
)

// BenchmarkSalesReport_YearOfChain (make bench-reports, part of make bench): a chain of
// 20 screens in two cinemas (Europe/Berlin and Europe/London, 10 halls of 200 seats
// each) with a year of shows, SEATFLOW_BENCH_SHOWS_A_DAY (default 5) a hall a day, each
// with SEATFLOW_BENCH_ORDERS_A_SHOW (default 12) paid orders of 1 to 3 seats paid up to 30
// days before it: a fifth at the box office, a tenth with a voucher, one in 50 refunded a
// day later. It times the year's report for every grouping (every cinema, the worst
// case) against a plain full scan of order_seats measured in the same run: live (the
// clock before 2026: no day complete, once each), then with every day complete: the first
// report (it rolls the year up), each grouping from the rollup (best of three), by=day
// over 1, 7 and 31 days, and prints the EXPLAIN of the year's by=day statement from the
// rollup. Lines start with "reports:"; the goal is under 2 s a report. Not part of make
// test.
func BenchmarkSalesReport_YearOfChain(b *testing.B) {
	env := testenv.NewTestEnv(b, testenv.Unlimited)
	ctx := context.Background()
	showsADay := envInt("SEATFLOW_BENCH_SHOWS_A_DAY", 5)
	ordersAShow := envInt("SEATFLOW_BENCH_ORDERS_A_SHOW", 12)
	now := env.Clock.Now()
	var cinemas []int64
	for _, c := range []struct{ name, zone string }{{"Berlin", "Europe/Berlin"}, {"London", "Europe/London"}} {
		id, err := store.InsertCinema(ctx, env.DB, c.name, c.zone, "EUR", now)
		if err != nil {
			b.Fatal(err)
		}
		cinemas = append(cinemas, id)
	}
	f := store.ReportBench{First: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Days: 365, Slots: showsADay,
		OrdersPerShow: ordersAShow, UserID: env.User(1), Currency: "EUR"}
	w := env.CatalogWriter(env.Shows)
	layout := strings.Repeat(strings.Repeat("S", 20)+"\n", 10)
	for i := range 20 {
		h, err := w.CreateHall(ctx, 0, catalog.HallInput{CinemaID: cinemas[i%2], Name: "Screen " + strconv.Itoa(i+1), Layout: layout, Numbering: catalog.NumberLeftToRight})
		if err != nil {
			b.Fatal(err)
		}
		f.Halls = append(f.Halls, h.ID)
	}
	for i := range 40 {
		id, err := store.InsertMovie(ctx, env.DB, services.Movie{Title: fmt.Sprintf("Feature %02d", i+1), RuntimeMin: 110, Synopsis: "x"})
		if err != nil {
			b.Fatal(err)
		}
		f.Movies = append(f.Movies, id)
	}
	start := time.Now()
	first, last, err := store.ReportBenchInsertShows(ctx, env.DB, f)
	if err != nil {
		b.Fatal(err)
	}
	for from := first; from <= last; from += 1000 {
		if err := store.ReportBenchInsertSales(ctx, env.DB, f, from, min(from+999, last)); err != nil {
			b.Fatal(err)
		}
	}
	orders, seats, err := store.ReportBenchCounts(ctx, env.DB)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Printf("reports: fixture %d shows, %d orders, %d order seats in %.0f s\n", last-first+1, orders, seats, time.Since(start).Seconds())

	best := func(run func() error) time.Duration {
		var d []time.Duration
		for range 3 {
			t0 := time.Now()
			if err := run(); err != nil {
				b.Fatal(err)
			}
			d = append(d, time.Since(t0))
		}
		return slices.Min(d)
	}
	scan := best(func() error { _, err := store.ReportBenchFullScan(ctx, env.DB); return err })
	fmt.Printf("reports: ceiling, a full scan of order_seats (SUM of a column): %.3f s\n", scan.Seconds())
	r := reports.New(env.DB, env.Clock)
	setBenchClock := func(at time.Time) {
		env.Clock.Mu.Lock()
		env.Clock.T = at
		env.Clock.Mu.Unlock()
	}
	year := reports.Query{From: "2026-01-01", To: "2026-12-31"}
	line := func(what string, d time.Duration, rows int, tot []reports.Totals) {
		verdict := "PASS"
		if d > 2*time.Second {
			verdict = "MISS"
		}
		fmt.Printf("reports: %-33s %6.3f s  %6.2fx the full scan  %5d rows  seats %d  net %d  (goal < 2 s: %s)\n",
			what, d.Seconds(), d.Seconds()/scan.Seconds(), rows, tot[0].Seats, tot[0].NetMinor, verdict)
	}
	sales := func(q reports.Query) (int, []reports.Totals, error) {
		rep, err := r.Sales(ctx, q)
		if err != nil {
			return 0, nil, err
		}
		return len(rep.Rows), rep.Totals, nil
	}
	b.ResetTimer()
	// live: no day of 2026 complete yet, the whole year read from orders and refunds (once)
	setBenchClock(time.Date(2025, 12, 20, 12, 0, 0, 0, time.UTC))
	for _, by := range reports.Bys {
		q := year
		q.By = by
		t0 := time.Now()
		rows, tot, err := sales(q)
		if err != nil {
			b.Fatal(err)
		}
		line("live by="+by, time.Since(t0), rows, tot)
	}
	// 2 Jan 2027: every day of 2026 complete; the first report rolls the year up
	setBenchClock(time.Date(2027, 1, 2, 12, 0, 0, 0, time.UTC))
	q := year
	q.By = reports.ByDay
	t0 := time.Now()
	rows, tot, err := sales(q)
	if err != nil {
		b.Fatal(err)
	}
	line("first by=day (rolls the year up)", time.Since(t0), rows, tot)
	for _, by := range reports.Bys {
		q := year
		q.By = by
		d := best(func() error {
			var err error
			rows, tot, err = sales(q)
			return err
		})
		line("rollup by="+by, d, rows, tot)
	}
	for _, days := range []int{1, 7, 31} {
		to := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, days-1).Format(time.DateOnly)
		d := best(func() error {
			_, err := r.Sales(ctx, reports.Query{From: "2026-06-01", To: to, By: reports.ByDay})
			return err
		})
		fmt.Printf("reports: by=day over %2d days (rollup)  %6.3f s  %6.3fx the full scan\n", days, d.Seconds(), d.Seconds()/scan.Seconds())
	}
	b.StopTimer()
	plan, err := r.Plan(ctx, reports.Query{From: "2026-01-01", To: "2026-12-31", By: reports.ByDay})
	if err != nil {
		b.Fatal(err)
	}
	sq, err := r.StoreQuery(ctx, plan)
	if err != nil {
		b.Fatal(err)
	}
	ex, err := store.ExplainSalesReport(ctx, env.DB, sq)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Println("reports: EXPLAIN of the year's by=day from the rollup (id, select_type, table, type, key, ref, rows, Extra):")
	s := func(p *string) string {
		if p == nil {
			return "NULL"
		}
		return *p
	}
	for _, e := range ex {
		id, rows := "NULL", "NULL"
		if e.ID != nil {
			id = strconv.FormatInt(*e.ID, 10)
		}
		if e.Rows != nil {
			rows = strconv.FormatInt(*e.Rows, 10)
		}
		fmt.Printf("reports:   %s | %s | %s | %s | %s | %s | %s | %s\n", id, e.SelectType, s(e.Table), s(e.Type), s(e.Key), s(e.Ref), rows, s(e.Extra))
	}
}

// envInt is the integer in environment variable name, def when unset or not a number.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
