package testenv

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"seatflow/services/orders"
)

// StartRedisCluster starts a throwaway Redis Cluster of masters redis-server children
// (no replicas, nothing saved), splits the 16384 slots evenly between them, waits until
// every node says cluster_state:ok, and returns the nodes' addresses. The servers are
// killed when the test ends. The test is skipped when redis-server is not on PATH.
func StartRedisCluster(t testing.TB, masters int) []string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not on PATH: the Redis Cluster tests need it to start a throwaway cluster")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	addrs := make([]string, masters)
	nodes := make([]*redis.Client, masters)
	for i := range masters {
		port := freeClusterPort(t)
		dir := t.TempDir()
		cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(dir, "nodes.conf"),
			"--dir", dir, "--save", "", "--appendonly", "no", "--daemonize", "no")
		if err := cmd.Start(); err != nil {
			t.Fatalf("start redis-server: %v", err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		addrs[i] = "127.0.0.1:" + strconv.Itoa(port)
		nodes[i] = redis.NewClient(&redis.Options{Addr: addrs[i]})
		t.Cleanup(func() { nodes[i].Close() })
		waitFor(t, ctx, "redis-server "+addrs[i], func() error { return nodes[i].Ping(ctx).Err() })
	}
	per := 16384 / masters
	for i, n := range nodes {
		lo, hi := i*per, (i+1)*per-1
		if i == masters-1 {
			hi = 16383
		}
		if err := n.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", lo, hi).Err(); err != nil {
			t.Fatalf("CLUSTER ADDSLOTSRANGE on %s: %v", addrs[i], err)
		}
	}
	for i := 1; i < masters; i++ {
		host, port, _ := net.SplitHostPort(addrs[i])
		if err := nodes[0].ClusterMeet(ctx, host, port).Err(); err != nil {
			t.Fatalf("CLUSTER MEET %s: %v", addrs[i], err)
		}
	}
	for i, n := range nodes {
		waitFor(t, ctx, "cluster_state:ok on "+addrs[i], func() error {
			info, err := n.ClusterInfo(ctx).Result()
			if err != nil {
				return err
			}
			if !strings.Contains(info, "cluster_state:ok") || !strings.Contains(info, "cluster_known_nodes:"+strconv.Itoa(masters)+"\r") {
				return fmt.Errorf("not yet: %s", strings.Fields(info)[0])
			}
			return nil
		})
	}
	return addrs
}

// NewClusterClient returns a cluster client of the nodes at addrs, closed when the test
// ends.
func NewClusterClient(t testing.TB, addrs []string) *redis.ClusterClient {
	t.Helper()
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, PoolSize: 32})
	t.Cleanup(func() { c.Close() })
	return c
}

// NewTestEnvOnRedis is NewTestEnv over a Redis of the caller's (a cluster client, or a
// client with hooks): the emptied test database and rdb, which must be empty.
func NewTestEnvOnRedis(t testing.TB, limits orders.Limits, rdb redis.UniversalClient) *TestEnv {
	t.Helper()
	return newTestEnvOn(t, limits, NewTestDB(t), rdb)
}

// freeClusterPort picks a port that is free, and whose cluster bus port (port + 10000)
// is free too.
func freeClusterPort(t testing.TB) int {
	t.Helper()
	for range 200 {
		port := 20000 + rand.IntN(30000)
		a, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			continue
		}
		b, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port+10000))
		a.Close()
		if err != nil {
			continue
		}
		b.Close()
		return port
	}
	t.Fatal("no free port pair for a cluster node")
	return 0
}

// waitFor retries try every 50 ms until it succeeds or ctx ends (then the test fails
// with what's and the last error).
func waitFor(t testing.TB, ctx context.Context, what string, try func() error) {
	t.Helper()
	var err error
	for {
		if err = try(); err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v", what, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
