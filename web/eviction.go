package web

import (
	"context"
	"log/slog"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	"seatflow/services/store"
)

// evictionCheck reads Redis's maxmemory-policy (INFO memory, which works where CONFIG
// is disabled) on every master of the app's Redis (each node of a cluster has its own)
// and on asynq's node. Any policy but noeviction lets Redis drop seat maps, holds and
// expiry tasks under memory pressure, so /readyz fails unless SEATFLOW_ALLOW_EVICTION
// is set.
type evictionCheck struct {
	rdb    redis.UniversalClient
	queues redis.UniversalClient // asynq's node; may be rdb itself
	allow  bool
	log    *slog.Logger

	mu     sync.Mutex
	policy string // "" until read; the first policy found that is not noeviction
}

// problem returns why the Redis policy is unsafe, or "" when it is fine (or allowed).
// The policy is read once and kept; a failed read is retried on the next call.
func (e *evictionCheck) problem(ctx context.Context) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.policy == "" {
		policy, err := e.read(ctx)
		if err != nil {
			return ""
		}
		e.policy = policy
		if e.policy != "noeviction" {
			e.log.Warn("Redis may evict keys: seat maps, holds and expiry tasks could vanish under memory pressure; set maxmemory-policy noeviction",
				"maxmemory_policy", e.policy, "allowed", e.allow)
		}
	}
	if e.policy == "noeviction" || e.allow {
		return ""
	}
	return "maxmemory-policy is " + e.policy + ", not noeviction (set SEATFLOW_ALLOW_EVICTION=true for development only)"
}

// read returns "noeviction" when every node has it, else the first other policy found.
func (e *evictionCheck) read(ctx context.Context) (string, error) {
	var mu sync.Mutex
	worst := "noeviction"
	of := func(ctx context.Context, node redis.UniversalClient) error {
		info, err := node.Info(ctx, "memory").Result()
		if err != nil {
			return err
		}
		policy := "unknown"
		for _, line := range strings.Split(info, "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "maxmemory_policy:"); ok {
				policy = v
			}
		}
		mu.Lock()
		if policy != "noeviction" && worst == "noeviction" {
			worst = policy
		}
		mu.Unlock()
		return nil
	}
	if err := store.ForEachMaster(ctx, e.rdb, of); err != nil {
		return "", err
	}
	if e.queues != nil && e.queues != e.rdb {
		if err := of(ctx, e.queues); err != nil {
			return "", err
		}
	}
	return worst, nil
}
