package orders

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// ExpiryScheduler schedules the expiry of a pending order at its deadline (asynq in
// production). It is an optimisation: reconciliation expires what a lost task misses
// (invariant 8).
type ExpiryScheduler interface {
	ScheduleExpiry(ctx context.Context, orderNo string, at time.Time) error
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
	failHook func(stage string) error // tests act at "held" (before the commit) and "insert" (inside it)
	hallMaps HallMaps
	locks    *keyLocks
	best     seats.BestSnapshots // seat values best-available chooses from (best_snapshot.go)
	group    *groupCommit        // nil: each order commits alone (GroupCommit.MaxOrders 1)

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
		hallMaps: cfg.HallMaps, locks: newKeyLocks(seats.Redis(), seats.Prefix())}
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
// (waitingroom.Tokens): nil when token admits userID to showID at now. Errors:
// NOT_ADMITTED.
type Admission interface {
	Check(token string, userID, showID int64, now time.Time) error
}

// SetAdmission sets the waiting rooms' token check (API.md "Waiting room").
func (o *Orders) SetAdmission(a Admission) { o.admitted = a }

// SetFailHook makes the service fail at a named stage ("insert") when hook returns an
// error; tests use it to prove that a failure after the hold releases everything.
func (o *Orders) SetFailHook(hook func(stage string) error) { o.failHook = hook }

// CreateOrderRequest asks for seats of one show: either SeatIDs (chosen seats) or Zone
// with Quantity (best available, side by side in one row; Accessible asks for a block
// with a wheelchair space). ExpectedTotalMinor, when set, must equal the server's total.
// IdempotencyKey (1..64 printable ASCII, optional) makes a replay return the first order.
type CreateOrderRequest struct {
	UserID             int64
	ShowID             int64
	SeatIDs            []int64
	Zone               string
	Quantity           int
	Accessible         bool
	ExpectedTotalMinor *int64
	IdempotencyKey     string
	// AdmissionToken is the waiting room's token (header Admission-Token or the
	// browser's cookie), needed when the show's waiting room is on.
	AdmissionToken string

	offerNo  string        // CreateOffer: the order number, chosen before the order exists
	offerFor time.Duration // CreateOffer: how long the offer holds its seats
}

// hash identifies the request's content for Idempotency-Key comparison.
func (r *CreateOrderRequest) hash() [32]byte {
	var b strings.Builder
	fmt.Fprintf(&b, "show=%d;zone=%q;qty=%d;acc=%v;seats=", r.ShowID, r.Zone, r.Quantity, r.Accessible)
	for _, id := range r.SeatIDs {
		b.WriteString(strconv.FormatInt(id, 10) + ",")
	}
	if r.ExpectedTotalMinor != nil {
		fmt.Fprintf(&b, ";expected=%d", *r.ExpectedTotalMinor)
	}
	return sha256.Sum256([]byte(b.String()))
}

// MaxSeatsPerRequest bounds a request before the show's purchase limit is known.
const MaxSeatsPerRequest = 100

// validate checks the request's shape (INVALID_REQUEST).
func (r *CreateOrderRequest) validate() error {
	switch {
	case len(r.SeatIDs) > 0 && (r.Zone != "" || r.Quantity != 0):
		return services.Errorf(services.CodeInvalidRequest, "send either seat_ids or zone with quantity, not both")
	case len(r.SeatIDs) == 0 && r.Zone == "":
		return services.Errorf(services.CodeInvalidRequest, "seat_ids must list 1 or more seats (or send zone and quantity)")
	case len(r.SeatIDs) > MaxSeatsPerRequest:
		return services.Errorf(services.CodeInvalidRequest, "at most %d seats per order", MaxSeatsPerRequest)
	case len(r.SeatIDs) == 0 && (r.Quantity < 1 || r.Quantity > MaxSeatsPerRequest):
		return services.Errorf(services.CodeInvalidRequest, "quantity must be a whole number from 1 to %d", MaxSeatsPerRequest)
	}
	seen := make(map[int64]bool, len(r.SeatIDs))
	for _, id := range r.SeatIDs {
		if id <= 0 {
			return services.Errorf(services.CodeInvalidRequest, "seat id %d is not a positive integer", id)
		}
		if seen[id] {
			return services.Errorf(services.CodeInvalidRequest, "seat %d is listed twice", id)
		}
		seen[id] = true
	}
	if k := r.IdempotencyKey; k != "" {
		if len(k) > 64 {
			return services.Errorf(services.CodeInvalidRequest, "Idempotency-Key is longer than 64 characters")
		}
		for i := 0; i < len(k); i++ {
			if k[i] < 0x21 || k[i] > 0x7e {
				return services.Errorf(services.CodeInvalidRequest, "Idempotency-Key must be printable ASCII")
			}
		}
	}
	return nil
}

// Create runs the create pipeline (DESIGN.md, Order pipeline): validation, show on sale,
// the waiting room's admission token (when the show's room is on), hall membership, one
// pipelined read that refuses seats already taken (precheck.go), rate limits and the
// Idempotency-Key's lock (in parallel), one Lua hold, one MySQL transaction (holds
// released on any failure), then the expiry task. It returns the pending order; a
// replay of an Idempotency-Key returns the first order as it was created.
// Errors: INVALID_REQUEST, NOT_FOUND, NOT_ON_SALE, NOT_ADMITTED, SEAT_NOT_IN_SHOW, RATE_LIMITED,
// IDEMPOTENCY_MISMATCH, PRICE_CHANGED, SEAT_TAKEN, SOLD_OUT, NO_ADJACENT_SEATS,
// LIMIT_EXCEEDED, UNAVAILABLE. Every error leaves Redis and MySQL as they were.
func (o *Orders) Create(ctx context.Context, req CreateOrderRequest) (*services.Order, error) {
	start := time.Now()
	defer func() { o.metrics.CreateLatency.Observe(time.Since(start).Seconds()) }()
	if err := req.validate(); err != nil {
		return nil, err
	}
	show, err := o.catalog.CachedShow(ctx, req.ShowID)
	if err != nil {
		return nil, err
	}
	now := o.clock.Now()
	if !show.OnSaleAt(now) {
		return nil, notOnSale(show, now, o.zone)
	}
	if show.WaitingRoom { // before any rate-limit token or hold is spent
		if o.admitted == nil {
			return nil, &services.Error{Code: services.CodeNotAdmitted, Message: "this show's waiting room admits nobody here"}
		}
		if err := o.admitted.Check(req.AdmissionToken, req.UserID, show.ID, now); err != nil {
			return nil, err
		}
	}
	hall, err := o.catalog.Hall(ctx, show.HallID)
	if err != nil {
		return nil, err
	}
	if len(req.SeatIDs) > 0 {
		if err := checkSeatsInShow(show, hall, req.SeatIDs); err != nil {
			return nil, err
		}
		if err := seats.CheckCompanions(hall, req.SeatIDs); err != nil {
			return nil, err
		}
	} else if _, ok := show.ZonePrice(req.Zone); !ok {
		return nil, services.Errorf(services.CodeInvalidRequest, "zone %q is not a zone of this show", req.Zone)
	}
	pre, err := o.precheck(ctx, show, hall, &req)
	if err != nil {
		return nil, err
	}
	if pre.refusal != nil {
		if pre.unsure {
			return o.refusedUnlessReplay(ctx, req, pre.refusal)
		}
		return nil, pre.refusal
	}
	allow := func() error {
		err := o.limiter.AllowOrder(ctx, req.UserID, req.ShowID)
		if services.ErrorCode(err) == services.CodeRateLimited {
			o.metrics.RateLimited.WithLabelValues("order").Inc()
		}
		return err
	}
	if req.IdempotencyKey == "" {
		if err := allow(); err != nil {
			return nil, err
		}
		return o.hold(ctx, show, hall, req, now, nil)
	}
	if pre.seen {
		// a replay creates nothing, so it costs no rate-limit token; a key never seen
		// before (Redis remembers keys in use) costs no MySQL lookup either
		if prior, err := o.replay(ctx, req.UserID, req.IdempotencyKey, req.hash()); prior != nil {
			return prior, nil
		} else if err != nil && services.ErrorCode(err) != services.CodeIdempotencyMismatch {
			return nil, err
		}
		if err := allow(); err != nil {
			return nil, err
		}
		allow = nil
	}
	return o.withKey(ctx, req.UserID, req.IdempotencyKey, req.hash(), allow, func(claim *keyClaim) (*services.Order, error) {
		order, err := o.hold(ctx, show, hall, req, now, claim)
		if err != nil && (pre.unsure || services.ErrorCode(err) == services.CodeSeatTaken && o.seats.AnyHeldBy(ctx, show.ID, req.SeatIDs, req.UserID)) {
			// a retry whose key Redis forgot (a flush): its first order, in MySQL,
			// outranks the refusal (the seats are this buyer's own, the limit counts them)
			return o.refusedUnlessReplay(ctx, req, err)
		}
		return order, err
	})
}

// refusedUnlessReplay returns the first order of req's Idempotency-Key (or
// IDEMPOTENCY_MISMATCH) when MySQL has one, else refusal: a refusal (SEAT_TAKEN,
// SOLD_OUT, LIMIT_EXCEEDED, NO_ADJACENT_SEATS) of a keyed request that Redis could not
// tell from a replay (API.md: a replay returns the first answer for 24 h, and
// IDEMPOTENCY_MISMATCH outranks those refusals). Other errors, and a lookup that fails,
// return refusal as it is.
func (o *Orders) refusedUnlessReplay(ctx context.Context, req CreateOrderRequest, refusal error) (*services.Order, error) {
	switch services.ErrorCode(refusal) {
	case services.CodeSeatTaken, services.CodeSoldOut, services.CodeLimitExceeded, services.CodeNoAdjacentSeats:
	default:
		return nil, refusal
	}
	prior, err := o.replay(ctx, req.UserID, req.IdempotencyKey, req.hash())
	switch {
	case prior != nil:
		return prior, nil
	case services.ErrorCode(err) == services.CodeIdempotencyMismatch:
		return nil, err
	}
	return nil, refusal
}

// hold runs the pipeline from the purchase limit on: the Lua hold, the MySQL
// transaction, the expiry task. claim is the request's Idempotency-Key lock (nil
// without a key), given back with the order's batch once it committed.
func (o *Orders) hold(ctx context.Context, show *services.Show, hall *services.Hall, req CreateOrderRequest, now time.Time, claim *keyClaim) (*services.Order, error) {
	n := len(req.SeatIDs)
	if n == 0 {
		n = req.Quantity
	}
	if n > show.PurchaseLimit {
		return nil, services.Errorf(services.CodeLimitExceeded, "at most %d seats per person for this show", show.PurchaseLimit)
	}
	holding := o.group.startHold() // a batch gathering now may wait for this order
	defer holding.stop()
	holdFor, orderNo := o.holdFor, req.offerNo
	if req.offerFor > 0 {
		holdFor = req.offerFor
	}
	if orderNo == "" {
		orderNo = services.NewOrderNo(now)
	}
	deadline := now.Add(holdFor).Truncate(time.Second)
	if deadline.After(show.SaleClosesAt) {
		deadline = show.SaleClosesAt // nobody pays for a show whose sale has closed
	}
	order := &services.Order{OrderNo: orderNo, UserID: req.UserID, ShowID: show.ID, Status: services.OrderPending,
		Currency: show.Currency, CreatedAt: now, ExpiresAt: deadline}
	var err error
	if len(req.SeatIDs) > 0 {
		err = o.holdChosen(ctx, show, hall, order, req)
	} else {
		err = o.holdBestAvailable(ctx, show, hall, order, req)
	}
	if err != nil {
		if services.ErrorCode(err) == services.CodeUnavailable && len(order.Seats) > 0 {
			// the script may have run though its reply was lost: undo (owner-checked)
			o.releaseAfterFailure(order)
		}
		if seats.IsNotLoaded(err) {
			if gone := o.seatsLeftHall(ctx, show, order); gone != nil {
				return nil, gone
			}
		}
		return nil, err
	}
	if o.failHook != nil {
		if err := o.failHook("held"); err != nil {
			o.releaseAfterFailure(order)
			return nil, store.Unavailable("the database", err)
		}
	}
	if err := o.persistOrder(order, show.HallID, show.PurchaseLimit, req.IdempotencyKey, req.hash(), claim, req.offerNo != "", &holding); err != nil {
		o.releaseAfterFailure(order)
		if c := services.ErrorCode(err); c == services.CodeSeatNotInShow || c == services.CodePriceChanged {
			o.hallChanged(ctx, show.HallID)
		}
		if errors.Is(err, errKeyTaken) {
			// the key's first order exists though Redis had forgotten the key: replay it
			if prior, rerr := o.replay(ctx, req.UserID, req.IdempotencyKey, req.hash()); prior != nil || rerr != nil {
				return prior, rerr
			}
			return nil, store.Unavailable("the idempotency key", err)
		}
		if store.DuplicateOn(err, liveSeatKey) {
			o.metrics.HoldConflicts.Inc()
			taken := o.liveElsewhere(ctx, order)
			return nil, &services.Error{Code: services.CodeSeatTaken, Message: "already taken: " + strings.Join(taken, ", "), Seats: taken, Err: err}
		}
		var e *services.Error
		if errors.As(err, &e) {
			return nil, err
		}
		return nil, store.Unavailable("the database", err)
	}
	o.metrics.OrdersCreated.Inc()
	if o.expiry != nil {
		if err := o.expiry.ScheduleExpiry(ctx, order.OrderNo, order.ExpiresAt); err != nil {
			o.metrics.ExpiryEnqueueErrors.Inc()
			o.log.Warn("expiry task not enqueued; reconciliation will expire the order", "order_no", order.OrderNo, "err", err)
		}
	}
	return order, nil
}

// zoneHasKind reports whether the hall has a seat of that kind (a wheelchair space) in
// the zone.
func zoneHasKind(hall *services.Hall, zone, kind string) bool {
	for _, s := range hall.Seats {
		if s.ZoneCode == zone && s.Kind == kind {
			return true
		}
	}
	return false
}

// notOnSale explains why a show takes no orders, with times in the cinema's zone.
func notOnSale(show *services.Show, now time.Time, zone *time.Location) error {
	const layout = "Mon 2 Jan 15:04 MST"
	switch st := show.StatusAt(now); {
	case (st == services.ShowScheduled || st == services.ShowOnSale) && now.Before(show.SaleOpensAt):
		return services.Errorf(services.CodeNotOnSale, "sale opens %s", show.SaleOpensAt.In(zone).Format(layout))
	case st == services.ShowClosed && !now.Before(show.SaleClosesAt):
		return services.Errorf(services.CodeNotOnSale, "sale closed %s", show.SaleClosesAt.In(zone).Format(layout))
	default:
		return services.Errorf(services.CodeNotOnSale, "this show is not on sale (it is %s)", strings.ReplaceAll(st, "_", " "))
	}
}

// checkSeatsInShow refuses seats that are not sellable seats of the show's hall, or of a
// zone the show has no price for (SEAT_NOT_IN_SHOW naming them).
func checkSeatsInShow(show *services.Show, hall *services.Hall, ids []int64) error {
	var bad []string
	for _, id := range ids {
		s, ok := hall.Seat(id)
		if !ok {
			bad = append(bad, strconv.FormatInt(id, 10))
			continue
		}
		if _, priced := show.ZonePrice(s.ZoneCode); !s.Sellable() || !priced {
			bad = append(bad, s.Label)
		}
	}
	if len(bad) > 0 {
		return &services.Error{Code: services.CodeSeatNotInShow, Message: "not a sellable seat of this show: " + strings.Join(bad, ", "), Seats: bad}
	}
	return nil
}

// price fills order.Seats and TotalMinor from the show's zone prices (invariant 6) and
// compares a client's expected total.
func price(show *services.Show, hall *services.Hall, order *services.Order, ids []int64, expected *int64) error {
	order.Seats = order.Seats[:0]
	order.TotalMinor = 0
	for _, id := range ids {
		s, _ := hall.Seat(id)
		p, _ := show.ZonePrice(s.ZoneCode)
		order.Seats = append(order.Seats, services.OrderSeat{SeatID: id, Label: s.Label, ZoneCode: s.ZoneCode, PriceMinor: p})
		order.TotalMinor += p
	}
	if expected != nil && *expected != order.TotalMinor {
		return services.Errorf(services.CodePriceChanged, "the total is %d, not %d", order.TotalMinor, *expected)
	}
	return nil
}

// refsOf returns the seat store's references to the order's seats.
func refsOf(order *services.Order) []seats.SeatRef {
	refs := make([]seats.SeatRef, len(order.Seats))
	for i, s := range order.Seats {
		refs[i] = seats.SeatRef{ID: s.SeatID, Zone: s.ZoneCode}
	}
	return refs
}

// Labels returns the labels of seats ("C7"), in their order.
func Labels(seats []services.OrderSeat) []string {
	out := make([]string, len(seats))
	for i, s := range seats {
		out[i] = s.Label
	}
	return out
}

// holdChosen holds the seats the buyer chose, all or none, in one Lua call, which also
// applies the show's single-seat rule to the seat values it holds over (seats/strand.go).
func (o *Orders) holdChosen(ctx context.Context, show *services.Show, hall *services.Hall, order *services.Order, req CreateOrderRequest) error {
	if err := price(show, hall, order, req.SeatIDs, req.ExpectedTotalMinor); err != nil {
		return err
	}
	rule, rows := seats.RuleArgs(hall, show.SingleSeatRule, req.SeatIDs)
	out, err := o.seats.HoldUnderRule(ctx, show.ID, order.OrderNo, req.UserID, show.PurchaseLimit, refsOf(order), rule, rows, holdFlags(req))
	if err != nil {
		return err
	}
	order.HoldMark = out.Mark
	order.Stranded = labelsOf(hall, out.Stranded)
	return o.holdError(show, hall, out)
}

// holdFlags says who a hold is for, as the waiting list's gate sees it: a waiting
// list's offer, or the public (the gate applies to every seat of the batch).
func holdFlags(req CreateOrderRequest) string {
	if req.offerNo != "" {
		return seats.HoldOffer
	}
	return seats.HoldPublic
}

// labelsOf returns the labels of seat ids in the hall ("F8"), in their order.
func labelsOf(hall *services.Hall, ids []int64) []string {
	if len(ids) == 0 {
		return nil
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strconv.FormatInt(id, 10)
		if s, ok := hall.Seat(id); ok {
			out[i] = s.Label
		}
	}
	return out
}

// holdError turns a refused hold into the contract's error.
func (o *Orders) holdError(show *services.Show, hall *services.Hall, out seats.HoldOutcome) error {
	switch {
	case out.OK():
		return nil
	case len(out.Taken) > 0:
		o.metrics.HoldConflicts.Inc()
		names := make([]string, len(out.Taken))
		for i, id := range out.Taken {
			names[i] = strconv.FormatInt(id, 10)
			if s, ok := hall.Seat(id); ok {
				names[i] = s.Label
			}
		}
		sort.Strings(names)
		return &services.Error{Code: services.CodeSeatTaken, Message: "already taken: " + strings.Join(names, ", "), Seats: names}
	case out.Gap:
		names := labelsOf(hall, out.Stranded)
		return &services.Error{Code: services.CodeSingleSeatGap, Seats: names, Message: "these seats would leave " +
			strings.Join(names, ", ") + " as a single empty seat; other seats in the same row leave none"}
	case out.Waitlist != "":
		return services.Errorf(services.CodeSoldOut, "zone %s is sold out: the seats that came back are offered to its waiting list first", out.Waitlist)
	case out.Limit:
		return services.Errorf(services.CodeLimitExceeded, "you hold or own %d seats for this show; the limit is %d per person", out.LimitNow, show.PurchaseLimit)
	default:
		return services.Errorf(services.CodeSoldOut, "zone %s is sold out", out.SoldOut)
	}
}

// holdBestAvailable picks a block of Quantity adjacent seats in the zone from the
// best-available snapshot and holds it, choosing again when another order took a seat of
// it meanwhile.
func (o *Orders) holdBestAvailable(ctx context.Context, show *services.Show, hall *services.Hall, order *services.Order, req CreateOrderRequest) error {
	snap := o.best.Of(show.ID)
	o.seats.Follow(show.ID) // the snapshot hears other processes' changes (seats.SeatEvents)
	read := func(ctx context.Context) (map[int64]string, error) { return o.seats.States(ctx, show.ID) }
	fresh := false
	// a plain pick is held only if, on the values it holds over, it strands nothing its
	// row could have spared (enforce); an accessible block is held as it is (warn)
	rule := seats.RuleEnforce
	if req.Accessible {
		rule = seats.RuleWarn
	}
	for attempt := 0; attempt < 4; attempt++ {
		free := 0
		ids, err := snap.Choose(ctx, fresh, hall, read, func(freeSeats []bool, bits seats.FreeBits) []int64 {
			var p seats.Pick
			if req.Accessible {
				p = seats.ChooseBlock(hall, freeSeats, req.Zone, req.Quantity, true, false)
			} else {
				p = seats.ChoosePlain(hall, freeSeats, bits, req.Zone, req.Quantity, false)
			}
			free = p.Free
			return p.IDs
		})
		if err != nil {
			return err
		}
		if ids == nil {
			if !fresh {
				fresh = true // the snapshot may be stale or over-marked: decide on the map as it is
				continue
			}
			if req.Accessible && !zoneHasKind(hall, req.Zone, services.KindWheelchair) {
				return services.Errorf(services.CodeNoAdjacentSeats, "zone %s has no wheelchair spaces", req.Zone)
			}
			if free < req.Quantity {
				return services.Errorf(services.CodeSoldOut, "zone %s has %d seats left", req.Zone, free)
			}
			return services.Errorf(services.CodeNoAdjacentSeats, "no %d seats side by side are left in zone %s", req.Quantity, req.Zone)
		}
		if err := price(show, hall, order, ids, req.ExpectedTotalMinor); err != nil {
			return err
		}
		ruleName, rows := seats.RuleArgs(hall, rule, ids)
		out, err := o.seats.HoldUnderRule(ctx, show.ID, order.OrderNo, req.UserID, show.PurchaseLimit, refsOf(order), ruleName, rows, holdFlags(req))
		if err != nil {
			return err
		}
		if out.Gap {
			// the seats beside the block changed since the snapshot: choose again on a
			// fresh read
			fresh = true
			continue
		}
		if len(out.Taken) == 0 {
			order.HoldMark = out.Mark
			order.Stranded = labelsOf(hall, out.Stranded)
			return o.holdError(show, hall, out)
		}
		// another buyer took one of these seats between the read and the hold: note it
		// and look again, on a fresh read the second time round
		snap.Mark(out.Taken)
		fresh = attempt >= 1
	}
	o.metrics.HoldConflicts.Inc()
	return services.Errorf(services.CodeNoAdjacentSeats, "seats are selling fast; no block could be held, try again")
}

// releaseAfterFailure frees the holds of an order that was never committed.
func (o *Orders) releaseAfterFailure(order *services.Order) {
	ctx, cancel := context.WithTimeout(context.Background(), store.RedisTimeout)
	defer cancel()
	if _, err := o.seats.Release(ctx, order.ShowID, order.OrderNo, refsOf(order), false); err != nil {
		o.log.Error("holds of a failed order not released; reconciliation will free them", "order_no", order.OrderNo, "err", err)
	}
}

// liveSeatKey is the unique key of a seat's one live order (invariant 1): the only
// duplicate that means SEAT_TAKEN.
const liveSeatKey = "uq_order_seats_live"

// liveElsewhere names the seats of order that MySQL records in another live order (the
// unique key refused the insert: Redis had lost a hold). All of the order's seats when
// the lookup fails.
func (o *Orders) liveElsewhere(ctx context.Context, order *services.Order) []string {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	live, err := store.LiveSeatIDsAmong(ctx, o.db, order.ShowID, seatIDsOf(order))
	if err != nil || len(live) == 0 {
		return Labels(order.Seats)
	}
	return labelsAmong(order, live)
}

// IdempotencyTTL is how long an Idempotency-Key is honoured.
const IdempotencyTTL = 24 * time.Hour

// replay returns the order first created with this user's key and the same request, or
// IDEMPOTENCY_MISMATCH when the key was used with another request; nil, nil when the key
// is unknown (or older than IdempotencyTTL).
func (o *Orders) replay(ctx context.Context, userID int64, key string, hash [32]byte) (*services.Order, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	row, err := store.IdempotencyKeySince(ctx, o.db, userID, key, o.clock.Now().Add(-IdempotencyTTL))
	if err != nil {
		if store.IsNoRows(err) {
			return nil, nil
		}
		return nil, store.Unavailable("the database", err)
	}
	if string(row.Hash) != string(hash[:]) {
		return nil, services.Errorf(services.CodeIdempotencyMismatch, "this Idempotency-Key was used with a different request")
	}
	order, err := o.orderByID(ctx, row.OrderID)
	if err != nil {
		return nil, err
	}
	// the first answer described the order as created
	order.Status, order.PaidAt, order.CancelledAt, order.CancelReason = services.OrderPending, nil, nil, nil
	return order, nil
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

// IdempotencyKeyNames returns the Redis keys of a buyer's Idempotency-Key: the lock held
// while its request runs and the record that it was seen (DESIGN.md "Redis key layout").
func (o *Orders) IdempotencyKeyNames(userID int64, key string) [2]string {
	return [2]string{o.locks.name(userID, key), o.locks.seenName(userID, key)}
}
