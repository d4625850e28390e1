package web

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A Redis that may evict keys could drop seat maps, holds and expiry tasks: /readyz
// fails with the reason unless SEATFLOW_ALLOW_EVICTION is set. The policy is a
// server's, not a database's: the test changes it on a redis-server of its own, so the
// tests of other packages and checkouts on the shared Redis never see it.
func TestReadyzFailsWhenRedisMayEvict(t *testing.T) {
	addr := startOwnRedis(t)
	a := newTestApp(t, func(c *Config) { c.RedisAddr, c.RedisDB, c.AsynqRedisAddr = addr, 0, "" })
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

// startOwnRedis starts a redis-server without persistence on a free loopback port for
// the test (killed when it ends) and returns its address; the test is skipped when
// redis-server is not installed.
func startOwnRedis(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := "127.0.0.1:" + strconv.Itoa(port)
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	for deadline := time.Now().Add(10 * time.Second); c.Ping(context.Background()).Err() != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("redis-server on %s does not answer", addr)
		}
	}
	return addr
}
