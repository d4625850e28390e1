package clustertest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"seatflow/lua"
	"seatflow/services"
	"seatflow/services/store"
)

// The scratch seat maps of the Redis benchmark: benchShows maps of benchMapSeats seats,
// made afresh for every phase so that holds find free seats (a refusal writes nothing and
// costs less), and one map of hotMapSeats for the one-show phase.
const (
	benchShows    = 48
	benchMapSeats = 4000
	hotMapSeats   = 200000
)

// scratchShow is one scratch seat map (the three hashes of a show, one hash tag) and
// the next seat its holds take.
type scratchShow struct {
	keys []string
	next atomic.Int64
}

// scratchShows writes n scratch seat maps of seats free seats in zone "z", with hash
// tags spread over the slots; drop deletes them.
func scratchShows(ctx context.Context, t *testing.T, rdb redis.UniversalClient, n, seats int) (shows []*scratchShow, drop func()) {
	run := time.Now().UnixNano() % 1e9
	out := make([]*scratchShow, n)
	for i := range out {
		tag := fmt.Sprintf("bench:{show:%d-%d}:", run, i)
		s := &scratchShow{keys: []string{tag + "seats", tag + "zones", tag + "users"}}
		pipe := rdb.Pipeline()
		for from := 1; from <= seats; from += 5000 {
			args := make([]any, 0, 10000)
			for seat := from; seat < from+5000 && seat <= seats; seat++ {
				args = append(args, strconv.Itoa(seat), "F")
			}
			pipe.HSet(ctx, s.keys[0], args...)
		}
		pipe.HSet(ctx, s.keys[0], "_", "0")
		pipe.HSet(ctx, s.keys[1], "_", "0", "z", strconv.Itoa(seats))
		pipe.HSet(ctx, s.keys[2], "_", "0")
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		out[i] = s
	}
	drop = func() {
		for _, s := range out {
			rdb.Del(context.Background(), s.keys...)
		}
	}
	t.Cleanup(drop)
	return out, drop
}

// holdLoad runs the hold script (lua/hold.lua, EVALSHA through Script.Run) with
// clients goroutines for d on the scratch shows, each call holding the next seat of a
// random show for a random user (the maps are large enough that the holds find their
// seats free), and returns the calls a second and the errors.
func holdLoad(ctx context.Context, t *testing.T, rdb redis.UniversalClient, shows []*scratchShow, clients int, d time.Duration) (float64, int64, string, string) {
	procs := benchProcs(t)
	delete(procs, "instances")
	delete(procs, "nginx")
	if len(shows) == 1 && store.IsClusterClient(rdb) { // the one master's own CPU time
		if m, _, ok := slotOwner(ctx, t, keySlot(ctx, t, shows[0].keys[0])); ok {
			if b, err := os.ReadFile(filepath.Join(runDir(), "redis", m[strings.LastIndex(m, ":")+1:], "pid")); err == nil {
				if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
					procs["its master"] = []int{pid}
				}
			}
		}
	}
	cpu0 := cpuTimes(procs)
	hold := redis.NewScript(lua.Hold)
	var calls, errs atomic.Int64
	var first atomic.Value
	t0 := time.Now()
	end := t0.Add(d)
	var wg sync.WaitGroup
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), uint64(t0.UnixNano())))
			for time.Now().Before(end) {
				s := shows[rng.IntN(len(shows))]
				seat := strconv.FormatInt(s.next.Add(1), 10)
				err := hold.Run(ctx, rdb, s.keys, services.NewOrderNo(time.Now()), strconv.Itoa(1+rng.IntN(1e6)), "4", seat, "z").Err()
				if time.Now().After(end) {
					break
				}
				if err != nil {
					errs.Add(1)
					first.CompareAndSwap(nil, err.Error())
					continue
				}
				calls.Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(t0)
	cpu := cpuTimes(procs)
	for k := range cpu {
		cpu[k] -= cpu0[k]
	}
	f, _ := first.Load().(string)
	return float64(calls.Load()) / elapsed.Seconds(), errs.Load(), f,
		"cpu per call " + describeCPU(cpu, calls.Load()) + "; " + describeMachine(cpu, elapsed)
}

// TestClusterBench_RedisMasters measures the same hold load (the hold script on 48
// shows whose hash tags spread over the slots) on the cluster's 3 masters and on a
// Redis Cluster of one master holding every slot (SEATFLOW_BENCH_SOLO_REDIS, started
// by .ci/cluster/bench with a replica like the others), in turn (SEATFLOW_BENCH_ROUNDS), and prints the
// calls a second and the ratio, then the same load on one show alone: one hash slot,
// so one master's thread (the per-show ceiling of the quota). .ci/cluster/bench puts every master in a CPU group of
// its own (REDIS_CPU_QUOTA); the load generator runs outside any quota.
func TestClusterBench_RedisMasters(t *testing.T) {
	c := benchCluster(t)
	ctx := context.Background()
	soloAddr := env("SEATFLOW_BENCH_SOLO_REDIS", "")
	if soloAddr == "" {
		t.Fatal("SEATFLOW_BENCH_SOLO_REDIS names no one-master cluster (.ci/cluster/bench starts it)")
	}
	solo, err := store.NewRedis(store.RedisConn{Addrs: []string{soloAddr}, Cluster: true, PoolSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { solo.Close() })
	d, clients := benchDuration(t), benchClients()
	var b strings.Builder
	fmt.Fprintf(&b, "hold script on %d shows (%d seats each, made afresh for every phase), %d clients, %s phases, master CPU quota %s\n",
		benchShows, benchMapSeats, clients, d, env("REDIS_CPU_QUOTA", "none"))
	var ratios []string
	var rs, ones, threes []float64
	for round := range benchRounds() {
		soloShows, dropSolo := scratchShows(ctx, t, solo, benchShows, benchMapSeats)
		one, e1, f1, cpu1 := holdLoad(ctx, t, solo, soloShows, clients, d)
		dropSolo()
		clusterShows, dropCluster := scratchShows(ctx, t, c.rdb, benchShows, benchMapSeats)
		perMaster := map[string]int{}
		for _, s := range clusterShows {
			m, _, _ := slotOwner(ctx, t, keySlot(ctx, t, s.keys[0]))
			perMaster[m]++
		}
		three, e3, f3, cpu3 := holdLoad(ctx, t, c.rdb, clusterShows, clients, d)
		dropCluster()
		fmt.Fprintf(&b, "  round %d: cluster shows per master %s\n", round+1, describeCounts(perMaster))
		fmt.Fprintf(&b, "  round %d: 1 master %.0f calls/s (%d errors %s); 3 masters %.0f calls/s (%d errors %s); ratio %.2f\n",
			round+1, one, e1, f1, three, e3, f3, three/one)
		fmt.Fprintf(&b, "      1 master:  %s\n      3 masters: %s\n", cpu1, cpu3)
		if e1+e3 > 0 {
			t.Errorf("round %d: %d and %d script errors: %s %s", round+1, e1, e3, f1, f3)
		}
		ratios = append(ratios, fmt.Sprintf("%.2f", three/one))
		rs, ones, threes = append(rs, three/one), append(ones, one), append(threes, three)
	}
	hotShow, dropHot := scratchShows(ctx, t, c.rdb, 1, hotMapSeats)
	hot, eh, fh, cpuh := holdLoad(ctx, t, c.rdb, hotShow, clients, d)
	dropHot()
	fmt.Fprintf(&b, "  one show of %d seats (one slot, one master): %.0f calls/s (%d errors %s)\n      %s\n", hotMapSeats, hot, eh, fh, cpuh)
	if eh > 0 {
		t.Errorf("one show: %d script errors: %s", eh, fh)
	}
	fmt.Fprintf(&b, "  3 masters / 1 master: median %.2f (rounds %s); median rates %.0f/s and %.0f/s\n",
		median(rs), strings.Join(ratios, ", "), median(threes), median(ones))
	t.Log("\n" + b.String())
	writeBench(t, b.String())
}
