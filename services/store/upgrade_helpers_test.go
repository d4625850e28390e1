package store_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/store"
)

// upgradeDB returns a database of its own (the test database's name plus suffix, dropped
// when the test ends) migrated up to migration version, the schema an upgrade test
// writes its old rows with before store.Migrate.
func upgradeDB(t *testing.T, suffix string, settings services.Cinema, version int64) *sqlx.DB {
	t.Helper()
	testenv.LockStores(t)
	ctx := context.Background()
	base := os.Getenv("SEATFLOW_TEST_MYSQL_DSN_BASE")
	if base == "" {
		base = "root@tcp(127.0.0.1:3306)/"
	}
	name := testenv.TestDBName + suffix
	admin, err := store.OpenDB(base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	if _, err := admin.Exec("DROP DATABASE IF EXISTS `" + name + "`"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec("DROP DATABASE IF EXISTS `" + name + "`") })
	if err := store.EnsureDatabase(ctx, base+name); err != nil {
		t.Fatal(err)
	}
	db, err := store.OpenDB(base + name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := store.MigrateUpTo(ctx, db, settings, version); err != nil {
		t.Fatal(err)
	}
	return db
}

// oldRow is one statement an upgrade test writes with an old schema's columns.
type oldRow struct {
	sql  string
	args []any
}

// writeOld runs rows in order, failing the test at the first error.
func writeOld(t *testing.T, db *sqlx.DB, rows ...oldRow) {
	t.Helper()
	for _, q := range rows {
		if _, err := db.Exec(q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
}

// oneShowRows are a buyer (user 1), a movie, a hall of the install's cinema with one
// zone of three seats (A1-A3, ids 1-3) and that hall's on-sale show 1, created at at:
// what the upgrade tests of schemas with cinemas (migration 30 on) start from.
func oneShowRows(at time.Time) []oldRow {
	return []oldRow{
		{"INSERT INTO users (id, email, name, password_hash, role, created_at) VALUES (1, 'b@example.test', 'B', 'x', 'customer', ?)", []any{at}},
		{"INSERT INTO movies (id, title, runtime_min, rating, synopsis) VALUES (1, 'Film', 100, 'PG', '')", nil},
		{"INSERT INTO halls (id, cinema_id, name, rows_n, cols_n) SELECT 1, id, 'Hall 1', 1, 3 FROM cinemas LIMIT 1", nil},
		{"INSERT INTO zones (id, hall_id, code, name) VALUES (1, 1, 'standard', 'Standard')", nil},
		{"INSERT INTO seats (id, hall_id, zone_id, row_no, col_no, label, kind) VALUES (1, 1, 1, 1, 1, 'A1', 'standard'), (2, 1, 1, 1, 2, 'A2', 'standard'), (3, 1, 1, 1, 3, 'A3', 'standard')", nil},
		{`INSERT INTO shows (id, movie_id, hall_id, starts_at, sale_opens_at, sale_closes_at, status, purchase_limit, currency, created_at)
			VALUES (1, 1, 1, ?, ?, ?, 'on_sale', 4, 'EUR', ?)`, []any{at.Add(48 * time.Hour), at, at.Add(48 * time.Hour), at}},
	}
}
