package services

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"
)

// testClock is a Clock tests move by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *testClock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// testRedisDB is the Redis database number the services tests own.
const testRedisDB = 11

// newTestRedis returns a client of Redis DB testRedisDB on 127.0.0.1:6379 (override
// the address with SEATFLOW_TEST_REDIS_ADDR), flushed.
func newTestRedis(t testing.TB) *redis.Client {
	t.Helper()
	addr := os.Getenv("SEATFLOW_TEST_REDIS_ADDR")
	if addr == "" {
		addr = "127.0.0.1:6379"
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr, DB: testRedisDB, PoolSize: 128})
	if err := rdb.FlushDB(context.Background()).Err(); err != nil {
		t.Fatalf("redis: %v", err)
	}
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// recordingExpiry is an ExpiryScheduler that remembers what was scheduled.
type recordingExpiry struct {
	mu        sync.Mutex
	scheduled map[string]time.Time
	cancelled map[string]bool
}

func (r *recordingExpiry) ScheduleExpiry(_ context.Context, no string, at time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.scheduled[no] = at
	return nil
}

func (r *recordingExpiry) CancelExpiry(_ context.Context, no string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cancelled[no] = true
	return nil
}

// testEnv is the whole service layer over the real MariaDB and Redis, with a hall of
// 10 rows x 21 columns (a centre aisle at column 11, so 200 seats: rows A-G zone
// "standard" at 4500, rows H-J zone "premium" at 6500, seat J1 blocked) and one show on
// sale with purchase limit 4.
type testEnv struct {
	t        testing.TB
	db       *sqlx.DB
	rdb      *redis.Client
	clock    *testClock
	catalog  *Catalog
	seats    *SeatStore
	users    *Users
	limiter  *RateLimiter
	orders   *Orders
	payments *Payments
	shows    *Shows
	expiry   *recordingExpiry
	hall     *Hall
	show     *Show
}

// unlimited rate limits for tests that are not about rate limits.
var unlimited = Limits{UserPerMinute: 1e6, UserBurst: 1e6, ShowPerSecond: 1e6, ShowBurst: 1e6, LoginPerMinute: 1e6, LoginBurst: 1e6}

func newTestEnv(t testing.TB, limits Limits) *testEnv {
	t.Helper()
	return newTestEnvOn(t, limits, newTestDB(t), newTestRedis(t))
}

// newTestEnvOn is newTestEnv over given stores: db is the emptied test database (or a
// connection to it through a proxy) and rdb an empty Redis database.
func newTestEnvOn(t testing.TB, limits Limits, db *sqlx.DB, rdb *redis.Client) *testEnv {
	t.Helper()
	e := &testEnv{t: t, db: db, rdb: rdb,
		clock:  &testClock{t: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)},
		expiry: &recordingExpiry{scheduled: map[string]time.Time{}, cancelled: map[string]bool{}}}
	e.catalog = NewCatalog(e.db)
	e.seats = NewSeatStore(e.rdb, e.db, e.catalog, "sf")
	e.users = NewUsers(e.db, e.clock, bcrypt.MinCost)
	e.limiter = NewRateLimiter(e.rdb, limits, "sf")
	e.orders = NewOrders(e.db, e.catalog, e.seats, e.limiter, e.clock, OrdersConfig{HoldFor: 15 * time.Minute, Expiry: e.expiry})
	e.payments = NewPayments(e.db, e.orders, e.clock, []byte("test-secret"), DemoProvider{})
	e.shows = NewShows(e.db, e.catalog, e.seats, e.clock, time.UTC)
	hallID := e.makeHall()
	e.show = e.makeShow(hallID, ShowOnSale, e.clock.Now().Add(-time.Hour), e.clock.Now().Add(48*time.Hour))
	var err error
	if e.hall, err = e.catalog.Hall(context.Background(), hallID); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *testEnv) exec(q string, args ...any) int64 {
	e.t.Helper()
	res, err := e.db.Exec(q, args...)
	if err != nil {
		e.t.Fatalf("%s: %v", q, err)
	}
	id, _ := res.LastInsertId()
	return id
}

// testHallLayout is the test hall as staff would type it: 10 rows of 10 seats, an aisle,
// 10 seats; rows H-J premium; J1 blocked.
var testHallLayout = strings.Repeat("SSSSSSSSSS.SSSSSSSSSS\n", 7) + strings.Repeat("PPPPPPPPPP.PPPPPPPPPP\n", 2) +
	"BPPPPPPPPP.PPPPPPPPPP\n"

var hallSeq atomic.Int64

// makeHall creates the test hall through the catalog write service, as the console does.
func (e *testEnv) makeHall() int64 {
	w := e.catalogWriter(e.shows)
	h, err := w.CreateHall(context.Background(), 0, HallInput{Name: fmt.Sprintf("Test Hall %d", hallSeq.Add(1)),
		Layout: testHallLayout, Numbering: NumberLeftToRight})
	if err != nil {
		e.t.Fatal(err)
	}
	return h.ID
}

var movieSeq int

func (e *testEnv) makeShow(hallID int64, status string, opens, closes time.Time) *Show {
	movieSeq++
	movie := e.exec("INSERT INTO movies (title, runtime_min, synopsis) VALUES (?, 100, 'x')", "Movie "+strconv.Itoa(movieSeq)+" "+e.t.Name())
	starts := closes
	id := e.exec(`INSERT INTO shows (movie_id, hall_id, starts_at, sale_opens_at, sale_closes_at, status, purchase_limit, currency, created_at)
		VALUES (?, ?, ?, ?, ?, ?, 4, 'CNY', ?)`, movie, hallID, starts, opens, closes, status, e.clock.Now())
	e.exec("INSERT INTO show_prices (show_id, zone_id, price_minor) SELECT ?, id, IF(code = 'premium', 6500, 4500) FROM zones WHERE hall_id = ?", id, hallID)
	s, err := e.catalog.Show(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// user creates a customer and returns its id.
func (e *testEnv) user(n int) int64 {
	e.t.Helper()
	id, err := e.users.Create(context.Background(), fmt.Sprintf("u%d-%d@test.example", n, time.Now().UnixNano()), "password-123", "User", RoleCustomer)
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

// seatIDs returns the ids of seats by label.
func (e *testEnv) seatIDs(labels ...string) []int64 {
	e.t.Helper()
	out := make([]int64, 0, len(labels))
	for _, l := range labels {
		found := false
		for _, s := range e.hall.Seats {
			if s.Label == l {
				out = append(out, s.ID)
				found = true
			}
		}
		if !found {
			e.t.Fatalf("no seat %s", l)
		}
	}
	return out
}

// create orders seats for a user on the env's show.
func (e *testEnv) create(userID int64, seatIDs ...int64) (*Order, error) {
	return e.orders.Create(context.Background(), CreateOrderRequest{UserID: userID, ShowID: e.show.ID, SeatIDs: seatIDs})
}

// checkInvariants compares MySQL and Redis for the env's show: at most one live order
// per seat (invariant 1), Redis seat values equal to MySQL's (invariant 3), zone counts
// and per-user counts equal to what MySQL implies, and nobody over the purchase limit.
func (e *testEnv) checkInvariants() {
	e.t.Helper()
	ctx := context.Background()
	var dup int
	if err := e.db.Get(&dup, `SELECT COUNT(*) FROM (SELECT seat_id FROM order_seats os JOIN orders o ON o.id = os.order_id
		WHERE os.show_id = ? AND o.status IN ('pending','paid') GROUP BY seat_id HAVING COUNT(*) > 1) d`, e.show.ID); err != nil {
		e.t.Fatal(err)
	}
	if dup != 0 {
		e.t.Errorf("invariant 1: %d seats belong to more than one live order", dup)
	}
	var liveMismatch int
	if err := e.db.Get(&liveMismatch, `SELECT COUNT(*) FROM order_seats os JOIN orders o ON o.id = os.order_id
		WHERE os.show_id = ? AND ((o.status IN ('pending','paid')) <> (os.live IS NOT NULL))`, e.show.ID); err != nil {
		e.t.Fatal(err)
	}
	if liveMismatch != 0 {
		e.t.Errorf("%d order seats have a live flag that disagrees with their order's status", liveMismatch)
	}
	snap, err := e.seats.SnapshotFromDB(ctx, e.show)
	if err != nil {
		e.t.Fatal(err)
	}
	cache, err := e.seats.ReadCache(ctx, e.show.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	if cache.Seats == nil {
		e.t.Errorf("invariant 3: show %d has no seat map in Redis", e.show.ID)
		return
	}
	hall, err := e.catalog.Hall(ctx, e.show.HallID)
	if err != nil {
		e.t.Fatal(err)
	}
	// the same comparison reconciliation repairs by, with no grace: at rest nothing is in flight
	findings, _ := CompareSeatCache(SeatComparison{ShowID: e.show.ID, Truth: snap, Cache: cache,
		ZoneOf: zoneOf(hall), Now: e.clock.Now()})
	for _, f := range findings {
		e.t.Errorf("invariant 3: %s at seat %d (order %q): %s", f.Kind, f.SeatID, f.OrderNo, f.Detail)
	}
	for u, n := range snap.Users {
		if n > e.show.PurchaseLimit {
			e.t.Errorf("user %d holds or owns %d seats, over the limit %d", u, n, e.show.PurchaseLimit)
		}
	}
}

// catalogWriter returns the catalog's write side over the env's stores, its seat maps
// through shows (whose time zone it takes), currency CNY and purchase limit 4.
func (e *testEnv) catalogWriter(shows *Shows) *CatalogWriter {
	return NewCatalogWriter(e.db, e.catalog, shows, NewAudit(e.db, e.clock), e.clock,
		WriterConfig{Currency: "CNY", DefaultLimit: 4, Zone: shows.Zone()})
}
