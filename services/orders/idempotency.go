package orders

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"seatflow/lua"
	"seatflow/services"
	"seatflow/services/store"
)

// keyLocks names and gives back the keys that serialise requests sharing one user's
// Idempotency-Key for one show, so a replay sent while the first request is still
// running waits for its answer instead of racing it for the same seats. The lock is a
// Redis key with a short TTL (a crashed holder frees it by itself); only its holder
// deletes it, after a failure: the lock of a committed order's key is left to expire
// (keepCommitted), which saves a Redis call and a replicated write per batch. Beside it
// a "seen" marker remembers that the key was used, so a key never seen before costs no
// MySQL lookup. Both live in the show's hash slot, where lua/order.lua takes them with
// the hold (a key reused for another show has no marker there: MySQL's unique key on
// orders (uq_orders_idem) answers it, errKeyTaken).
type keyLocks struct {
	rdb     redis.UniversalClient
	prefix  string
	release *redis.Script
}

func newKeyLocks(rdb redis.UniversalClient, prefix string) *keyLocks {
	return &keyLocks{rdb: rdb, prefix: prefix, release: redis.NewScript(lua.IdemRelease)}
}

// idemLockTTL bounds how long one create may hold a key's lock.
const idemLockTTL = 15 * time.Second

// seenTTL is how long Redis remembers that a key was used: longer than IdempotencyTTL.
const seenTTL = IdempotencyTTL + time.Hour

func (l *keyLocks) show(showID int64) string {
	return l.prefix + ":{show:" + strconv.FormatInt(showID, 10) + "}:"
}

func (l *keyLocks) name(showID, userID int64, key string) string {
	return l.show(showID) + "idem:" + strconv.FormatInt(userID, 10) + ":" + key
}

func (l *keyLocks) seenName(showID, userID int64, key string) string {
	return l.show(showID) + "idem-seen:" + strconv.FormatInt(userID, 10) + ":" + key
}

// epochName is the key holding when Redis began keeping the show's "seen" markers (UTC
// seconds, set by the first keyed request that finds it missing, setEpoch): until
// IdempotencyTTL after it, a key without a marker may still name an order in MySQL.
func (l *keyLocks) epochName(showID int64) string { return l.show(showID) + "idem-epoch" }

// keyClaim is a key lua/order.lua claimed with its hold, its lock now held by this
// request (token): first when the key had not been used before (for this show).
type keyClaim struct {
	first     bool
	token     string
	committed bool // its order committed: the lock is left to expire (keepCommitted)
}

// seenMarker says what giveBack does with the key's "seen" marker.
type seenMarker int

const (
	keepMarker seenMarker = iota // the key names an order (or may): remember it
	dropMarker                   // the key's first request failed: the key is new again
)

// markerOnFailure is what giveBack does with the marker when the request that holds c
// fails: a key used for the first time is forgotten, any other key is still remembered.
func (c keyClaim) markerOnFailure() seenMarker {
	if c.first {
		return dropMarker
	}
	return keepMarker
}

// giveBack frees the lock c holds and, with dropMarker, drops the key's marker (failures are
// not remembered: the key is new again). A lost reply only delays the next request with
// the key until the lock's TTL, and a marker left behind costs one MySQL lookup.
func (l *keyLocks) giveBack(showID, userID int64, key string, c keyClaim, marker seenMarker) {
	ctx, cancel := context.WithTimeout(context.Background(), store.RedisTimeout)
	defer cancel()
	drop := "0"
	if marker == dropMarker {
		drop = "1"
	}
	_ = l.release.Run(ctx, l.rdb, []string{l.name(showID, userID, key), l.seenName(showID, userID, key)}, c.token, drop).Err()
}

// keepCommitted marks the claims of orders that just committed: their keys now name
// orders, so their markers stay, and their locks are left to expire (idemLockTTL)
// rather than freed by a call of their own. A request with the key meanwhile is a
// replay: the marker sends it to MySQL (SEEN), and one that waited for the lock asks
// MySQL at each poll (Orders.run).
func keepCommitted(ps []*pendingCommit) {
	for _, p := range ps {
		if p.claim != nil {
			p.claim.committed = true
		}
	}
}

// errKeyTaken: the Idempotency-Key already names a live order in MySQL.
var errKeyTaken = errors.New("the idempotency key names an order already")

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

// refusedUnlessReplay returns the first order of req's Idempotency-Key when MySQL has
// it for the same request, else refusal: a refusal of a keyed request that Redis could
// not tell from a replay (API.md: a replay returns the first answer for 24 h). For
// SEAT_TAKEN, SOLD_OUT, LIMIT_EXCEEDED and NO_ADJACENT_SEATS, which
// IDEMPOTENCY_MISMATCH outranks, a key used with another request answers that. For
// NOT_ADMITTED (an order made before the show's room was on, or with an admission that
// has ended, replays as it was answered) a key Redis has no marker of costs no MySQL
// lookup unless the show's markers are young (markersYoung), and a key used with
// another request answers NOT_ADMITTED. Other errors, and a lookup that fails, return
// refusal as it is.
func (o *Orders) refusedUnlessReplay(ctx context.Context, req CreateOrderRequest, refusal error) (*services.Order, error) {
	code := services.ErrorCode(refusal)
	switch code {
	case services.CodeSeatTaken, services.CodeSoldOut, services.CodeLimitExceeded, services.CodeNoAdjacentSeats:
	case services.CodeNotAdmitted:
		if req.IdempotencyKey == "" || !o.maybeUsed(ctx, req) {
			return nil, refusal
		}
	default:
		return nil, refusal
	}
	prior, err := o.replay(ctx, req.UserID, req.IdempotencyKey, req.hash())
	switch {
	case prior != nil:
		return prior, nil
	case code != services.CodeNotAdmitted && services.ErrorCode(err) == services.CodeIdempotencyMismatch:
		return nil, err
	}
	return nil, refusal
}

// maybeUsed reads, in one pipeline on the show's slot, whether req's key has a marker
// or the show's markers are young (a missing epoch is set, setEpoch): false means
// MySQL holds no order of the key for this show. A read that fails says false.
func (o *Orders) maybeUsed(ctx context.Context, req CreateOrderRequest) bool {
	rctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
	var seen *redis.IntCmd
	var epoch *redis.StringCmd
	_, err := o.locks.rdb.Pipelined(rctx, func(p redis.Pipeliner) error {
		seen = p.Exists(rctx, o.locks.seenName(req.ShowID, req.UserID, req.IdempotencyKey))
		epoch = p.Get(rctx, o.locks.epochName(req.ShowID))
		return nil
	})
	cancel()
	switch {
	case err != nil && !errors.Is(err, redis.Nil):
		return false
	case seen.Val() > 0:
		return true
	case errors.Is(epoch.Err(), redis.Nil):
		return o.markersYoung(strconv.FormatInt(o.setEpoch(ctx, req.ShowID), 10))
	}
	return o.markersYoung(epoch.Val())
}
