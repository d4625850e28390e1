package web

import (
	"context"
	"log/slog"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// evictionCheck reads Redis's maxmemory-policy (INFO memory, which works where CONFIG
// is disabled). Any policy but noeviction lets Redis drop seat maps, holds and expiry
// tasks under memory pressure, so /readyz fails unless SEATFLOW_ALLOW_EVICTION is set.
type evictionCheck struct {
	rdb   *redis.Client
	allow bool
	log   *slog.Logger

	mu     sync.Mutex
	policy string // "" until read
}

// problem returns why the Redis policy is unsafe, or "" when it is fine (or allowed).
// The policy is read once and kept; a failed read is retried on the next call.
func (e *evictionCheck) problem(ctx context.Context) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.policy == "" {
		info, err := e.rdb.Info(ctx, "memory").Result()
		if err != nil {
			return ""
		}
		e.policy = "unknown"
		for _, line := range strings.Split(info, "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "maxmemory_policy:"); ok {
				e.policy = v
			}
		}
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
