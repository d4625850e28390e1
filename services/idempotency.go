package services

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// keyLocks serialises requests that share one user's Idempotency-Key, so a replay sent
// while the first request is still running waits for its answer instead of racing it
// for the same seats. The lock is a Redis key with a short TTL (a crashed holder frees
// it by itself); only its holder deletes it.
type keyLocks struct {
	rdb    redis.UniversalClient
	prefix string
}

// idemLockTTL bounds how long one create may hold a key's lock.
const idemLockTTL = 15 * time.Second

var unlockScript = redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`)

func (l *keyLocks) name(userID int64, key string) string {
	return l.prefix + ":idem:" + strconv.FormatInt(userID, 10) + ":" + key
}

// acquire takes the lock of (userID, key) and returns its release function, or ok false
// when another request holds it.
func (l *keyLocks) acquire(ctx context.Context, userID int64, key string) (release func(), ok bool, err error) {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	token := hex.EncodeToString(b)
	name := l.name(userID, key)
	ctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	ok, err = l.rdb.SetNX(ctx, name, token, idemLockTTL).Result()
	if err != nil {
		return nil, false, unavailable("the seat cache", err)
	}
	if !ok {
		return nil, false, nil
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
		defer cancel()
		_ = unlockScript.Run(ctx, l.rdb, []string{name}, token).Err()
	}, true, nil
}

// errKeyTaken: the Idempotency-Key already names a live order in MySQL.
var errKeyTaken = errors.New("the idempotency key names an order already")

// seenTTL is how long Redis remembers that a key was used: longer than IdempotencyTTL.
const seenTTL = IdempotencyTTL + time.Hour

func (l *keyLocks) seenName(userID int64, key string) string {
	return l.prefix + ":idem-seen:" + strconv.FormatInt(userID, 10) + ":" + key
}

// seen reports whether (userID, key) was used before, as far as Redis remembers; only
// then can MySQL hold a first order to replay. Errors: UNAVAILABLE.
func (l *keyLocks) seen(ctx context.Context, userID int64, key string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	n, err := l.rdb.Exists(ctx, l.seenName(userID, key)).Result()
	if err != nil {
		return false, unavailable("the seat cache", err)
	}
	return n > 0, nil
}

// firstUse records that (userID, key) is in use and reports whether it was new. A key
// Redis forgot (a flush) reads as new; the order insert then meets the first order's
// key in MySQL and replays it (errKeyTaken). Errors: UNAVAILABLE.
func (l *keyLocks) firstUse(ctx context.Context, userID int64, key string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	ok, err := l.rdb.SetNX(ctx, l.seenName(userID, key), "1", seenTTL).Result()
	if err != nil {
		return false, unavailable("the seat cache", err)
	}
	return ok, nil
}

// forget drops the record that (userID, key) is in use; a lost delete only costs a
// MySQL lookup when the key comes again.
func (l *keyLocks) forget(userID int64, key string) {
	ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
	defer cancel()
	_ = l.rdb.Del(ctx, l.seenName(userID, key)).Err()
}

// withKey runs create under the lock of the user's Idempotency-Key. A request that
// finds the lock taken waits for the first one: it then returns the first order (a
// replay), IDEMPOTENCY_MISMATCH, or, when the first failed (failures are not
// remembered), runs create itself.
func (o *Orders) withKey(ctx context.Context, userID int64, key string, hash [32]byte, create func() (*Order, error)) (*Order, error) {
	deadline := time.Now().Add(idemLockTTL + time.Second)
	for {
		release, ok, err := o.locks.acquire(ctx, userID, key)
		if err != nil {
			return nil, err
		}
		if ok {
			defer release()
			first, err := o.locks.firstUse(ctx, userID, key)
			if err != nil {
				return nil, err
			}
			if !first {
				if prior, err := o.replay(ctx, userID, key, hash); prior != nil || err != nil {
					return prior, err
				}
			}
			order, err := create()
			if err != nil && first {
				o.locks.forget(userID, key) // failures are not remembered: the key is new again
			}
			return order, err
		}
		if time.Now().After(deadline) {
			return nil, unavailable("the idempotency lock", context.DeadlineExceeded)
		}
		select {
		case <-ctx.Done():
			return nil, unavailable("the idempotency lock", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
