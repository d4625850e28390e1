package store_test

import (
	"context"
	"os"
	"testing"

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
