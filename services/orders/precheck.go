package orders

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"seatflow/services"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// gate is what lua/order.lua does before its hold, for one create: the create's steps
// (create.go, run) change it between calls, and each call of the script records what
// it learned here. A create's whole Redis path is one call when nothing is in its way.
type gate struct {
	keyed    bool   // the request has an Idempotency-Key
	seen     bool   // answer SEEN when the key's marker exists (MySQL may hold a replay)
	precheck bool   // refuse chosen seats others hold or own before the rate limits
	counted  bool   // the rate limits counted this create already
	stop     string // "l": stop after the rate limits; "o": the same, over the purchase limit
	token    string // the key's lock token of this create

	unmarked bool   // the first call found no marker of the key
	marked   bool   // a call found the key's marker while MySQL had no order of it yet
	epoch    string // the show's marker epoch as the last call read it ("" missing)
	own      bool   // a requested seat is the buyer's already (the last call)
	first    bool   // the claim took a key without a marker
}

// newGate is the first call's gate for req: every step, the seen check with a key.
func newGate(req CreateOrderRequest) *gate {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	keyed := req.IdempotencyKey != ""
	return &gate{keyed: keyed, seen: keyed, precheck: true, token: hex.EncodeToString(b)}
}

// gateStop is a call of the order script that ended before its hold: SEEN, LOCKED or
// LIMITS (create.go decides what comes next; the other phases are errors already).
type gateStop struct{ phase string }

func (s *gateStop) Error() string { return "order script stopped at " + s.phase }

// orderArgs is lua/order.lua's ARGV[1] for g: its flags, the order rate limits
// (RateLimiter.orderLimits), the key's lock token and times, the zone and quantity
// of best available's precheck (zone "" when none), and the order's voucher with the
// seats it covers and its cap in the show (none without a voucher).
func (o *Orders) orderArgs(g *gate, zone string, quantity int, order *services.Order, voucherCap int64) string {
	flags := g.stop
	for _, f := range []struct {
		on bool
		c  string
	}{{g.keyed, "k"}, {g.seen, "s"}, {g.precheck, "p"}, {g.counted, "c"}} {
		if f.on {
			flags += f.c
		}
	}
	q := ""
	if zone != "" {
		q = strconv.Itoa(quantity)
	}
	voucher, covered, limit := "", "", ""
	if order.VoucherID != nil {
		voucher = strconv.FormatInt(*order.VoucherID, 10)
		covered, limit = strconv.FormatInt(voucherSeats(order), 10), strconv.FormatInt(voucherCap, 10)
	}
	return strings.Join([]string{flags, o.limiter.orderLimits(), g.token,
		strconv.FormatInt(idemLockTTL.Milliseconds(), 10), strconv.FormatInt(int64(seenTTL/time.Second), 10), zone, q,
		voucher, covered, limit}, "|")
}

// runOrder runs lua/order.lua once for order's seats (refs, with the single-seat rule
// and rows of seats.RuleArgs; none for a gate that stops after the rate limits) under g,
// and records in g what it learned. A SEEN, LOCKED or LIMITS answer is a *gateStop; a
// refusal before the rate limits (PRE) is SEAT_TAKEN or SOLD_OUT; RATE is RATE_LIMITED
// (retry_after_s: the wait rounded up, at least 1 s, as before). The first keyed call on
// a show whose marker epoch is missing (a flush, a new Redis) sets it (markersYoung).
// Errors: those, UNAVAILABLE, INVALID_REQUEST.
func (o *Orders) runOrder(ctx context.Context, c *creation, g *gate, order *services.Order, rule string, rows []string, zone string, quantity int) (seats.HoldOutcome, error) {
	req := c.req
	keys := []string{
		o.seats.ShowKey(c.show.ID, "rl:user:"+strconv.FormatInt(req.UserID, 10)), o.seats.ShowKey(c.show.ID, "rl:show"),
		o.locks.name(c.show.ID, req.UserID, req.IdempotencyKey), o.locks.seenName(c.show.ID, req.UserID, req.IdempotencyKey),
		o.locks.epochName(c.show.ID), o.seats.VouchersKey(c.show.ID),
	}
	r, err := o.seats.HoldOrder(ctx, c.show.ID, order.OrderNo, req.UserID, c.show.PurchaseLimit, refsOf(order), rule, rows,
		holdFlags(req), seats.OrderGate{Keys: keys, Args: o.orderArgs(g, zone, quantity, order, c.voucherCap)})
	if err != nil {
		return seats.HoldOutcome{}, err
	}
	if g.seen && r.Phase != "SEEN" && r.Phase != "LOCKED" {
		g.unmarked = true
	}
	g.epoch, g.own, g.first = r.Epoch, r.Own, r.First
	if g.keyed && r.Epoch == "" {
		g.epoch = strconv.FormatInt(o.setEpoch(ctx, c.show.ID), 10)
	}
	switch r.Phase {
	case "HOLD":
		g.counted = true
		return r.Hold, nil
	case "PRE":
		if len(r.Tail) > 0 && r.Tail[0] == "TAKEN" {
			return seats.HoldOutcome{}, o.holdError(c.show, c.hall, seats.HoldOutcome{Taken: parseIDs(r.Tail[1:])})
		}
		if len(r.Tail) == 3 {
			return seats.HoldOutcome{}, services.Errorf(services.CodeSoldOut, "zone %s has %s seats left", r.Tail[1], r.Tail[2])
		}
	case "RATE":
		g.counted = true
		if len(r.Tail) == 2 {
			return seats.HoldOutcome{}, o.rateLimited(r.Tail[0], r.Tail[1])
		}
	case "LIMITS", "OVER", "LOCKED":
		g.counted = true
		if r.Phase == "OVER" {
			return seats.HoldOutcome{}, services.Errorf(services.CodeLimitExceeded, "at most %d seats per person for this show", c.show.PurchaseLimit)
		}
		return seats.HoldOutcome{}, &gateStop{r.Phase}
	case "SEEN":
		return seats.HoldOutcome{}, &gateStop{r.Phase}
	case "VOUCHER":
		g.counted = true
		if len(r.Tail) == 1 {
			here, _ := strconv.ParseInt(r.Tail[0], 10, 64)
			return seats.HoldOutcome{}, tooFewUses(order, c.voucherCap-here)
		}
	}
	return seats.HoldOutcome{}, store.Unavailable("the seat cache", errors.New("order script: unexpected reply "+r.Phase))
}

// parseIDs reads seat ids a script returned as strings.
func parseIDs(vs []string) []int64 {
	out := make([]int64, 0, len(vs))
	for _, v := range vs {
		id, _ := strconv.ParseInt(v, 10, 64)
		out = append(out, id)
	}
	return out
}

// rateLimited is the RATE_LIMITED error of the order script's refusal by the buyer's
// ("user") or the show's limit, waiting wait seconds (a float): retry_after_s is wait
// rounded up, at least 1, as redis_rate's RetryAfter was. It counts the refusal.
func (o *Orders) rateLimited(which, wait string) error {
	o.metrics.RateLimited.WithLabelValues("order").Inc()
	w, _ := strconv.ParseFloat(wait, 64)
	secs := int(math.Ceil(w))
	if secs < 1 {
		secs = 1
	}
	what := "orders from this account"
	if which == "show" {
		what = "orders for this show"
	}
	return &services.Error{Code: services.CodeRateLimited, Message: "too many " + what + "; try again in a moment", RetryAfterS: secs}
}

// unsure reports whether a refusal of g's request may hide a replay that Redis cannot
// tell: the key had no marker and the show's markers began less than IdempotencyTTL ago
// (markersYoung), a requested seat is the buyer's own (its order may be the key's), or
// the key had a marker MySQL did not know yet (its first request was committing: by the
// refusal it may have, and its seats count against this one's purchase limit).
func (o *Orders) unsure(g *gate, refusal error) bool {
	if !g.keyed {
		return false
	}
	if g.own && services.ErrorCode(refusal) == services.CodeSeatTaken || g.marked {
		return true
	}
	return g.unmarked && o.markersYoung(g.epoch)
}

// markersYoung reports whether the show's Idempotency-Key markers began less than
// IdempotencyTTL ago by the application's clock (epoch is keyLocks.epochName's value,
// UTC seconds): keys used before then may have no marker. An epoch that cannot be read
// counts as young.
func (o *Orders) markersYoung(epoch string) bool {
	since, err := strconv.ParseInt(epoch, 10, 64)
	return err != nil || o.clock.Now().Sub(time.Unix(since, 0)) < IdempotencyTTL
}

// setEpoch sets the show's missing marker epoch once and returns it (UTC seconds): now
// when MySQL holds a key of an order of this show used in the last IdempotencyTTL
// (markers are young; keys of other shows have their own markers and epochs), else
// IdempotencyTTL ago (no key that counts can lack its marker: a new install, or a flush
// after a quiet day, costs no lookups). The epoch is per show because the markers are:
// it lives in the show's slot, where lua/order.lua reads it.
func (o *Orders) setEpoch(ctx context.Context, showID int64) int64 {
	now := o.clock.Now()
	start := now
	if last, err := store.LastIdempotencyKeyAt(ctx, o.db, showID, now.Add(-IdempotencyTTL)); err == nil && !last.Valid {
		start = now.Add(-IdempotencyTTL)
	}
	ctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
	defer cancel()
	_ = o.seats.Redis().SetNX(ctx, o.locks.epochName(showID), start.Unix(), 0).Err()
	return start.Unix()
}
