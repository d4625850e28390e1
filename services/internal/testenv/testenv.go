package testenv

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"seatflow/services"
	"seatflow/services/accounts"
	"seatflow/services/audit"
	"seatflow/services/catalog"
	"seatflow/services/orders"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// testClock is a Clock tests move by hand.
type testClock struct {
	Mu sync.Mutex
	T  time.Time
}

func (c *testClock) Now() time.Time { c.Mu.Lock(); defer c.Mu.Unlock(); return c.T }

func (c *testClock) Advance(d time.Duration) { c.Mu.Lock(); c.T = c.T.Add(d); c.Mu.Unlock() }

// RecordingExpiry is an ExpiryScheduler that remembers what was scheduled: each order's
// time, and each task's orders in the order they were scheduled (Tasks).
type RecordingExpiry struct {
	Mu        sync.Mutex
	Scheduled map[string]time.Time
	Cancelled map[string]bool
	Tasks     [][]string
}

func (r *RecordingExpiry) ScheduleExpiries(_ context.Context, at time.Time, nos []string) error {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	for _, no := range nos {
		r.Scheduled[no] = at
	}
	r.Tasks = append(r.Tasks, slices.Clone(nos))
	return nil
}

func (r *RecordingExpiry) CancelExpiry(_ context.Context, no string) error {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	r.Cancelled[no] = true
	return nil
}

// TestEnv is the whole service layer over the real MariaDB and Redis, with a hall of
// 10 rows x 21 columns (a centre aisle at column 11, so 200 seats: rows A-G zone
// "standard" at 4500, rows H-J zone "premium" at 6500, seat J1 blocked) and one show on
// sale with purchase limit 4.
type TestEnv struct {
	T        testing.TB
	DB       *sqlx.DB
	RDB      redis.UniversalClient
	Clock    *testClock
	Catalog  *catalog.Catalog
	Seats    *seats.SeatStore
	Users    *accounts.Users
	Limiter  *orders.RateLimiter
	Orders   *orders.Orders
	Payments *orders.Payments
	Shows    *seats.Listing
	Expiry   *RecordingExpiry
	Hall     *services.Hall
	Show     *services.Show
}

// Unlimited rate limits for tests that are not about rate limits.
var Unlimited = orders.Limits{UserPerMinute: 1e6, UserBurst: 1e6, ShowPerSecond: 1e6, ShowBurst: 1e6, LoginPerMinute: 1e6, LoginBurst: 1e6}

func NewTestEnv(t testing.TB, limits orders.Limits) *TestEnv {
	t.Helper()
	return newTestEnvOn(t, limits, NewTestDB(t), newTestRedis(t))
}

// newTestEnvOn is NewTestEnv over given stores: db is the emptied test database (or a
// connection to it through a proxy) and rdb an empty Redis database.
func newTestEnvOn(t testing.TB, limits orders.Limits, db *sqlx.DB, rdb redis.UniversalClient) *TestEnv {
	t.Helper()
	e := &TestEnv{T: t, DB: db, RDB: rdb,
		Clock:  &testClock{T: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)},
		Expiry: &RecordingExpiry{Scheduled: map[string]time.Time{}, Cancelled: map[string]bool{}}}
	e.Catalog = catalog.NewCatalog(e.DB)
	e.Seats = seats.NewSeatStore(e.RDB, e.DB, e.Catalog, "sf")
	e.Users = accounts.NewUsers(e.DB, e.Clock, bcrypt.MinCost)
	e.Limiter = orders.NewRateLimiter(e.RDB, limits, "sf")
	e.Shows = seats.NewListing(e.DB, e.Catalog, e.Seats, e.Clock, time.UTC)
	e.Orders = orders.NewOrders(e.DB, e.Catalog, e.Seats, e.Limiter, e.Clock, orders.OrdersConfig{HoldFor: 15 * time.Minute, Expiry: e.Expiry, HallMaps: e.Shows})
	e.Payments = orders.NewPayments(e.DB, e.Orders, e.Clock, []byte("test-secret"), orders.DemoProvider{})
	hallID := e.makeHall()
	e.Show = e.MakeShow(hallID, services.ShowOnSale, e.Clock.Now().Add(-time.Hour), e.Clock.Now().Add(48*time.Hour))
	var err error
	if e.Hall, err = e.Catalog.Hall(context.Background(), hallID); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *TestEnv) Exec(q string, args ...any) int64 {
	e.T.Helper()
	res, err := e.DB.Exec(q, args...)
	if err != nil {
		e.T.Fatalf("%s: %v", q, err)
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
func (e *TestEnv) makeHall() int64 {
	w := e.CatalogWriter(e.Shows)
	h, err := w.CreateHall(context.Background(), 0, catalog.HallInput{Name: fmt.Sprintf("Test Hall %d", hallSeq.Add(1)),
		Layout: testHallLayout, Numbering: catalog.NumberLeftToRight})
	if err != nil {
		e.T.Fatal(err)
	}
	return h.ID
}

var movieSeq int

func (e *TestEnv) MakeShow(hallID int64, status string, opens, closes time.Time) *services.Show {
	movieSeq++
	movie := e.Exec("INSERT INTO movies (title, runtime_min, synopsis) VALUES (?, 100, 'x')", "Movie "+strconv.Itoa(movieSeq)+" "+e.T.Name())
	starts := closes
	id := e.Exec(`INSERT INTO shows (movie_id, hall_id, starts_at, sale_opens_at, sale_closes_at, status, purchase_limit, currency, created_at)
		VALUES (?, ?, ?, ?, ?, ?, 4, 'CNY', ?)`, movie, hallID, starts, opens, closes, status, e.Clock.Now())
	e.Exec("INSERT INTO show_prices (show_id, zone_id, price_minor) SELECT ?, id, IF(code = 'premium', 6500, 4500) FROM zones WHERE hall_id = ?", id, hallID)
	s, err := e.Catalog.Show(context.Background(), id)
	if err != nil {
		e.T.Fatal(err)
	}
	return s
}

// User creates a customer and returns its id.
func (e *TestEnv) User(n int) int64 {
	e.T.Helper()
	id, err := e.Users.Create(context.Background(), fmt.Sprintf("u%d-%d@test.example", n, time.Now().UnixNano()), "password-123", "User", services.RoleCustomer)
	if err != nil {
		e.T.Fatal(err)
	}
	return id
}

// SeatIDs returns the ids of seats by label.
func (e *TestEnv) SeatIDs(labels ...string) []int64 {
	e.T.Helper()
	out := make([]int64, 0, len(labels))
	for _, l := range labels {
		found := false
		for _, s := range e.Hall.Seats {
			if s.Label == l {
				out = append(out, s.ID)
				found = true
			}
		}
		if !found {
			e.T.Fatalf("no seat %s", l)
		}
	}
	return out
}

// Create orders seats for a user on the env's show.
func (e *TestEnv) Create(userID int64, seatIDs ...int64) (*services.Order, error) {
	return e.Orders.Create(context.Background(), orders.CreateOrderRequest{UserID: userID, ShowID: e.Show.ID, SeatIDs: seatIDs})
}

// CheckInvariants compares MySQL and Redis for the env's show: at most one live order
// per seat (invariant 1), every live order seat a sellable seat of the show's hall and one
// physical seat one seat id (invariant 12), Redis seat values equal to MySQL's (invariant 3), zone counts
// and per-user counts equal to what MySQL implies, nobody over the purchase limit, and
// voucher uses within max_uses and equal in both stores (invariant 19, checkVoucherUses).
func (e *TestEnv) CheckInvariants() {
	e.T.Helper()
	ctx := context.Background()
	var dup int
	if err := e.DB.Get(&dup, `SELECT COUNT(*) FROM (SELECT seat_id FROM order_seats os JOIN orders o ON o.id = os.order_id
		WHERE os.show_id = ? AND o.status IN ('pending','paid') AND os.live = 1 GROUP BY seat_id HAVING COUNT(*) > 1) d`, e.Show.ID); err != nil {
		e.T.Fatal(err)
	}
	if dup != 0 {
		e.T.Errorf("invariant 1: %d seats belong to more than one live order", dup)
	}
	var liveMismatch int
	if err := e.DB.Get(&liveMismatch, `SELECT COUNT(*) FROM order_seats os JOIN orders o ON o.id = os.order_id
		WHERE os.show_id = ? AND os.exchanged_at IS NULL AND ((o.status IN ('pending','paid') AND NOT EXISTS (SELECT 1 FROM refund_seats rs
			WHERE rs.order_id = os.order_id AND rs.seat_id = os.seat_id)) <> (os.live IS NOT NULL))`, e.Show.ID); err != nil {
		e.T.Fatal(err)
	}
	if liveMismatch != 0 {
		e.T.Errorf("%d order seats have a live flag that disagrees with their order's status (and refunds)", liveMismatch)
	}
	e.checkSeatIdentity()
	snap, err := e.Seats.SnapshotFromDB(ctx, e.Show)
	if err != nil {
		e.T.Fatal(err)
	}
	cache, err := e.Seats.ReadCache(ctx, e.Show.ID)
	if err != nil {
		e.T.Fatal(err)
	}
	if cache.Seats == nil {
		e.T.Errorf("invariant 3: show %d has no seat map in Redis", e.Show.ID)
		return
	}
	hall, err := e.Catalog.Hall(ctx, e.Show.HallID)
	if err != nil {
		e.T.Fatal(err)
	}
	// the same comparison reconciliation repairs by, with no grace: at rest nothing is in flight
	findings, _ := seats.CompareSeatCache(seats.SeatComparison{ShowID: e.Show.ID, Truth: snap, Cache: cache,
		ZoneOf: seats.ZoneOf(hall), Now: e.Clock.Now()})
	for _, f := range findings {
		e.T.Errorf("invariant 3: %s at seat %d (order %q): %s", f.Kind, f.SeatID, f.OrderNo, f.Detail)
	}
	for u, n := range snap.Users {
		if n > e.Show.PurchaseLimit && u != services.WalkIn { // the box office has no limit
			e.T.Errorf("user %d holds or owns %d seats, over the limit %d", u, n, e.Show.PurchaseLimit)
		}
	}
	e.checkVoucherUses()
	e.CheckMoney(e.Show.ID)
}

// CheckMoney checks that money adds up for every order of show showID that a provider
// took money for (DESIGN.md "money adds up"): captured less refunded equals the prices of
// its live seats while paid, 0 once it ended (store.MoneyMismatches, what reconciliation
// reports), and each order's refunds rows add up to its refund_seats rows.
func (e *TestEnv) CheckMoney(showID int64) {
	e.T.Helper()
	bad, err := store.MoneyMismatches(context.Background(), e.DB, showID)
	if err != nil {
		e.T.Fatal(err)
	}
	for _, m := range bad {
		e.T.Errorf("money: order %s (%s) keeps %d at the provider, its paid seats cost %d", m.OrderNo, m.Status, m.KeptMinor, m.SeatsMinor)
	}
	var split []string
	if err := e.DB.Select(&split, `SELECT r.refund_id FROM refunds r JOIN orders o ON o.id = r.order_id
		WHERE o.show_id = ? AND r.amount_minor <> (SELECT COALESCE(SUM(rs.amount_minor), 0) FROM refund_seats rs WHERE rs.refund_id = r.id)`, showID); err != nil {
		e.T.Fatal(err)
	}
	if len(split) > 0 {
		e.T.Errorf("money: refunds whose amount is not the sum of their seats: %v", split)
	}
}

// checkSeatIdentity checks invariant 12 for the env's show in MySQL: no live order seat
// outside the show's hall or blocked, and no two live order seats with one label.
func (e *TestEnv) checkSeatIdentity() {
	e.T.Helper()
	var outside, twice []string
	if err := e.DB.Select(&outside, `SELECT s.label FROM order_seats os JOIN seats s ON s.id = os.seat_id JOIN shows sh ON sh.id = os.show_id
		WHERE os.show_id = ? AND os.live = 1 AND (s.hall_id IS NULL OR s.hall_id <> sh.hall_id OR s.kind = 'blocked') ORDER BY s.label`, e.Show.ID); err != nil {
		e.T.Fatal(err)
	}
	if err := e.DB.Select(&twice, `SELECT s.label FROM order_seats os JOIN seats s ON s.id = os.seat_id
		WHERE os.show_id = ? AND os.live = 1 GROUP BY s.label HAVING COUNT(*) > 1 ORDER BY s.label`, e.Show.ID); err != nil {
		e.T.Fatal(err)
	}
	if len(outside) > 0 {
		e.T.Errorf("invariant 12: live order seats that are no sellable seats of the show's hall: %v", outside)
	}
	if len(twice) > 0 {
		e.T.Errorf("invariant 12: labels sold or held twice in one show: %v", twice)
	}
}

// CatalogWriter returns the catalog's write side over the env's stores, its seat maps
// through shows (whose time zone it takes), currency CNY and purchase limit 4.
func (e *TestEnv) CatalogWriter(shows *seats.Listing) *catalog.CatalogWriter {
	return catalog.NewCatalogWriter(e.DB, e.Catalog, shows, audit.NewAudit(e.DB, e.Clock), e.Clock,
		catalog.WriterConfig{Currency: "CNY", DefaultLimit: 4, Zone: shows.Zone()})
}
