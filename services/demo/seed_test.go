package demo_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"golang.org/x/crypto/bcrypt"

	"seatflow/services"
	"seatflow/services/accounts"
	"seatflow/services/catalog"
	"seatflow/services/demo"
	"seatflow/services/internal/testenv"
)

func demoTestZone(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		return time.FixedZone("CST", 8*3600)
	}
	return loc
}

type demoCounts struct {
	Halls, Zones, Seats, Movies, Shows, Prices, Orders, OrderSeats, Users int
}

func countDemo(t *testing.T, db *sqlx.DB) demoCounts {
	t.Helper()
	var c demoCounts
	for _, q := range []struct {
		dst   *int
		table string
	}{
		{&c.Halls, "halls"}, {&c.Zones, "zones"}, {&c.Seats, "seats"}, {&c.Movies, "movies"},
		{&c.Shows, "shows"}, {&c.Prices, "show_prices"}, {&c.Orders, "orders"},
		{&c.OrderSeats, "order_seats"}, {&c.Users, "users"},
	} {
		if err := db.Get(q.dst, "SELECT COUNT(*) FROM "+q.table); err != nil {
			t.Fatalf("count %s: %v", q.table, err)
		}
	}
	return c
}

func TestSeedDemo(t *testing.T) {
	db := testenv.NewTestDB(t)
	ctx := context.Background()
	zone := demoTestZone(t)
	now := time.Date(2030, 3, 10, 10, 0, 0, 0, zone).UTC()
	users := accounts.NewUsers(db, testenv.FixedClock{T: now}, bcrypt.MinCost)
	opt := demo.DemoOptions{Now: now, Zone: zone, Currency: "CNY", PurchaseLimit: 4}

	rep1, err := demo.SeedDemo(ctx, db, users, opt)
	if err != nil {
		t.Fatalf("first seed: %v", err)
	}
	if rep1.HallsCreated < 3 || rep1.MoviesCreated < 6 || rep1.ShowsCreated == 0 || rep1.OrdersCreated == 0 {
		t.Fatalf("first seed created too little: %+v", rep1)
	}
	c1 := countDemo(t, db)
	if c1.Halls != rep1.HallsCreated || c1.Movies != rep1.MoviesCreated || c1.Shows != rep1.ShowsCreated || c1.Orders != rep1.OrdersCreated {
		t.Fatalf("report %+v does not match the tables %+v", rep1, c1)
	}

	rep2, err := demo.SeedDemo(ctx, db, users, opt)
	if err != nil {
		t.Fatalf("second seed: %v", err)
	}
	if rep2.HallsCreated != 0 || rep2.MoviesCreated != 0 || rep2.ShowsCreated != 0 || rep2.OrdersCreated != 0 {
		t.Fatalf("second seed created something: %+v", rep2)
	}
	if c2 := countDemo(t, db); c2 != c1 {
		t.Fatalf("second seed changed the counts: %+v -> %+v", c1, c2)
	}

	t.Run("seats per hall", func(t *testing.T) {
		want := map[string]int{"Hall 1": 80, "Hall 2": 216, "Hall 3": 400}
		for name, n := range want {
			var got int
			if err := db.Get(&got, "SELECT COUNT(*) FROM seats s JOIN halls h ON h.id = s.hall_id WHERE h.name = ?", name); err != nil {
				t.Fatal(err)
			}
			if got != n {
				t.Errorf("%s has %d seats, want %d", name, got, n)
			}
		}
		var bad int
		if err := db.Get(&bad, `SELECT COUNT(*) FROM seats s JOIN halls h ON h.id = s.hall_id
			WHERE s.row_no < 1 OR s.row_no > h.rows_n OR s.col_no < 1 OR s.col_no > h.cols_n`); err != nil {
			t.Fatal(err)
		}
		if bad != 0 {
			t.Errorf("%d seats lie outside their hall's grid", bad)
		}
	})

	t.Run("hall 2 layout", func(t *testing.T) {
		var h services.Hall
		if err := db.Get(&h, "SELECT id, name, rows_n, cols_n FROM halls WHERE name = 'Hall 2'"); err != nil {
			t.Fatal(err)
		}
		var seats []services.Seat
		if err := db.Select(&seats, `SELECT s.id, s.hall_id, s.zone_id, z.code AS zone_code, s.row_no, s.col_no, s.label, s.kind
			FROM seats s JOIN zones z ON z.id = s.zone_id WHERE s.hall_id = ?`, h.ID); err != nil {
			t.Fatal(err)
		}
		used := map[int]bool{}
		at := map[[2]int]services.Seat{}
		zones := map[string]bool{}
		for _, s := range seats {
			used[s.Col] = true
			at[[2]int{s.Row, s.Col}] = s
			zones[s.ZoneCode] = true
		}
		aisle := 0
		for c := 2; c < h.Cols; c++ {
			if !used[c] {
				aisle = c
			}
		}
		if aisle == 0 {
			t.Errorf("hall 2 has no aisle column inside its %d columns", h.Cols)
		}
		if !zones["standard"] || !zones["premium"] {
			t.Errorf("hall 2 zones %v, want standard and premium", zones)
		}
		wheel, blocked := 0, 0
		for _, s := range seats {
			switch s.Kind {
			case services.KindWheelchair:
				wheel++
				l, r := at[[2]int{s.Row, s.Col - 1}], at[[2]int{s.Row, s.Col + 1}]
				if l.Kind != services.KindCompanion && r.Kind != services.KindCompanion {
					t.Errorf("wheelchair space %s has no adjacent companion seat", s.Label)
				}
			case services.KindBlocked:
				blocked++
			}
		}
		if wheel < 2 || blocked < 1 {
			t.Errorf("hall 2 has %d wheelchair spaces and %d blocked seats", wheel, blocked)
		}
		if s, ok := at[[2]int{1, aisle + 1}]; !ok || s.Label != "A10" {
			t.Errorf("seat right of the aisle in row A is %+v, want label A10", s)
		}
	})

	t.Run("every show has a price per zone", func(t *testing.T) {
		var missing int
		if err := db.Get(&missing, `SELECT COUNT(*) FROM shows sh JOIN zones z ON z.hall_id = sh.hall_id
			LEFT JOIN show_prices p ON p.show_id = sh.id AND p.zone_id = z.id WHERE p.show_id IS NULL OR p.price_minor <= 0`); err != nil {
			t.Fatal(err)
		}
		if missing != 0 {
			t.Errorf("%d show/zone pairs without a price", missing)
		}
		var past int
		if err := db.Get(&past, "SELECT COUNT(*) FROM shows WHERE starts_at <= ? OR sale_closes_at <> starts_at OR currency <> 'CNY' OR purchase_limit <> 4", now); err != nil {
			t.Fatal(err)
		}
		if past != 0 {
			t.Errorf("%d shows start in the past or have a wrong sale close, currency or limit", past)
		}
	})

	t.Run("on sale now", func(t *testing.T) {
		var n int
		if err := db.Get(&n, `SELECT COUNT(*) FROM shows WHERE status = 'on_sale'
			AND sale_opens_at <= ? AND sale_closes_at > ? AND starts_at > ?`, now, now, now.Add(2*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if n < 2 {
			t.Errorf("%d shows on sale starting more than 2 h from now, want >= 2", n)
		}
		var later, scheduled int
		if err := db.Get(&later, "SELECT COUNT(*) FROM shows WHERE sale_opens_at > ?", now); err != nil {
			t.Fatal(err)
		}
		if err := db.Get(&scheduled, "SELECT COUNT(*) FROM shows WHERE status = 'scheduled'"); err != nil {
			t.Fatal(err)
		}
		if later == 0 || scheduled == 0 {
			t.Errorf("%d shows open later, %d scheduled; want some of each", later, scheduled)
		}
	})

	t.Run("nearly sold out", func(t *testing.T) {
		var shows []services.Show
		if err := db.Select(&shows, `SELECT id, movie_id, hall_id, starts_at, sale_opens_at, sale_closes_at, status, purchase_limit, currency
			FROM shows WHERE id IN (SELECT show_id FROM orders)`); err != nil {
			t.Fatal(err)
		}
		if len(shows) != 1 {
			t.Fatalf("%d shows with orders, want 1", len(shows))
		}
		sh := shows[0]
		if !sh.OnSaleAt(now) {
			t.Errorf("the nearly sold out show is not on sale now: %+v", sh)
		}
		var free int
		if err := db.Get(&free, `SELECT COUNT(*) FROM seats s WHERE s.hall_id = ? AND s.kind <> 'blocked'
			AND NOT EXISTS (SELECT 1 FROM order_seats os WHERE os.show_id = ? AND os.seat_id = s.id AND os.live = 1)`, sh.HallID, sh.ID); err != nil {
			t.Fatal(err)
		}
		if free < 1 || free > 10 {
			t.Errorf("the nearly sold out show has %d free seats, want 1..10", free)
		}
		var over int
		if err := db.Get(&over, `SELECT COUNT(*) FROM (SELECT o.user_id FROM orders o JOIN order_seats os ON os.order_id = o.id
			WHERE o.show_id = ? GROUP BY o.user_id HAVING COUNT(*) > ?) x`, sh.ID, sh.PurchaseLimit); err != nil {
			t.Fatal(err)
		}
		if over != 0 {
			t.Errorf("%d filler users own more than the purchase limit", over)
		}
		var wrong int
		if err := db.Get(&wrong, `SELECT COUNT(*) FROM orders o WHERE o.status <> 'paid' OR o.paid_at IS NULL
			OR o.total_minor <> (SELECT SUM(price_minor) FROM order_seats os WHERE os.order_id = o.id)`); err != nil {
			t.Fatal(err)
		}
		if wrong != 0 {
			t.Errorf("%d filler orders are not paid or have a wrong total", wrong)
		}
		if _, _, err := users.Login(ctx, "filler-1@seatflow.test", ""); services.ErrorCode(err) != services.CodeUnauthenticated {
			t.Errorf("a filler account can log in: %v", err)
		}
	})

	t.Run("demo accounts", func(t *testing.T) {
		roles := map[string]bool{}
		for i, a := range rep2.Accounts {
			roles[a.Role] = true
			if len(a.Password) < 12 || a.Password == rep1.Accounts[i].Password {
				t.Errorf("%s: password %q is not fresh", a.Email, a.Password)
			}
			_, u, err := users.Login(ctx, a.Email, a.Password)
			if err != nil {
				t.Errorf("login %s: %v", a.Email, err)
				continue
			}
			if u.Role != a.Role {
				t.Errorf("%s has role %s, want %s", a.Email, u.Role, a.Role)
			}
			if _, _, err := users.Login(ctx, a.Email, rep1.Accounts[i].Password); err == nil {
				t.Errorf("%s still accepts the first run's password", a.Email)
			}
		}
		if !roles[services.RoleCustomer] || !roles[services.RoleStaff] || !roles[services.RoleAdmin] {
			t.Errorf("demo account roles %v", roles)
		}
	})

	t.Run("next day adds one day of shows", func(t *testing.T) {
		opt3 := opt
		opt3.Now = now.Add(24 * time.Hour)
		rep3, err := demo.SeedDemo(ctx, db, users, opt3)
		if err != nil {
			t.Fatal(err)
		}
		if rep3.HallsCreated != 0 || rep3.MoviesCreated != 0 || rep3.ShowsCreated != 13 {
			t.Errorf("a seed one day later: %+v, want 13 new shows only", rep3)
		}
		var dup int
		if err := db.Get(&dup, `SELECT COUNT(*) FROM (SELECT show_id, seat_id FROM order_seats WHERE live = 1
			GROUP BY show_id, seat_id HAVING COUNT(*) > 1) x`); err != nil {
			t.Fatal(err)
		}
		if dup != 0 {
			t.Errorf("%d seats sold twice", dup)
		}
	})
}

func TestSeedDemoLateEvening(t *testing.T) {
	db := testenv.NewTestDB(t)
	ctx := context.Background()
	zone := demoTestZone(t)
	now := time.Date(2030, 3, 10, 23, 50, 0, 0, zone).UTC()
	users := accounts.NewUsers(db, testenv.FixedClock{T: now}, bcrypt.MinCost)
	rep, err := demo.SeedDemo(ctx, db, users, demo.DemoOptions{Now: now, Zone: zone})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ShowsCreated != 6*13 {
		t.Errorf("created %d shows late in the evening, want %d (today's are over)", rep.ShowsCreated, 6*13)
	}
	var n int
	if err := db.Get(&n, `SELECT COUNT(*) FROM shows WHERE status = 'on_sale'
		AND sale_opens_at <= ? AND sale_closes_at > ? AND starts_at > ?`, now, now, now.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n < 2 {
		t.Errorf("%d shows on sale starting more than 2 h from now, want >= 2", n)
	}
	if rep.OrdersCreated == 0 {
		t.Errorf("no nearly sold out show")
	}
}

// TestSeedDemo_HallsFromLayoutText: the demo halls are created from their layout text
// through CreateHall (audited as the system), open in the editor as that same text, and
// a second seed keeps them.
func TestSeedDemo_HallsFromLayoutText(t *testing.T) {
	db := testenv.NewTestDB(t)
	ctx := context.Background()
	now := time.Date(2030, 3, 10, 10, 0, 0, 0, time.UTC)
	users := accounts.NewUsers(db, testenv.FixedClock{T: now}, bcrypt.MinCost)
	for run := 1; run <= 2; run++ {
		if _, err := demo.SeedDemo(ctx, db, users, demo.DemoOptions{Now: now}); err != nil {
			t.Fatalf("seed %d: %v", run, err)
		}
	}
	w := catalog.NewCatalogWriter(db, catalog.NewCatalog(db), nil, nil, testenv.FixedClock{T: now}, catalog.WriterConfig{})
	for _, dh := range demo.DemoHalls {
		t.Run(dh.Name, func(t *testing.T) {
			var id int64
			if err := db.Get(&id, "SELECT id FROM halls WHERE name = ?", dh.Name); err != nil {
				t.Fatal(err)
			}
			h, err := w.Hall(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if h.Layout != dh.Layout || h.Numbering != catalog.NumberLeftToRight {
				t.Errorf("layout %q (%s), want %q", h.Layout, h.Numbering, dh.Layout)
			}
			var audits []struct {
				Actor *int64 `db:"actor_user_id"`
			}
			if err := db.Select(&audits, "SELECT actor_user_id FROM audit_log WHERE action = 'hall.create' AND entity_id = ?", strconv.FormatInt(id, 10)); err != nil {
				t.Fatal(err)
			}
			if len(audits) != 1 || audits[0].Actor != nil {
				t.Errorf("hall.create audited %d times (want once, by the system)", len(audits))
			}
		})
	}
}
