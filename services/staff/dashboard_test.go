package staff_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
	"seatflow/services/staff"
)

// dashboardZone is the cinema zone of the dashboard tests: UTC+8 all year, so the
// env's clock (2026-11-30 10:00 UTC, a Monday) is 18:00 local and the local day is
// [2026-11-29 16:00 UTC, 2026-11-30 16:00 UTC).
func dashboardZone(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// dashSetClock moves the env's clock to t.
func dashSetClock(e *testenv.TestEnv, t time.Time) {
	e.Clock.Mu.Lock()
	e.Clock.T = t.UTC()
	e.Clock.Mu.Unlock()
}

// dashBuy creates an order of a fresh customer for labels of show at the clock's now and
// pays it when pay is set.
func dashBuy(e *testenv.TestEnv, show *services.Show, pay bool, labels ...string) *services.Order {
	e.T.Helper()
	o, err := e.Orders.Create(context.Background(), orders.CreateOrderRequest{UserID: e.User(int(testenv.BulkSeq.Add(1))), ShowID: show.ID, SeatIDs: e.SeatIDs(labels...)})
	if err != nil {
		e.T.Fatalf("order %v: %v", labels, err)
	}
	if pay {
		if err := e.PayOrder(o); err != nil {
			e.T.Fatalf("pay %s: %v", o.OrderNo, err)
		}
	}
	return o
}

func dashUTC(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestLocalDayAndWeek(t *testing.T) {
	sh := dashboardZone(t)
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name               string
		at                 string
		zone               *time.Location
		day0, day1, w0, w1 string
	}{
		{"evening in Shanghai is still Monday", "2026-11-30T15:59:59Z", sh,
			"2026-11-29T16:00:00Z", "2026-11-30T16:00:00Z", "2026-11-29T16:00:00Z", "2026-12-06T16:00:00Z"},
		{"16:00 UTC is Tuesday in Shanghai", "2026-11-30T16:00:00Z", sh,
			"2026-11-30T16:00:00Z", "2026-12-01T16:00:00Z", "2026-11-29T16:00:00Z", "2026-12-06T16:00:00Z"},
		{"Sunday night is the end of the ISO week", "2026-11-29T15:59:00Z", sh,
			"2026-11-28T16:00:00Z", "2026-11-29T16:00:00Z", "2026-11-22T16:00:00Z", "2026-11-29T16:00:00Z"},
		{"daylight saving ends: a 25 hour day", "2026-11-01T12:00:00Z", ny,
			"2026-11-01T04:00:00Z", "2026-11-02T05:00:00Z", "2026-10-26T04:00:00Z", "2026-11-02T05:00:00Z"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d0, d1 := staff.LocalDay(dashUTC(c.at), c.zone)
			w0, w1 := staff.LocalWeek(dashUTC(c.at), c.zone)
			if !d0.Equal(dashUTC(c.day0)) || !d1.Equal(dashUTC(c.day1)) {
				t.Errorf("day %s..%s, want %s..%s", d0, d1, c.day0, c.day1)
			}
			if !w0.Equal(dashUTC(c.w0)) || !w1.Equal(dashUTC(c.w1)) {
				t.Errorf("week %s..%s, want %s..%s", w0, w1, c.w0, c.w1)
			}
		})
	}
}

// TestDashboard_TodayShows: the shows of the cinema-local day (not the UTC day) are
// listed by start with sold (paid), held (pending) and free seats; cancelled and
// refunded orders count nowhere.
func TestDashboard_TodayShows(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	testenv.SetFirstCinemaZone(t, e.DB, "Asia/Shanghai") // the hall's cinema: each show's today is its cinema's
	ctx := context.Background()
	d := staff.NewDashboard(e.DB, e.Clock, dashboardZone(t))
	now := e.Clock.Now()
	opens := now.Add(-time.Hour)
	late := e.MakeShow(e.Hall.ID, services.ShowOnSale, opens, dashUTC("2026-11-30T15:30:00Z"))                   // 23:30 local: today
	first := e.MakeShow(e.Hall.ID, services.ShowOnSale, opens, dashUTC("2026-11-29T16:00:00Z"))                  // 00:00 local: today (sale closed)
	e.MakeShow(e.Hall.ID, services.ShowOnSale, opens, dashUTC("2026-11-30T16:00:00Z"))                           // 00:00 tomorrow local, same UTC date
	e.MakeShow(e.Hall.ID, services.ShowOnSale, dashUTC("2026-11-29T00:00:00Z"), dashUTC("2026-11-29T15:59:59Z")) // 23:59:59 yesterday local

	dashBuy(e, late, true, "A1", "A2")
	dashBuy(e, late, false, "B1", "B2", "B3")
	cancelled := dashBuy(e, late, false, "C1")
	if _, err := e.Orders.Cancel(ctx, cancelled.UserID, cancelled.OrderNo); err != nil {
		t.Fatal(err)
	}
	refunded := dashBuy(e, late, true, "D1", "D2")
	if _, err := staffOrders(e).Refund(ctx, e.User(99), refunded.OrderNo, "test"); err != nil {
		t.Fatal(err)
	}

	got, err := d.TodayShows(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ShowID != first.ID || got[1].ShowID != late.ID {
		ids := []int64{}
		for _, s := range got {
			ids = append(ids, s.ShowID)
		}
		t.Fatalf("today's shows %v, want [%d %d]", ids, first.ID, late.ID)
	}
	s := got[1]
	if s.Sellable != 199 || s.Sold != 2 || s.Held != 3 || s.Free() != 194 {
		t.Errorf("sellable %d sold %d held %d free %d, want 199 2 3 194", s.Sellable, s.Sold, s.Held, s.Free())
	}
	if s.Status != services.ShowOnSale || got[0].Status != services.ShowClosed {
		t.Errorf("statuses %s, %s; want closed, on_sale", got[0].Status, s.Status)
	}
	if s.MovieTitle != late.Movie.Title || !strings.HasPrefix(s.HallName, "Test Hall") {
		t.Errorf("movie %q hall %q", s.MovieTitle, s.HallName)
	}
	if p := s.SoldPercent(); p < 1.00 || p > 1.01 {
		t.Errorf("sold %.3f%%, want 2/199", p)
	}
	if got[0].Sold != 0 || got[0].Held != 0 || got[0].Free() != 199 {
		t.Errorf("empty show: %+v", got[0])
	}
}

// TestDashboard_Revenue: revenue counts paid orders by when they were paid in the
// cinema's day and ISO week, less the seats refunded from them; refunded, pending and
// cancelled orders count nowhere;
// lines by movie and by hall add up to the total.
func TestDashboard_Revenue(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	zone := dashboardZone(t)
	d := staff.NewDashboard(e.DB, e.Clock, zone)
	hall2 := e.MakeLayout("Small Hall", testenv.RowSpec{Zone: "standard", Seats: "SSSS"})
	// a show on sale from Saturday to Wednesday in hall 1, and one in hall 2
	show := e.MakeShow(e.Hall.ID, services.ShowOnSale, dashUTC("2026-11-28T00:00:00Z"), dashUTC("2026-12-02T12:00:00Z"))
	small := e.MakeShow(hall2.ID, services.ShowOnSale, dashUTC("2026-11-28T00:00:00Z"), dashUTC("2026-12-02T12:00:00Z"))

	dashSetClock(e, dashUTC("2026-11-29T15:59:00Z")) // Sunday 23:59 local: last week
	dashBuy(e, show, true, "A1")                     // 4500
	dashSetClock(e, dashUTC("2026-11-29T16:00:00Z")) // Monday 00:00 local: today and this week
	part := dashBuy(e, show, true, "A2", "H1")       // 4500 + 6500, then H1 refunded
	if _, err := staffOrders(e).RefundSeats(ctx, e.User(99), part.OrderNo, "test", e.SeatIDs("H1")); err != nil {
		t.Fatal(err)
	}
	dashSetClock(e, dashUTC("2026-11-30T10:00:00Z")) // Monday 18:00 local
	dashBuy(e, show, false, "A3")                    // pending
	refunded := dashBuy(e, show, true, "A4")         // refunded
	if _, err := staffOrders(e).Refund(ctx, e.User(99), refunded.OrderNo, "test"); err != nil {
		t.Fatal(err)
	}
	cancelled := dashBuy(e, show, false, "A5")
	if _, err := e.Orders.Cancel(ctx, cancelled.UserID, cancelled.OrderNo); err != nil {
		t.Fatal(err)
	}
	// small's seats are "A1".."A4" of hall 2: e.seatIDs reads hall 1, so order by id
	o, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(50), ShowID: small.ID, SeatIDs: testenv.HallSeatIDs(t, hall2, "A1", "A2")})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.PayOrder(o); err != nil {
		t.Fatal(err)
	}
	dashSetClock(e, dashUTC("2026-11-30T15:59:59Z")) // 23:59:59 local
	dashBuy(e, show, true, "B1")
	dashSetClock(e, dashUTC("2026-11-30T16:00:00Z")) // Tuesday 00:00 local: tomorrow, same week
	dashBuy(e, show, true, "B2")

	day0, day1 := staff.LocalDay(dashUTC("2026-11-30T10:00:00Z"), zone)
	week0, week1 := staff.LocalWeek(dashUTC("2026-11-30T10:00:00Z"), zone)
	type want struct {
		orders, seats int
		amount        int64
	}
	cases := []struct {
		name     string
		from, to time.Time
		total    want
		movie    map[int64]want
		hall     map[int64]want
	}{
		{"today", day0, day1, want{3, 4, 4500 + 4500 + 4500 + 4500},
			map[int64]want{show.Movie.ID: {2, 2, 9000}, small.Movie.ID: {1, 2, 9000}},
			map[int64]want{e.Hall.ID: {2, 2, 9000}, hall2.ID: {1, 2, 9000}}},
		{"this week", week0, week1, want{4, 5, 22500},
			map[int64]want{show.Movie.ID: {3, 3, 13500}, small.Movie.ID: {1, 2, 9000}},
			map[int64]want{e.Hall.ID: {3, 3, 13500}, hall2.ID: {1, 2, 9000}}},
		{"last week", week0.AddDate(0, 0, -7), week0, want{1, 1, 4500},
			map[int64]want{show.Movie.ID: {1, 1, 4500}}, map[int64]want{e.Hall.ID: {1, 1, 4500}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := d.Revenue(ctx, c.from, c.to)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Totals) != 1 || r.Totals[0].Currency != "CNY" {
				t.Fatalf("totals %+v, want one CNY line", r.Totals)
			}
			if g := (want{r.Totals[0].Orders, r.Totals[0].Seats, r.Totals[0].AmountMinor}); g != c.total {
				t.Errorf("total %+v, want %+v", g, c.total)
			}
			check := func(what string, lines []*staff.RevenueLine, exp map[int64]want) {
				if len(lines) != len(exp) {
					t.Errorf("%s: %d lines, want %d", what, len(lines), len(exp))
				}
				for i, l := range lines {
					if g := (want{l.Orders, l.Seats, l.AmountMinor}); g != exp[l.ID] {
						t.Errorf("%s %d (%s): %+v, want %+v", what, l.ID, l.Name, g, exp[l.ID])
					}
					if i > 0 && lines[i-1].AmountMinor < l.AmountMinor {
						t.Errorf("%s: not largest first", what)
					}
				}
			}
			check("movie", r.ByMovie, c.movie)
			check("hall", r.ByHall, c.hall)
		})
	}
	if _, err := d.Revenue(ctx, day1, day0); services.ErrorCode(err) != services.CodeInvalidRequest {
		t.Errorf("reversed range: %v, want INVALID_REQUEST", err)
	}
}

// TestDashboard_OrdersPerMinute: 60 buckets up to the current minute, orders counted in
// the minute they were created (and paid), nothing from before the hour.
func TestDashboard_OrdersPerMinute(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	d := staff.NewDashboard(e.DB, e.Clock, dashboardZone(t))
	show := e.MakeShow(e.Hall.ID, services.ShowOnSale, dashUTC("2026-11-28T00:00:00Z"), dashUTC("2026-12-02T12:00:00Z"))
	now := dashUTC("2026-11-30T10:00:30Z") // window 09:01:00 .. 10:01:00
	at := func(s string, pay bool, labels ...string) {
		dashSetClock(e, dashUTC(s))
		dashBuy(e, show, pay, labels...)
	}
	at("2026-11-30T09:00:59Z", true, "A1") // the minute before the window
	at("2026-11-30T09:01:00Z", false, "A2")
	at("2026-11-30T09:30:10Z", false, "A3")
	at("2026-11-30T09:30:50Z", true, "A4")
	at("2026-11-30T10:00:05Z", true, "A5")
	got, err := d.OrdersPerMinute(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 60 || !got[0].Start.Equal(dashUTC("2026-11-30T09:01:00Z")) || !got[59].Start.Equal(dashUTC("2026-11-30T10:00:00Z")) {
		t.Fatalf("%d buckets from %s to %s", len(got), got[0].Start, got[len(got)-1].Start)
	}
	want := map[int][2]int{0: {1, 0}, 29: {2, 1}, 59: {1, 1}}
	for i, b := range got {
		if w := want[i]; b.Created != w[0] || b.Paid != w[1] {
			t.Errorf("bucket %d (%s): created %d paid %d, want %v", i, b.Start.Format("15:04"), b.Created, b.Paid, w)
		}
	}
}

// TestDashboard_PendingOrders: the pending count, those past their deadline, and the
// oldest pending orders first; paid and cancelled orders are not pending.
func TestDashboard_PendingOrders(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	d := staff.NewDashboard(e.DB, e.Clock, dashboardZone(t))
	dashBuy(e, e.Show, true, "A1")
	old := dashBuy(e, e.Show, false, "A2", "A3")
	e.Clock.Advance(10 * time.Minute)
	mid := dashBuy(e, e.Show, false, "A4")
	e.Clock.Advance(10 * time.Minute) // old is past its 15 minute deadline, not yet expired
	young := dashBuy(e, e.Show, false, "A5")
	got, err := d.PendingOrders(ctx, e.Clock.Now(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if got.Count != 3 || got.Overdue != 1 {
		t.Errorf("count %d overdue %d, want 3 and 1", got.Count, got.Overdue)
	}
	if len(got.Oldest) != 2 || got.Oldest[0].OrderNo != old.OrderNo || got.Oldest[1].OrderNo != mid.OrderNo {
		t.Fatalf("oldest %+v, want %s then %s", got.Oldest, old.OrderNo, mid.OrderNo)
	}
	if o := got.Oldest[0]; o.Seats != 2 || o.TotalMinor != 9000 || !o.ExpiresAt.Equal(old.ExpiresAt) || o.MovieTitle != e.Show.Movie.Title {
		t.Errorf("oldest: %+v", o)
	}
	_ = young
	empty, err := staff.NewDashboard(e.DB, e.Clock, nil).PendingOrders(ctx, e.Clock.Now(), 0)
	if err != nil || empty.Count != 3 || len(empty.Oldest) != 0 {
		t.Errorf("limit 0: %+v %v", empty, err)
	}
}
