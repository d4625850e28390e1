package clustertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// repoRoot is the checkout's root (the tests run in web/clustertest).
func repoRoot() string {
	wd, _ := os.Getwd()
	return filepath.Clean(filepath.Join(wd, "..", ".."))
}

// runDir is the cluster's run folder (.ci/cluster/common's RUN).
func runDir() string { return env("CLUSTER_RUN", filepath.Join(repoRoot(), ".cluster")) }

// script runs one of the .ci/cluster scripts with its arguments and fails the test
// when it fails.
func script(t *testing.T, name string, args ...string) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{filepath.Join(repoRoot(), ".ci", "cluster", name)}, args...)...)
	cmd.Dir = repoRoot()
	out, err := cmd.CombinedOutput()
	t.Logf("$ .ci/cluster/%s %s: %s", name, strings.Join(args, " "), strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf(".ci/cluster/%s %v: %v", name, args, err)
	}
}

// killPidFile sends SIGKILL to the process named by a pid file and returns its pid.
func killPidFile(t *testing.T, file string) int {
	t.Helper()
	return signalPidFile(t, file, syscall.SIGKILL)
}

// signalPidFile sends sig to the process named by a pid file and returns its pid.
func signalPidFile(t *testing.T, file string, sig syscall.Signal) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if err := syscall.Kill(pid, sig); err != nil {
		t.Fatalf("kill -s %v %d (%s): %v", sig, pid, file, err)
	}
	return pid
}

// node opens a client to one Redis node (closed with the test).
func node(t *testing.T, addr string) *redis.Client {
	n := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: time.Second, ReadTimeout: 2 * time.Second})
	t.Cleanup(func() { n.Close() })
	return n
}

// redisNodes are the cluster's node addresses (SEATFLOW_REDIS_ADDR).
func redisNodes() []string {
	var out []string
	for _, a := range strings.Split(env("SEATFLOW_REDIS_ADDR", ""), ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// slotOwner asks the live nodes who serves slot: the master's address and its
// replicas, by the first node that answers with cluster_state:ok and a claim for the
// slot. Nodes in skip are not asked.
func slotOwner(ctx context.Context, t *testing.T, slot int, skip ...string) (master string, replicas []string, ok bool) {
	for _, addr := range redisNodes() {
		if slices.Contains(skip, addr) {
			continue
		}
		n := node(t, addr)
		info, err := n.ClusterInfo(ctx).Result()
		if err != nil || !strings.Contains(info, "cluster_state:ok") {
			continue
		}
		slots, err := n.ClusterSlots(ctx).Result()
		if err != nil {
			continue
		}
		for _, s := range slots {
			if slot < s.Start || slot > s.End || len(s.Nodes) == 0 {
				continue
			}
			if slices.Contains(skip, s.Nodes[0].Addr) {
				return "", nil, false // this node still believes in a node that is gone
			}
			for _, r := range s.Nodes[1:] {
				replicas = append(replicas, r.Addr)
			}
			return s.Nodes[0].Addr, replicas, true
		}
	}
	return "", nil, false
}

// masters are the addresses of the cluster's masters that serve slots.
func masters(ctx context.Context, t *testing.T) []string {
	n := node(t, redisNodes()[0])
	slots, err := n.ClusterSlots(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range slots {
		if !slices.Contains(out, s.Nodes[0].Addr) {
			out = append(out, s.Nodes[0].Addr)
		}
	}
	return out
}

// showSlot is the hash slot of a show's keys (its {show:N} hash tag).
func showSlot(ctx context.Context, t *testing.T, c *cluster, show int64) int {
	return keySlot(ctx, t, c.seats.Keys(show)[0])
}

// keySlot is the hash slot of a key, as the cluster computes it.
func keySlot(ctx context.Context, t *testing.T, key string) int {
	slot, err := node(t, redisNodes()[0]).ClusterKeySlot(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	return int(slot)
}

// busyShard is the slot of the sale's busy show (its first), and the master and the
// replicas serving it; a slot without a replica fails t.
func busyShard(ctx context.Context, t *testing.T, c *cluster, s *sale) (slot int, master string, replicas []string) {
	slot = showSlot(ctx, t, c, s.shows[0])
	master, replicas, ok := slotOwner(ctx, t, slot)
	if !ok || len(replicas) == 0 {
		t.Fatalf("slot %d: no master with a replica", slot)
	}
	return slot, master, replicas
}

// waitFor polls cond every 100 ms until it holds or wait passes, and returns how long
// it took.
func waitFor(t *testing.T, what string, wait time.Duration, cond func() bool) time.Duration {
	t.Helper()
	t0 := time.Now()
	for !cond() {
		if time.Since(t0) > wait {
			t.Fatalf("%s: not within %s", what, wait)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return time.Since(t0)
}

// clusterHealthy reports whether every node answers with cluster_state:ok.
func clusterHealthy(ctx context.Context, t *testing.T) bool {
	for _, addr := range redisNodes() {
		info, err := node(t, addr).ClusterInfo(ctx).Result()
		if err != nil || !strings.Contains(info, "cluster_state:ok") {
			return false
		}
	}
	return true
}

// role is a node's replication role ("master", "slave") or "" when it does not answer.
func role(ctx context.Context, t *testing.T, addr string) string {
	r, err := node(t, addr).Do(ctx, "ROLE").Slice()
	if err != nil || len(r) == 0 {
		return ""
	}
	s, _ := r[0].(string)
	return s
}

// migrateSlot moves one hash slot from the master src to the master dst by the manual
// sequence of redis-cli --cluster reshard: IMPORTING on dst, MIGRATING on src, the
// slot's keys moved batch keys per MIGRATE (redis-cli's --cluster-pipeline, 10 by
// default) with pause between batches (redis-cli has none), then SETSLOT NODE on dst,
// src and every other master. While the slot is open src answers TRYAGAIN to a command
// of which it holds some keys but not all, ASK to one of which it holds none, and dst
// answers TRYAGAIN to a multi-key command (ASKING) of which it lacks one: a create,
// whose script names its Idempotency-Key's lock (absent until the script writes it), is
// refused for as long as the slot is open, wherever the seat map is.
// Returns the number of keys moved and how many of each kind (the key's name after the
// show's tag, ids left out: "seats", "rl:user", "idem-seen").
func migrateSlot(ctx context.Context, t *testing.T, slot int, src, dst string, batch int, pause time.Duration) (int, map[string]int) {
	t.Helper()
	s, d := node(t, src), node(t, dst)
	srcID, err := s.Do(ctx, "CLUSTER", "MYID").Text()
	if err != nil {
		t.Fatal(err)
	}
	dstID, err := d.Do(ctx, "CLUSTER", "MYID").Text()
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error, what string) {
		if err != nil {
			t.Fatalf("slot %d %s: %v", slot, what, err)
		}
	}
	must(d.Do(ctx, "CLUSTER", "SETSLOT", slot, "IMPORTING", srcID).Err(), "IMPORTING on "+dst)
	must(s.Do(ctx, "CLUSTER", "SETSLOT", slot, "MIGRATING", dstID).Err(), "MIGRATING on "+src)
	host, port, _ := strings.Cut(dst, ":")
	moved, kinds := 0, map[string]int{}
	for {
		keys, err := s.ClusterGetKeysInSlot(ctx, slot, batch).Result()
		must(err, "GETKEYSINSLOT")
		if len(keys) == 0 {
			break
		}
		args := []any{"MIGRATE", host, port, "", 0, 60000, "KEYS"}
		for _, k := range keys {
			args = append(args, k)
			kinds[keyKind(k)]++
		}
		must(s.Do(ctx, args...).Err(), "MIGRATE "+strings.Join(keys, " "))
		moved += len(keys)
		time.Sleep(pause)
	}
	must(d.Do(ctx, "CLUSTER", "SETSLOT", slot, "NODE", dstID).Err(), "NODE on "+dst)
	must(s.Do(ctx, "CLUSTER", "SETSLOT", slot, "NODE", dstID).Err(), "NODE on "+src)
	for _, m := range masters(ctx, t) {
		if m != src && m != dst {
			must(node(t, m).Do(ctx, "CLUSTER", "SETSLOT", slot, "NODE", dstID).Err(), "NODE on "+m)
		}
	}
	return moved, kinds
}

// keyKind is a key's name after its hash tag without its ids and Idempotency-Key:
// "sf:{show:7}:rl:user:12" is "rl:user", "sf:{show:7}:idem-seen:12:k" "idem-seen".
func keyKind(key string) string {
	_, rest, ok := strings.Cut(key, "}:")
	if !ok {
		return key
	}
	parts := strings.Split(rest, ":")
	n := 1
	for n < len(parts) && !strings.ContainsAny(parts[n], "0123456789") {
		n++
	}
	return strings.Join(parts[:n], ":")
}
