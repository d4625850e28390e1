package orders

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"seatflow/services"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// The create pipeline (DESIGN.md, "The order pipeline"), top to bottom: Create lists its
// steps in the order they run, and each step is a function below it or in the file its
// comment names: the one call of lua/order.lua (the key's marker, the precheck, the rate
// limits, the key's lock and the hold) in precheck.go and hold.go, the Idempotency-Key's
// replay and give-back in idempotency.go, the MySQL transaction in commit.go (batched
// by group_commit.go).

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
	// Tickets gives chosen seats their ticket type (seats not named are adult);
	// TicketCounts asks best available for so many seats of each type, adding up to
	// Quantity (none: all adult). Each seat costs its type's price in its zone.
	Tickets      map[int64]string
	TicketCounts map[string]int
	// SeatTicketCounts (the booking page) asks for so many of the chosen seats of each
	// type other than adult; they are dealt to the chosen seats, in order, whose zone
	// sells the type (dealTicketTypes), the rest adult. Not with Tickets.
	SeatTicketCounts map[string]int
	// AdmissionToken is the waiting room's token (header Admission-Token or the
	// browser's cookie), needed when the show's waiting room is on.
	AdmissionToken string
	// Voucher is the promo code the buyer typed ("": none), matched without regard to
	// case: each seat it covers costs services.Voucher.Price of its price.
	Voucher string
	// Email and Lang are the buyer's address and e-mail language as the caller's
	// session read them (services.User). With both, the order's e-mail is queued with
	// them and its batch reads no users row for it (store.QueueMail's plain insert);
	// empty, the outbox copies them from users in the batch's transaction.
	Email, Lang string

	offerNo  string        // CreateOffer: the order number, chosen before the order exists
	offerFor time.Duration // CreateOffer: how long the offer holds its seats
	counter  *CounterSale  // SellAtCounter: the counter sale this create is the hold and commit of
}

// MaxSeatsPerRequest bounds a request before the show's purchase limit is known.
const MaxSeatsPerRequest = 100

// creation is one create on its way through the steps: the request and what the steps
// before learned (the show, its hall, and now, the app's clock when the show was read).
type creation struct {
	req  CreateOrderRequest
	show *services.Show
	hall *services.Hall
	now  time.Time
	// voucher is the request's voucher when an order may use it (useVoucher), with its
	// cap in this show; voucherErr why it may not (answered after the rate limits)
	voucher    *services.Voucher
	voucherCap int64
	voucherErr error
}

// Create runs the create pipeline (DESIGN.md, Order pipeline), one named step after
// another: validate (the request's shape), showOnSale, admit (the waiting room's
// admission token, when the show's room is on), inHall (hall membership), useVoucher
// (the voucher code, from a 1 s cache: vouchers.go), then run: one
// call of lua/order.lua that checks the Idempotency-Key's marker, refuses seats already
// taken (precheck), counts the rate limits, takes the key's lock and holds the seats,
// and under it place: the commit (one MySQL transaction through the group commit,
// commit.go; holds released on any failure), then answer (the expiry task). It returns
// the pending order; a replay of an Idempotency-Key returns the first order as it was
// created.
// Errors: INVALID_REQUEST, NOT_FOUND, NOT_ON_SALE, NOT_ADMITTED, SEAT_NOT_IN_SHOW, RATE_LIMITED,
// IDEMPOTENCY_MISMATCH, PRICE_CHANGED, SEAT_TAKEN, SOLD_OUT, NO_ADJACENT_SEATS,
// LIMIT_EXCEEDED, VOUCHER_INVALID, UNAVAILABLE. Every error leaves Redis and MySQL as they were, but for
// the rate-limit tokens a refusal after the limits spent (as when they were separate).
func (o *Orders) Create(ctx context.Context, req CreateOrderRequest) (*services.Order, error) {
	start := time.Now()
	defer func() { o.metrics.CreateLatency.Observe(time.Since(start).Seconds()) }()
	if err := req.validate(); err != nil {
		return nil, err
	}
	c, err := o.showOnSale(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := o.admit(c); err != nil {
		// a replay answers first: its order was made when it needed no admission, or
		// with one that has ended since (API.md: a replay returns the first answer)
		return o.refusedUnlessReplay(ctx, c.req, err)
	}
	if err := o.inHall(ctx, c); err != nil {
		return nil, err
	}
	if err := o.useVoucher(ctx, c); err != nil {
		return nil, err
	}
	return o.run(ctx, c)
}

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
	if err := r.checkTicketShape(); err != nil {
		return err
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
	b.WriteString(r.ticketHash())
	if r.Voucher != "" {
		code, _ := services.CanonicalVoucherCode(r.Voucher)
		b.WriteString(";voucher=" + code)
	}
	return sha256.Sum256([]byte(b.String()))
}

// showOnSale reads the request's show (the catalog's cache) and the app's clock, and
// refuses a show that takes no orders now. Errors: NOT_FOUND, NOT_ON_SALE, UNAVAILABLE.
func (o *Orders) showOnSale(ctx context.Context, req CreateOrderRequest) (*creation, error) {
	show, err := o.catalog.CachedShow(ctx, req.ShowID)
	if err != nil {
		return nil, err
	}
	now := o.clock.Now()
	if !show.OnSaleAt(now) {
		return nil, notOnSale(show, now, o.zone)
	}
	return &creation{req: req, show: show, now: now}, nil
}

// admit checks the waiting room's admission token when the show's room is on, before
// any rate-limit token or hold is spent. Errors: NOT_ADMITTED.
func (o *Orders) admit(c *creation) error {
	return o.CheckAdmission(c.show, c.req.UserID, c.req.AdmissionToken, c.now)
}

// CheckAdmission is nil when show's waiting room is off, or when token (the waiting
// room's admission token) admits userID to show in its room's current epoch at now:
// the order path's check, which joining the show's waiting list shares. Errors:
// NOT_ADMITTED.
func (o *Orders) CheckAdmission(show *services.Show, userID int64, token string, now time.Time) error {
	if !show.WaitingRoom {
		return nil
	}
	if o.admitted == nil {
		return &services.Error{Code: services.CodeNotAdmitted, Message: "this show's waiting room admits nobody here"}
	}
	return o.admitted.Check(token, userID, show.ID, show.RoomEpoch, now)
}

// inHall reads the show's hall (cached) and refuses chosen seats that are not sellable
// seats of the show or break the companion rule, or a zone the show has no price for,
// and ticket types the show does not sell there (ticket_types.go).
// Errors: SEAT_NOT_IN_SHOW, INVALID_REQUEST, TICKET_TYPE_NOT_OFFERED, NOT_FOUND, UNAVAILABLE.
func (o *Orders) inHall(ctx context.Context, c *creation) error {
	hall, err := o.catalog.Hall(ctx, c.show.HallID)
	if err != nil {
		return err
	}
	c.hall = hall
	if len(c.req.SeatIDs) > 0 {
		if err := checkSeatsInShow(c.show, hall, c.req.SeatIDs); err != nil {
			return err
		}
		if err := seats.CheckCompanions(hall, c.req.SeatIDs); err != nil {
			return err
		}
		return o.checkTicketTypes(ctx, c)
	}
	if _, ok := c.show.ZonePrice(c.req.Zone); !ok {
		return services.Errorf(services.CodeInvalidRequest, "zone %q is not a zone of this show", c.req.Zone)
	}
	return o.checkTicketTypes(ctx, c)
}

// run calls place with a gate (precheck.go) until a call decides. Without a key that is
// the first call. A key whose marker Redis has (SEEN) may be a replay: MySQL is asked,
// a replay returns the first order and costs no rate-limit token, a key used with
// another request is IDEMPOTENCY_MISMATCH once the rate limits allowed it (429 comes
// first, API.md), and a key MySQL does not know goes on without the marker check or the
// precheck, as the first request of the key would. A lock another request of the key
// holds (LOCKED) is waited for, polling every 20 ms with the limits already counted,
// until it is free or seen, or MySQL has the key's order (a committed order's lock is
// left to expire): that order is replayed, or IDEMPOTENCY_MISMATCH answered. A refusal
// that Redis could not tell from a replay (a key Redis may have forgotten, or seats the
// buyer holds already) returns the key's first order when MySQL has one
// (refusedUnlessReplay, idempotency.go). Errors: RATE_LIMITED, IDEMPOTENCY_MISMATCH,
// UNAVAILABLE and those of place.
func (o *Orders) run(ctx context.Context, c *creation) (*services.Order, error) {
	req := c.req
	g := newGate(req)
	deadline := time.Now().Add(idemLockTTL + time.Second)
	for {
		order, err := o.place(ctx, c, g)
		var stop *gateStop
		if !errors.As(err, &stop) {
			if err != nil && o.unsure(g, err) {
				return o.refusedUnlessReplay(ctx, req, err)
			}
			return order, err
		}
		switch stop.phase {
		case "SEEN":
			prior, err := o.replay(ctx, req.UserID, req.IdempotencyKey, req.hash())
			if prior != nil {
				return prior, nil
			} else if err != nil && services.ErrorCode(err) != services.CodeIdempotencyMismatch {
				return nil, err
			}
			g.seen, g.precheck, g.marked = false, false, err == nil
			if err != nil {
				return nil, o.refuseAfterLimits(ctx, c, g, &services.Order{}, err, "l", "")
			}
		case "LOCKED":
			g.seen = true
			// the key's first request may have committed: its lock is then left to
			// expire (keepCommitted), and MySQL has the order to replay
			if prior, err := o.replay(ctx, req.UserID, req.IdempotencyKey, req.hash()); prior != nil || err != nil {
				return prior, err
			}
			if time.Now().After(deadline) {
				return nil, store.Unavailable("the idempotency lock", context.DeadlineExceeded)
			}
			select {
			case <-ctx.Done():
				return nil, store.Unavailable("the idempotency lock", ctx.Err())
			case <-time.After(20 * time.Millisecond):
			}
		default:
			return nil, store.Unavailable("the seat cache", stop)
		}
	}
}

// place spends seats under g: the hold (hold.go: one call of lua/order.lua, which also
// takes the key's lock with it), the order's commit through the group commit
// (commit.go), then the answer. The key's claim is kept once its order committed (the
// lock left to expire), else given back here (a first-time key forgotten). A claim of a
// key Redis had a marker of looks for a replay first, in MySQL, under the lock. Errors:
// a *gateStop (SEEN, LOCKED) and those of hold and commit; every error leaves Redis and
// MySQL as they were but for spent rate-limit tokens.
func (o *Orders) place(ctx context.Context, c *creation, g *gate) (_ *services.Order, err error) {
	req := c.req
	holding := o.group.startHold() // a batch gathering now may wait for this order
	defer holding.stop()
	// counted in flight from before its hold until its outcome, by its order number's
	// time: reconciliation spares its holds while an instance heartbeat says so
	ms := c.now.UnixMilli()
	if t, ok := services.OrderNoTime(req.offerNo); ok && t.UnixMilli() < ms {
		ms = t.UnixMilli()
	}
	defer store.CreatesInFlight.Begin(ms)()
	order, err := o.hold(ctx, c, g)
	if err != nil {
		if g.keyed && services.ErrorCode(err) == services.CodeUnavailable {
			// the script may have claimed the key though its reply was lost: only this
			// create's token frees the lock or drops a marker it wrote
			o.locks.giveBack(c.show.ID, req.UserID, req.IdempotencyKey, keyClaim{token: g.token}, dropMarker)
		}
		return nil, err
	}
	var claim *keyClaim
	if g.keyed {
		claim = &keyClaim{first: g.first, token: g.token}
		defer func() {
			if !claim.committed {
				marker := keepMarker
				if err != nil {
					marker = claim.markerOnFailure()
				}
				o.locks.giveBack(c.show.ID, req.UserID, req.IdempotencyKey, *claim, marker)
			}
		}()
		if !claim.first {
			if prior, err := o.replay(ctx, req.UserID, req.IdempotencyKey, req.hash()); prior != nil || err != nil {
				o.releaseAfterFailure(order)
				return prior, err
			}
		}
	}
	if err := o.commit(c, order, claim, &holding); err != nil {
		return o.commitFailed(ctx, c, order, err)
	}
	return o.answer(ctx, order), nil
}

// withinPurchaseLimit refuses a request for more seats than the show's purchase limit
// (LIMIT_EXCEEDED, after the rate limits: refuseAfterLimits); the hold script counts the
// buyer's other seats.
func (c *creation) withinPurchaseLimit() error {
	n := len(c.req.SeatIDs)
	if n == 0 {
		n = c.req.Quantity
	}
	if n > c.show.PurchaseLimit {
		return services.Errorf(services.CodeLimitExceeded, "at most %d seats per person for this show", c.show.PurchaseLimit)
	}
	return nil
}

// answer counts the committed order; its batch scheduled its expiry already
// (scheduleExpiries).
func (o *Orders) answer(_ context.Context, order *services.Order) *services.Order {
	o.metrics.OrdersCreated.Inc()
	return order
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
