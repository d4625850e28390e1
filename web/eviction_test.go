package web

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// A Redis that may evict keys could drop seat maps, holds and expiry tasks: /readyz
// fails with the reason unless SEATFLOW_ALLOW_EVICTION is set.
func TestReadyzFailsWhenRedisMayEvict(t *testing.T) {
	a := newTestApp(t, nil)
	ctx := context.Background()
	was, err := a.Redis.ConfigGet(ctx, "maxmemory-policy").Result()
	if err != nil {
		t.Skipf("CONFIG is not available: %v", err)
	}
	if err := a.Redis.ConfigSet(ctx, "maxmemory-policy", "allkeys-lru").Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Redis.ConfigSet(context.Background(), "maxmemory-policy", was["maxmemory-policy"]) })
	r := a.do("GET", "/readyz", "", nil, nil)
	if r.status != 503 || !strings.Contains(string(r.body), "allkeys-lru") {
		t.Errorf("readyz with allkeys-lru: %d %s", r.status, r.body)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	allowed := &evictionCheck{rdb: a.Redis, allow: true, log: quiet}
	if p := allowed.problem(ctx); p != "" {
		t.Errorf("SEATFLOW_ALLOW_EVICTION=true still reports %q", p)
	}
	if err := a.Redis.ConfigSet(ctx, "maxmemory-policy", "noeviction").Err(); err != nil {
		t.Fatal(err)
	}
	fresh := &evictionCheck{rdb: a.Redis, log: quiet}
	if p := fresh.problem(ctx); p != "" {
		t.Errorf("noeviction reports %q", p)
	}
}
