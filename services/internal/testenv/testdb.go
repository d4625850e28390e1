package testenv

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services/store"
)

// FixedClock is a Clock that always tells t.
type FixedClock struct{ T time.Time }

// Now returns the fixed time.
func (c FixedClock) Now() time.Time { return c.T }

// NewTestDB creates (or empties) the MariaDB database TestDBName of this test package
// on 127.0.0.1:3306 (root, no password; override the part before the database name with
// SEATFLOW_TEST_MYSQL_DSN_BASE, e.g. "root@tcp(127.0.0.1:3306)/"), applies the
// migrations with Migrate, and truncates every table (SET FOREIGN_KEY_CHECKS=0; TRUNCATE
// each table except goose_db_version). It returns the *sqlx.DB and closes it with
// t.Cleanup.
func NewTestDB(t testing.TB) *sqlx.DB {
	t.Helper()
	LockStores(t)
	base := os.Getenv("SEATFLOW_TEST_MYSQL_DSN_BASE")
	if base == "" {
		base = "root@tcp(127.0.0.1:3306)/"
	}
	dsn := base + TestDBName
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := store.EnsureDatabase(ctx, dsn); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	db, err := store.OpenDB(dsn)
	if err != nil {
		t.Fatalf("open test database: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := store.Migrate(ctx, db); err != nil {
		t.Fatalf("migrate test database: %v", err)
	}
	var tables []string
	if err := db.SelectContext(ctx, &tables, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE' AND table_name <> 'goose_db_version'`); err != nil {
		t.Fatalf("list tables: %v", err)
	}
	conn, err := db.Connx(ctx) // FOREIGN_KEY_CHECKS is per session: one connection for all
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET FOREIGN_KEY_CHECKS = 0"); err != nil {
		t.Fatalf("disable foreign key checks: %v", err)
	}
	for _, tb := range tables {
		if _, err := conn.ExecContext(ctx, "TRUNCATE TABLE `"+tb+"`"); err != nil {
			t.Fatalf("truncate %s: %v", tb, err)
		}
	}
	if _, err := conn.ExecContext(ctx, "SET FOREIGN_KEY_CHECKS = 1"); err != nil {
		t.Fatalf("enable foreign key checks: %v", err)
	}
	return db
}

var (
	storesOnce sync.Once
	storesFile *os.File // open while the process lives: closing it would drop the lock
	storesErr  error
)

// LockStores makes this test process the only user of its package's test database and
// Redis DB until it exits. Each package has stores of its own (stores.go), so the
// packages under services/ run side by side; the lock only makes two runs of one
// package (two go test commands in one checkout) take turns: the first call of each
// process waits for an exclusive lock on a file in the temporary directory named
// after the database and the Redis address.
func LockStores(t testing.TB) {
	t.Helper()
	storesOnce.Do(func() {
		name := filepath.Join(os.TempDir(), "seatflow-test-stores-"+TestDBName+"-"+strings.ReplaceAll(testRedisAddr(), ":", "_")+".lock")
		if storesFile, storesErr = os.OpenFile(name, os.O_CREATE|os.O_RDWR, 0o600); storesErr != nil {
			return
		}
		storesErr = syscall.Flock(int(storesFile.Fd()), syscall.LOCK_EX)
	})
	if storesErr != nil {
		t.Fatalf("lock the test stores: %v", storesErr)
	}
}
