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

	"seatflow/services"
	"seatflow/services/store"
)

// FirstCinema is the cinema every test database starts with (id 1): UTC, CNY, as the
// services' tests list and price shows.
var FirstCinema = services.Cinema{Name: "seatflow", TimeZone: "UTC", Currency: "CNY"}

// FixedClock is a Clock that always tells t.
type FixedClock struct{ T time.Time }

// Now returns the fixed time.
func (c FixedClock) Now() time.Time { return c.T }

// NewTestDB creates (or empties) the MariaDB database TestDBName of this test package
// on 127.0.0.1:3306 (root, no password; override the part before the database name with
// SEATFLOW_TEST_MYSQL_DSN_BASE, e.g. "root@tcp(127.0.0.1:3306)/"), applies the
// migrations with Migrate, and empties every table (store.ResetTables), leaving only
// FirstCinema. It returns the *sqlx.DB and closes it with
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
	if _, err := store.Migrate(ctx, db, FirstCinema); err != nil {
		t.Fatalf("migrate test database: %v", err)
	}
	if err := store.ResetTables(ctx, db); err != nil {
		t.Fatalf("empty the tables: %v", err)
	}
	if _, err := store.EnsureFirstCinema(ctx, db, FirstCinema); err != nil {
		t.Fatalf("first cinema: %v", err)
	}
	return db
}

var (
	storesOnce  sync.Once
	storesFiles []*os.File // open while the process lives: closing one would drop its lock
	storesErr   error
)

// RunsAlone lists the test packages that run with no other services package beside
// them: services/invariants, whose storms (hundreds of goroutines against one show)
// and fault tests count on Redis answering within store.RedisTimeout and on rate
// buckets not refilling between calls, which a second busy test process on a small
// machine can starve. Its fault tests flush and restart Redis servers of their own
// (NewPrivateRedisEnv) and cut a proxy of their own (NewProxiedEnv), never the shared
// stores.
var RunsAlone = map[string]bool{"services/invariants": true}

// LockStores makes this test process the only user of its package's test database and
// Redis DB until it exits. Each package has stores of its own (stores.go), so the
// packages under services/ run side by side; a package of RunsAlone runs alone. The
// first call of each process takes two locks on files in the temporary directory,
// kept until it exits: one named after the checkout (SEATFLOW_TEST_SUFFIX) and the
// Redis address, shared by every package and exclusive for a package of RunsAlone;
// then an exclusive one named after the database and the Redis address, which makes
// two runs of one package (two go test commands in one checkout) take turns.
func LockStores(t testing.TB) {
	t.Helper()
	storesOnce.Do(func() {
		addr := strings.ReplaceAll(testRedisAddr(), ":", "_")
		how := syscall.LOCK_SH
		if RunsAlone[Package] {
			how = syscall.LOCK_EX
		}
		if storesErr = lockFile("seatflow-test-alone"+os.Getenv("SEATFLOW_TEST_SUFFIX")+"-"+addr+".lock", how); storesErr != nil {
			return
		}
		storesErr = lockFile("seatflow-test-stores-"+TestDBName+"-"+addr+".lock", syscall.LOCK_EX)
	})
	if storesErr != nil {
		t.Fatalf("lock the test stores: %v", storesErr)
	}
}

// lockFile waits for a lock (how: syscall.LOCK_SH or LOCK_EX) on the file name in the
// temporary directory and keeps it until the process exits.
func lockFile(name string, how int) error {
	f, err := os.OpenFile(filepath.Join(os.TempDir(), name), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	storesFiles = append(storesFiles, f)
	return syscall.Flock(int(f.Fd()), how)
}

// SetFirstCinemaZone moves FirstCinema (id 1) to the IANA time zone zone: its shows'
// local dates and times, e-mails and dashboard day follow. A catalog that cached the
// cinemas must forget them (Catalog.ForgetCinemas).
func SetFirstCinemaZone(t testing.TB, db *sqlx.DB, zone string) {
	t.Helper()
	if err := store.UpdateCinema(context.Background(), db, 1, FirstCinema.Name, zone, FirstCinema.Currency); err != nil {
		t.Fatal(err)
	}
}
