package store_test

import (
	"context"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/store"
)

// TestUpgrade_OneCinemaKeepsEveryShowOrderAndPrice migrates a database made by the
// schema before cinemas (migration 29) and holding halls, shows, prices and orders to
// the current schema: one cinema made from the install's settings holds every hall, and
// every show, price, order and seat sold is as it was.
func TestUpgrade_OneCinemaKeepsEveryShowOrderAndPrice(t *testing.T) {
	ctx := context.Background()
	settings := services.Cinema{Name: "Kino am Markt", TimeZone: "Europe/Berlin", Currency: "EUR"}
	db := upgradeDB(t, "_upgrade", settings, 29)
	var cinemaTables int
	if err := db.Get(&cinemaTables, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'cinemas'"); err != nil || cinemaTables != 0 {
		t.Fatalf("the schema of migration 29 has %d cinemas tables (%v), want none", cinemaTables, err)
	}

	// what an install of one cinema holds, written with the old schema's columns
	at := time.Date(2030, 1, 10, 12, 0, 0, 0, time.UTC)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"INSERT INTO users (id, email, name, password_hash, role, created_at) VALUES (1, 'buyer@example.test', 'Buyer', 'x', 'customer', ?)", []any{at}},
		{"INSERT INTO movies (id, title, runtime_min, rating, synopsis) VALUES (1, 'Old Film', 100, 'PG', '')", nil},
		{"INSERT INTO halls (id, name, rows_n, cols_n) VALUES (1, 'Hall 1', 1, 2), (2, 'Hall 2', 1, 1)", nil},
		{"INSERT INTO zones (id, hall_id, code, name) VALUES (1, 1, 'standard', 'Standard'), (2, 2, 'standard', 'Standard')", nil},
		{"INSERT INTO seats (id, hall_id, zone_id, row_no, col_no, label, kind) VALUES (1, 1, 1, 1, 1, 'A1', 'standard'), (2, 1, 1, 1, 2, 'A2', 'standard'), (3, 2, 2, 1, 1, 'A1', 'standard')", nil},
		{`INSERT INTO shows (id, movie_id, hall_id, starts_at, sale_opens_at, sale_closes_at, status, purchase_limit, currency, created_at)
			VALUES (1, 1, 1, ?, ?, ?, 'on_sale', 4, 'EUR', ?), (2, 1, 2, ?, ?, ?, 'scheduled', 4, 'EUR', ?)`,
			[]any{at.Add(48 * time.Hour), at, at.Add(48 * time.Hour), at, at.Add(72 * time.Hour), at.Add(24 * time.Hour), at.Add(72 * time.Hour), at}},
		{"INSERT INTO show_prices (show_id, zone_id, price_minor) VALUES (1, 1, 1150), (2, 2, 990)", nil},
		{`INSERT INTO orders (id, order_no, user_id, show_id, status, total_minor, currency, created_at, expires_at, paid_at)
			VALUES (1, 'SF-OLD-1', 1, 1, 'paid', 2300, 'EUR', ?, ?, ?)`, []any{at, at.Add(10 * time.Minute), at.Add(time.Minute)}},
		{"INSERT INTO order_seats (order_id, show_id, seat_id, zone_code, price_minor) VALUES (1, 1, 1, 'standard', 1150), (1, 1, 2, 'standard', 1150)", nil},
	} {
		if _, err := db.Exec(q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	type snapshot struct {
		Shows, Prices, Orders, Seats int
		PriceSum, TotalSum           int64
	}
	take := func() snapshot {
		var s snapshot
		for _, q := range []struct {
			dst any
			sql string
		}{
			{&s.Shows, "SELECT COUNT(*) FROM shows"}, {&s.Prices, "SELECT COUNT(*) FROM show_prices"},
			{&s.Orders, "SELECT COUNT(*) FROM orders"}, {&s.Seats, "SELECT COUNT(*) FROM order_seats WHERE live = 1"},
			{&s.PriceSum, "SELECT SUM(price_minor) FROM show_prices"}, {&s.TotalSum, "SELECT SUM(total_minor) FROM orders WHERE status = 'paid'"},
		} {
			if err := db.Get(q.dst, q.sql); err != nil {
				t.Fatalf("%s: %v", q.sql, err)
			}
		}
		return s
	}
	before := take()

	if _, err := store.Migrate(ctx, db, settings); err != nil {
		t.Fatalf("upgrade: %v", err)
	}
	if after := take(); after != before {
		t.Errorf("the upgrade changed shows, prices or orders: %+v -> %+v", before, after)
	}
	cinemas, err := store.Cinemas(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if len(cinemas) != 1 || cinemas[0].Name != settings.Name || cinemas[0].TimeZone != settings.TimeZone || cinemas[0].Currency != settings.Currency {
		t.Fatalf("cinemas after the upgrade = %+v, want one made from the settings %+v", cinemas, settings)
	}
	for _, hallID := range []int64{1, 2} {
		if c, err := store.CinemaIDOfHall(ctx, db, hallID); err != nil || c != cinemas[0].ID {
			t.Errorf("hall %d is in cinema %d (%v), want %d", hallID, c, err, cinemas[0].ID)
		}
	}
	show, err := store.ShowByID(ctx, db, 1)
	if err != nil {
		t.Fatal(err)
	}
	if show.CinemaID != cinemas[0].ID || show.TimeZone != "Europe/Berlin" || show.Currency != "EUR" || show.HallName != "Hall 1" {
		t.Errorf("show 1 after the upgrade: cinema %d %q in %s, %s, hall %q", show.CinemaID, show.CinemaName, show.TimeZone, show.Currency, show.HallName)
	}
	// a second cinema may now have a "Hall 1" of its own; the first still may not
	second, err := store.InsertCinema(ctx, db, "Second", "Asia/Shanghai", "CNY", at)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.InsertHall(ctx, db, second, "Hall 1", 1, 1); err != nil {
		t.Errorf("a second cinema's Hall 1: %v", err)
	}
	if _, err := store.InsertHall(ctx, db, cinemas[0].ID, "hall 1", 1, 1); !store.DuplicateOn(err, "uq_halls_cinema_name") {
		t.Errorf("a second Hall 1 in the first cinema: %v, want the unique key uq_halls_cinema_name", err)
	}
	// migrating again changes nothing
	if n, err := store.Migrate(ctx, db, services.Cinema{Name: "Other", TimeZone: "UTC", Currency: "USD"}); err != nil || n != 0 {
		t.Errorf("a second migration applied %d (%v), want 0", n, err)
	}
}
