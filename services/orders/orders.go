package orders

import (
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/catalog"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// ExpiryScheduler schedules the expiry of pending orders at their deadline (asynq in
// production): one task per committed batch and deadline, not one per order. It is an
// optimisation: reconciliation expires what a lost task misses (invariant 8).
type ExpiryScheduler interface {
	// ScheduleExpiries schedules one task that expires orderNos (orders of one committed
	// batch whose deadline is at, UTC) at at; orders paid or cancelled by then are left.
	ScheduleExpiries(ctx context.Context, at time.Time, orderNos []string) error
	// CancelExpiry deletes the order's task; a task that is already gone is not an error.
	CancelExpiry(ctx context.Context, orderNo string) error
}

// Orders runs the order pipeline (DESIGN.md "The order pipeline"): create (hold in Redis, then one MySQL
// transaction), read, cancel, expire and the paid transition.
type Orders struct {
	db       *sqlx.DB
	catalog  *catalog.Catalog
	seats    *seats.SeatStore
	limiter  *RateLimiter
	clock    services.Clock
	metrics  *services.Metrics
	expiry   ExpiryScheduler
	admitted Admission // the waiting rooms' token check; nil refuses every order of a show whose room is on
	holdFor  time.Duration
	zone     *time.Location
	log      *slog.Logger
	failHook func(stage string) error // tests act at "held" (before the commit), "insert" (inside it) and "exchanged"
	hallMaps HallMaps
	locks    *keyLocks
	best     seats.BestSnapshots                    // seat values best-available chooses from (best_snapshot.go)
	group    *groupCommit                           // nil: each order commits alone (GroupCommit.MaxOrders 1)
	vouchers *store.TTLCache[string, cachedVoucher] // by canonical code (vouchers.go)
	// ticketRand is what a paid order's ticket code is drawn from (crypto/rand)
	ticketRand io.Reader
	audit      *audit.Audit // the buyer's exchanges are audited (exchange.go)

	idStepMu    sync.Mutex // guards idStepVal, read from the database once (AutoIncrementStep)
	idStepKnown bool
	idStepVal   int64
}

// OrdersConfig holds what Orders needs besides its stores. HoldFor is how long a
// pending order keeps its seats before it expires.
type OrdersConfig struct {
	HoldFor time.Duration
	Metrics *services.Metrics
	Expiry  ExpiryScheduler
	Logger  *slog.Logger
	Zone    *time.Location // the cinema's time zone, for times in messages
	// HallMaps refreshes a hall's seat maps when a commit finds a seat changed by a hall
	// edit (nil: reconciliation does it)
	HallMaps HallMaps
	// GroupCommit sizes the batches created orders commit in (zero value: the defaults)
	GroupCommit GroupCommit
}

// NewOrders wires the order service.
func NewOrders(db *sqlx.DB, catalog *catalog.Catalog, seats *seats.SeatStore, limiter *RateLimiter, clock services.Clock, cfg OrdersConfig) *Orders {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Metrics == nil {
		cfg.Metrics = services.NewMetrics()
	}
	if cfg.Zone == nil {
		cfg.Zone = time.UTC
	}
	if cfg.HoldFor <= 0 {
		cfg.HoldFor = 15 * time.Minute
	}
	o := &Orders{db: db, catalog: catalog, seats: seats, limiter: limiter, clock: clock,
		metrics: cfg.Metrics, expiry: cfg.Expiry, holdFor: cfg.HoldFor, zone: cfg.Zone, log: cfg.Logger,
		hallMaps: cfg.HallMaps, locks: newKeyLocks(seats.Redis(), seats.Prefix()), ticketRand: rand.Reader,
		audit: audit.NewAudit(db, clock)}
	o.vouchers = store.NewTTLCache(VoucherCacheTTL, o.loadVoucher)
	if cfg.GroupCommit.MaxOrders != 1 {
		o.group = newGroupCommit(cfg.GroupCommit, o.persistBatches)
	}
	return o
}

// SeatsChanged tells best-available of a published seat change (SeatEvents.OnChange).
func (o *Orders) SeatsChanged(c seats.SeatChange) { o.best.Apply(c) }

// HoldFor is how long a new order holds its seats waiting for payment.
func (o *Orders) HoldFor() time.Duration { return o.holdFor }

// SetExpiry replaces the expiry scheduler; tests lose or fail expiry tasks with it.
func (o *Orders) SetExpiry(e ExpiryScheduler) { o.expiry = e }

// Admission checks the admission token of an order for a show whose waiting room is on
// (waitingroom.Tokens): nil when token admits userID to showID in the room's epoch
// roomEpoch (services.Show.RoomEpoch) at now. Errors: NOT_ADMITTED.
type Admission interface {
	Check(token string, userID, showID int64, roomEpoch int, now time.Time) error
}

// SetAdmission sets the waiting rooms' token check (API.md "Waiting room").
func (o *Orders) SetAdmission(a Admission) { o.admitted = a }

// SetFailHook makes the service fail at a named stage ("insert") when hook returns an
// error; tests use it to prove that a failure after the hold releases everything.
func (o *Orders) SetFailHook(hook func(stage string) error) { o.failHook = hook }

// Labels returns the labels of seats ("C7"), in their order.
func Labels(seats []services.OrderSeat) []string {
	out := make([]string, len(seats))
	for i, s := range seats {
		out[i] = s.Label
	}
	return out
}

// Catalog returns the catalog the orders service reads shows and halls from.
func (o *Orders) Catalog() *catalog.Catalog { return o.catalog }

// Seats returns the seat store the orders service holds and releases seats in.
func (o *Orders) Seats() *seats.SeatStore { return o.seats }

// Clock returns the clock the orders service decides deadlines by.
func (o *Orders) Clock() services.Clock { return o.clock }

// Log returns the logger of the orders service.
func (o *Orders) Log() *slog.Logger { return o.log }

// Metrics returns the Prometheus collectors the orders service counts into.
func (o *Orders) Metrics() *services.Metrics { return o.metrics }

// SetLogger replaces the logger of the orders service (tests quieten or capture it).
func (o *Orders) SetLogger(l *slog.Logger) { o.log = l }

// IdempotencyKeyNames returns the Redis keys of a buyer's Idempotency-Key for a show: the
// lock held while its request runs and the record that it was seen, both in the show's
// hash slot (DESIGN.md "Redis key layout").
func (o *Orders) IdempotencyKeyNames(showID, userID int64, key string) [2]string {
	return [2]string{o.locks.name(showID, userID, key), o.locks.seenName(showID, userID, key)}
}

// IdempotencyEpochName returns the Redis key holding since when Redis keeps the show's
// Idempotency-Key markers (UTC seconds; see markersYoung).
func (o *Orders) IdempotencyEpochName(showID int64) string { return o.locks.epochName(showID) }
