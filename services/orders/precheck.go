package orders

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"seatflow/services"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// precheck is what one pipelined read learns before a create spends anything: whether
// the request's Idempotency-Key was used before, and the refusal the hold would give.
type precheck struct {
	seen    bool  // the key's "seen" marker exists: the request may be a replay
	refusal error // SEAT_TAKEN or SOLD_OUT, as the hold script would answer; nil: go on
	// unsure: the request has a key without a marker, and Redis may not have a marker of
	// every key in use (its markers began less than IdempotencyTTL ago: a flush, a new
	// Redis), so a refusal must first ask MySQL whether the key names an order
	unsure bool
}

// precheck reads, in one round trip (a pipeline; the keys live in two hash slots), the
// Idempotency-Key's marker and the state of what the request asks for: the chosen
// seats' values, or the zone's free count for best available. A request that is not a
// replay and asks for a seat another buyer holds or owns (or a house seat), or for more
// seats than its zone has free, is refused with the hold's own error before it costs a
// rate-limit token, a lock or a script: in a flash sale most requests are refused, and
// each refusal then costs one read. Everything else (free seats, the buyer's own seats,
// a map not loaded) goes on to the full pipeline, whose hold script decides atomically:
// the read only refuses what was already taken when it ran. Errors: UNAVAILABLE.
func (o *Orders) precheck(ctx context.Context, show *services.Show, hall *services.Hall, req *CreateOrderRequest) (precheck, error) {
	ctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
	defer cancel()
	keys := o.seats.Keys(show.ID)
	var seen *redis.IntCmd
	var epoch *redis.StringCmd
	var seatList *redis.SliceCmd
	var zone *redis.StringCmd
	_, err := o.seats.Redis().Pipelined(ctx, func(p redis.Pipeliner) error {
		if req.IdempotencyKey != "" {
			seen = p.Exists(ctx, o.locks.seenName(req.UserID, req.IdempotencyKey))
			epoch = p.Get(ctx, o.locks.epochName())
		}
		if len(req.SeatIDs) > 0 {
			fields := make([]string, len(req.SeatIDs))
			for i, id := range req.SeatIDs {
				fields[i] = strconv.FormatInt(id, 10)
			}
			seatList = p.HMGet(ctx, keys[0], fields...)
		} else {
			zone = p.HGet(ctx, keys[1], req.Zone)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return precheck{}, store.Unavailable("the seat cache", err)
	}
	var out precheck
	if seen != nil {
		out.seen = seen.Val() > 0
		out.unsure = !out.seen && o.markersYoung(ctx, epoch)
	}
	n := len(req.SeatIDs)
	if n == 0 {
		n = req.Quantity
	}
	if out.seen || n > show.PurchaseLimit {
		// a replay answers with its first order, whatever the seats are now; a request
		// over the purchase limit is told so first (LIMIT_EXCEEDED, in place)
		return out, nil
	}
	if seatList != nil {
		var taken []int64
		for i, v := range seatList.Val() {
			str, ok := v.(string)
			if !ok {
				return out, nil // not loaded: the full pipeline loads it
			}
			state, _, owner := seats.SeatValue(str)
			if state != services.StateFree && owner != req.UserID {
				taken = append(taken, req.SeatIDs[i])
			}
		}
		if len(taken) > 0 {
			out.refusal = o.holdError(show, hall, seats.HoldOutcome{Taken: taken})
		}
		return out, nil
	}
	if free, err := zone.Int(); err == nil && free < req.Quantity && (!req.Accessible || zoneHasKind(hall, req.Zone, services.KindWheelchair)) {
		out.refusal = services.Errorf(services.CodeSoldOut, "zone %s has %d seats left", req.Zone, free)
	}
	return out, nil
}

// markersYoung reports whether Redis's Idempotency-Key markers began less than
// IdempotencyTTL ago by the application's clock (epoch is the read of
// keyLocks.epochName, in UTC seconds): keys used before then may have no marker. A
// missing epoch (a flushed or new Redis) is set once: to now when MySQL holds a key
// used in the last IdempotencyTTL (markers are young), else to IdempotencyTTL ago (no
// key that counts can lack its marker: a new install, or a flush after a quiet day,
// costs no lookups). An epoch that cannot be read counts as young.
func (o *Orders) markersYoung(ctx context.Context, epoch *redis.StringCmd) bool {
	now := o.clock.Now()
	since, err := epoch.Int64()
	if !errors.Is(err, redis.Nil) {
		return err != nil || now.Sub(time.Unix(since, 0)) < IdempotencyTTL
	}
	start := now
	if last, err := store.LastIdempotencyKeyAt(ctx, o.db); err == nil &&
		(!last.Valid || now.Sub(last.Time) >= IdempotencyTTL) {
		start = now.Add(-IdempotencyTTL)
	}
	_ = o.seats.Redis().SetNX(ctx, o.locks.epochName(), start.Unix(), 0).Err()
	return now.Sub(start) < IdempotencyTTL
}
