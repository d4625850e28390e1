package store

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"seatflow/lua"
)

// Lease is a cluster-wide mutual exclusion held in Redis for a bounded time, with a
// fencing token that grows with every new holder. Reconciliation holds it for a run:
// one run at a time across all instances; seat writes carry the token, so a run that
// lost its lease cannot overwrite the work of the run that took over.
type Lease struct {
	rdb      redis.UniversalClient
	key      string // the lease: value = token of the holder
	tokenKey string // the fencing token counter, in the lease key's hash slot
	ttl      time.Duration
	acquire  *redis.Script
	renew    *redis.Script
}

// NewLease returns the lease named name under prefix (keys "<prefix>:{lease:<name>}" and
// "...:token"); a holder that stops renewing loses it after ttl.
func NewLease(rdb redis.UniversalClient, prefix, name string, ttl time.Duration) *Lease {
	tag := prefix + ":{lease:" + name + "}"
	return &Lease{rdb: rdb, key: tag, tokenKey: tag + ":token", ttl: ttl,
		acquire: redis.NewScript(lua.LeaseAcquire), renew: redis.NewScript(lua.LeaseRenew)}
}

// TTL is how long the lease lasts without renewal.
func (l *Lease) TTL() time.Duration { return l.ttl }

// TryAcquire takes the lease when it is free and returns its fencing token (>= 1), or
// 0 when another holder has it. Errors: UNAVAILABLE when Redis cannot be reached.
func (l *Lease) TryAcquire(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, RedisTimeout)
	defer cancel()
	tok, err := l.acquire.Run(ctx, l.rdb, []string{l.key, l.tokenKey}, l.ttl.Milliseconds()).Int64()
	if err != nil {
		return 0, Unavailable("the seat cache", err)
	}
	return tok, nil
}

// Renew extends the lease held with token by its ttl; false means it was lost (expired
// and perhaps taken by another holder).
func (l *Lease) Renew(ctx context.Context, token int64) (bool, error) {
	return l.runRenew(ctx, token, l.ttl.Milliseconds())
}

// Release gives the lease back if token still holds it.
func (l *Lease) Release(ctx context.Context, token int64) error {
	_, err := l.runRenew(ctx, token, 0)
	return err
}

func (l *Lease) runRenew(ctx context.Context, token, ms int64) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, RedisTimeout)
	defer cancel()
	n, err := l.renew.Run(ctx, l.rdb, []string{l.key}, strconv.FormatInt(token, 10), ms).Int64()
	if err != nil {
		return false, Unavailable("the seat cache", err)
	}
	return n == 1, nil
}
