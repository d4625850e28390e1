package orders

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"seatflow/lua"
	"seatflow/services"
	"seatflow/services/store"
)

// keyLocks serialises requests that share one user's Idempotency-Key, so a replay sent
// while the first request is still running waits for its answer instead of racing it
// for the same seats. The lock is a Redis key with a short TTL (a crashed holder frees
// it by itself); only its holder deletes it. Beside it a "seen" marker remembers that
// the key was used, so a key never seen before costs no MySQL lookup. Both keys share
// one hash slot ({user:key}), so one script takes or gives back both.
type keyLocks struct {
	rdb     redis.UniversalClient
	prefix  string
	claim   *redis.Script
	release *redis.Script
}

func newKeyLocks(rdb redis.UniversalClient, prefix string) *keyLocks {
	return &keyLocks{rdb: rdb, prefix: prefix, claim: redis.NewScript(lua.IdemClaim), release: redis.NewScript(lua.IdemRelease)}
}

// idemLockTTL bounds how long one create may hold a key's lock.
const idemLockTTL = 15 * time.Second

// seenTTL is how long Redis remembers that a key was used: longer than IdempotencyTTL.
const seenTTL = IdempotencyTTL + time.Hour

func (l *keyLocks) tag(userID int64, key string) string {
	return "{" + strconv.FormatInt(userID, 10) + ":" + key + "}"
}

func (l *keyLocks) name(userID int64, key string) string {
	return l.prefix + ":idem:" + l.tag(userID, key)
}

func (l *keyLocks) seenName(userID int64, key string) string {
	return l.prefix + ":idem-seen:" + l.tag(userID, key)
}

// epochName is the key holding when Redis began keeping the "seen" markers (UTC
// seconds, set by the first keyed request that finds it missing, markersYoung): until
// IdempotencyTTL after it, a key without a marker may still name an order in MySQL.
func (l *keyLocks) epochName() string { return l.prefix + ":idem-epoch" }

// keyClaim is the outcome of claiming a key: locked when this request holds the lock,
// first when the key had not been used before.
type keyClaim struct {
	locked, first bool
	token         string
	given         bool // given back already (by the group commit, with its batch)
}

// take takes the lock of (userID, key) and marks the key as used, in one script; a
// lock another request holds leaves both untouched. Errors: UNAVAILABLE.
func (l *keyLocks) take(ctx context.Context, userID int64, key string) (keyClaim, error) {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	c := keyClaim{token: hex.EncodeToString(b)}
	ctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
	defer cancel()
	res, err := l.claim.Run(ctx, l.rdb, []string{l.name(userID, key), l.seenName(userID, key)},
		c.token, idemLockTTL.Milliseconds(), int64(seenTTL/time.Second)).Int64Slice()
	if err != nil || len(res) != 2 {
		return c, store.Unavailable("the seat cache", err)
	}
	c.locked, c.first = res[0] == 1, res[1] == 1
	return c, nil
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
func (l *keyLocks) giveBack(userID int64, key string, c keyClaim, marker seenMarker) {
	ctx, cancel := context.WithTimeout(context.Background(), store.RedisTimeout)
	defer cancel()
	drop := "0"
	if marker == dropMarker {
		drop = "1"
	}
	_ = l.release.Run(ctx, l.rdb, []string{l.name(userID, key), l.seenName(userID, key)}, c.token, drop).Err()
}

// giveBackCommitted frees, in one pipeline, the locks of the keys of orders that just
// committed (their markers stay: the keys now name orders) and marks their claims
// given, so the creates skip their own giveBack. A script Redis no longer has
// (NOSCRIPT after a flush) is run again on its own; a lost reply only delays the next
// request with the key until the lock's TTL, as in giveBack.
func (l *keyLocks) giveBackCommitted(ps []*pendingCommit) {
	var mine []*pendingCommit
	for _, p := range ps {
		if p.claim != nil && p.claim.locked {
			mine = append(mine, p)
		}
	}
	if len(mine) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), store.RedisTimeout)
	defer cancel()
	cmds := make([]*redis.Cmd, len(mine))
	_, _ = l.rdb.Pipelined(ctx, func(pipe redis.Pipeliner) error {
		for i, p := range mine {
			cmds[i] = l.release.EvalSha(ctx, pipe, []string{l.name(p.order.UserID, p.key), l.seenName(p.order.UserID, p.key)}, p.claim.token, "0")
		}
		return nil
	})
	for i, p := range mine {
		if redis.HasErrorPrefix(cmds[i].Err(), "NOSCRIPT") {
			l.giveBack(p.order.UserID, p.key, *p.claim, keepMarker)
		}
		p.claim.given = true
	}
}

// errKeyTaken: the Idempotency-Key already names a live order in MySQL.
var errKeyTaken = errors.New("the idempotency key names an order already")

// withKey runs create under the lock of the user's Idempotency-Key (create gets the
// claim: the group commit gives the lock back with its batch once the order committed). A request that
// finds the lock taken waits for the first one: it then returns the first order (a
// replay), IDEMPOTENCY_MISMATCH, or, when the first failed (failures are not
// remembered), runs create itself. gate (the rate limits; nil when already counted)
// runs once, at the same time as the first claim, so the two cost one round trip of
// waiting; when it refuses, the claim is given back and its error returned.
func (o *Orders) withKey(ctx context.Context, userID int64, key string, hash [32]byte, gate func() error, create func(c *keyClaim) (*services.Order, error)) (*services.Order, error) {
	deadline := time.Now().Add(idemLockTTL + time.Second)
	for {
		var gateErr error
		gated := make(chan struct{})
		if gate != nil {
			go func(g func() error) { defer close(gated); gateErr = g() }(gate)
			gate = nil
		} else {
			close(gated)
		}
		c, err := o.locks.take(ctx, userID, key)
		<-gated
		if gateErr != nil {
			if err == nil && c.locked {
				o.locks.giveBack(userID, key, c, c.markerOnFailure())
			}
			return nil, gateErr
		}
		if err != nil {
			return nil, err
		}
		if c.locked {
			marker := keepMarker
			defer func() {
				if !c.given {
					o.locks.giveBack(userID, key, c, marker)
				}
			}()
			if !c.first {
				if prior, err := o.replay(ctx, userID, key, hash); prior != nil || err != nil {
					return prior, err
				}
			}
			order, err := create(&c)
			if err != nil {
				marker = c.markerOnFailure()
			}
			return order, err
		}
		if time.Now().After(deadline) {
			return nil, store.Unavailable("the idempotency lock", context.DeadlineExceeded)
		}
		select {
		case <-ctx.Done():
			return nil, store.Unavailable("the idempotency lock", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
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

// notAdmittedUnlessReplay returns the first order of req's Idempotency-Key when req is
// its replay (same key, same request), else refusal (NOT_ADMITTED): an order made
// before the show's waiting room was turned on, or with an admission that has ended,
// is replayed as it was answered. A key Redis has no marker of costs no MySQL lookup
// (unless the markers are young, markersYoung); a lookup that fails, or a key used with
// another request, returns refusal.
func (o *Orders) notAdmittedUnlessReplay(ctx context.Context, req CreateOrderRequest, refusal error) (*services.Order, error) {
	if req.IdempotencyKey == "" {
		return nil, refusal
	}
	rctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
	var seen *redis.IntCmd
	var epoch *redis.StringCmd
	_, err := o.locks.rdb.Pipelined(rctx, func(p redis.Pipeliner) error {
		seen = p.Exists(rctx, o.locks.seenName(req.UserID, req.IdempotencyKey))
		epoch = p.Get(rctx, o.locks.epochName())
		return nil
	})
	cancel()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, refusal
	}
	if seen.Val() == 0 && !o.markersYoung(ctx, epoch) {
		return nil, refusal
	}
	if prior, err := o.replay(ctx, req.UserID, req.IdempotencyKey, req.hash()); prior != nil && err == nil {
		return prior, nil
	}
	return nil, refusal
}
