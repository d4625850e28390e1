package clustertest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// benchCluster is newCluster for the scale-out benchmark, which also needs
// SEATFLOW_CLUSTER_BENCH=1 (make cluster-bench): it reloads the balancer with one
// instance and with all of them.
func benchCluster(t *testing.T) *cluster {
	if os.Getenv("SEATFLOW_CLUSTER_BENCH") != "1" {
		t.Skip("SEATFLOW_CLUSTER_BENCH is not 1: make cluster-up, then make cluster-bench")
	}
	return newCluster(t)
}

// benchDuration is each measured phase's wall time (SEATFLOW_BENCH_DURATION, default 8s).
func benchDuration(t *testing.T) time.Duration {
	d, err := time.ParseDuration(env("SEATFLOW_BENCH_DURATION", "8s"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// benchClients is the load generator's concurrency (SEATFLOW_BENCH_CLIENTS, default 64).
func benchClients() int {
	n, err := strconv.Atoi(env("SEATFLOW_BENCH_CLIENTS", "64"))
	if err != nil || n < 1 {
		return 64
	}
	return n
}

// benchRounds is how many times each comparison runs in turn (SEATFLOW_BENCH_ROUNDS,
// default 3): the machine's other work moves single phases, the median less.
func benchRounds() int {
	n, err := strconv.Atoi(env("SEATFLOW_BENCH_ROUNDS", "3"))
	if err != nil || n < 1 {
		return 3
	}
	return n
}

// benchPhase reports whether TestClusterBench_Instances measures the phase named
// (SEATFLOW_BENCH_PHASES, comma-separated, default "rejection,flash").
func benchPhase(name string) bool {
	for _, p := range strings.Split(env("SEATFLOW_BENCH_PHASES", "rejection,flash"), ",") {
		if strings.TrimSpace(p) == name {
			return true
		}
	}
	return false
}

// median of the values (0 for none).
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// phase is one measured phase: answers counted as ok, the rest by code, the instances
// that served, and the CPU time the processes spent.
type phase struct {
	name      string
	instances int
	ok, other int64
	elapsed   time.Duration
	codes     map[string]int
	upstreams map[string]int
	cpu       map[string]time.Duration
	// nodes0 and nodes1 are each Redis server's CPU time and commandstats at the
	// phase's start and end (sampleNodes)
	nodes0, nodes1 map[string]nodeSample
}

// rate is ok answers a second.
func (p *phase) rate() float64 { return float64(p.ok) / p.elapsed.Seconds() }

// drive runs op on clients goroutines for d and counts its answers: op returns whether
// the answer is what the phase measures, and the answer.
func (c *cluster) drive(ctx context.Context, name string, instances, clients int, d time.Duration, op func(rng *rand.Rand) (bool, answer)) *phase {
	p := &phase{name: name, instances: instances, codes: map[string]int{}, upstreams: map[string]int{}}
	var mu sync.Mutex
	var ok, other atomic.Int64
	procs := benchProcs(c.t)
	p.nodes0 = sampleNodes(ctx)
	cpu0 := cpuTimes(procs)
	t0 := time.Now()
	end := t0.Add(d)
	var wg sync.WaitGroup
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), uint64(t0.UnixNano())))
			codes, ups := map[string]int{}, map[string]int{}
			for time.Now().Before(end) {
				good, a := op(rng)
				if time.Now().After(end) {
					break // cut off by the end: not counted
				}
				if good {
					ok.Add(1)
				} else {
					other.Add(1)
				}
				switch {
				case a.err != nil:
					codes["transport error"]++
				case a.status >= 300:
					codes[fmt.Sprintf("%d %s", a.status, a.code())]++
				default:
					codes[strconv.Itoa(a.status)]++
				}
				ups[a.upstream]++
			}
			mu.Lock()
			for k, v := range codes {
				p.codes[k] += v
			}
			for k, v := range ups {
				p.upstreams[k] += v
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	p.elapsed = time.Since(t0)
	p.ok, p.other = ok.Load(), other.Load()
	cpu1 := cpuTimes(procs)
	p.nodes1 = sampleNodes(ctx)
	p.cpu = map[string]time.Duration{}
	for k, v := range cpu1 {
		p.cpu[k] = v - cpu0[k]
	}
	return p
}

// balance reloads the balancer with the first n instances and waits until its
// answers come from n instances.
func balance(ctx context.Context, t *testing.T, c *cluster, n int) {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join(repoRoot(), ".ci", "cluster", "balancer"), "reload")
	cmd.Env = append(os.Environ(), "CLUSTER_INSTANCES="+strconv.Itoa(n))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("balancer reload with %d instances: %v %s", n, err, out)
	}
	waitFor(t, fmt.Sprintf("the balancer serves from %d instances", n), 30*time.Second, func() bool {
		seen := map[string]bool{}
		for range 40 * n {
			a := c.do(ctx, c.base, "GET", "/healthz", "", nil)
			seen[a.upstream] = true
		}
		return len(seen) == n
	})
}

// TestClusterBench_Instances measures, through the balancer, the rejection path
// (buyers asking for seats sold already: 409 SEAT_TAKEN) and a flash sale over many
// shows, with the balancer sending to one instance, then to three, in turn
// (1, 3, 1, 3, ...; SEATFLOW_BENCH_ROUNDS rounds), and prints each phase's rate, the instances that served, the CPU time of
// the instances, nginx, the Redis servers and this load generator, and the ratios
// 3 instances / 1 instance. The instances' CPU quota is what .ci/cluster/bench gave
// them (CLUSTER_CPU_QUOTA). It fails only on answers that must not come (errors).
func TestClusterBench_Instances(t *testing.T) {
	c := benchCluster(t)
	ctx := context.Background()
	d, clients := benchDuration(t), benchClients()
	if len(c.instances) < 2 {
		t.Fatalf("the cluster has %d instance(s): the benchmark compares 1 with several", len(c.instances))
	}
	fx := c.fixtures(ctx)
	small, err := fx.NewHall(ctx, "reject", 10, 20)
	if err != nil {
		t.Fatal(err)
	}
	big, err := fx.NewHall(ctx, "flash", 20, 30)
	if err != nil {
		t.Fatal(err)
	}
	buyers, err := fx.NewVisitors(ctx, 0, 2000)
	if err != nil {
		t.Fatal(err)
	}
	// the rejection path: 12 shows whose first 40 seats are sold
	const rejShows, takenSeats = 12, 40
	var rej []int64
	for range rejShows {
		id, err := fx.NewShow(ctx, small, 4)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fx.SellSeats(ctx, id, small.Seats[:takenSeats], buyers[len(buyers)-100:], 4); err != nil {
			t.Fatal(err)
		}
		rej = append(rej, id)
		c.do(ctx, c.base, "GET", fmt.Sprintf("/api/v1/shows/%d/seats", id), "", nil) // loads its seat map
	}
	var keys atomic.Int64
	rejectOp := func(rng *rand.Rand) (bool, answer) {
		show := rej[rng.IntN(len(rej))]
		k := 1 + rng.IntN(4)
		i := rng.IntN(takenSeats - k + 1)
		ids := make([]string, k)
		for j := range ids {
			ids[j] = strconv.FormatInt(small.Seats[i+j].ID, 10)
		}
		b := buyers[rng.IntN(len(buyers)-100)]
		a := c.do(ctx, c.base, "POST", fmt.Sprintf("/api/v1/shows/%d/orders", show), b.Token, map[string]any{"seat_ids": ids},
			"Idempotency-Key", "bench-"+strconv.FormatInt(keys.Add(1), 36))
		return a.err == nil && a.status == http.StatusConflict && a.code() == "SEAT_TAKEN", a
	}

	var phases []*phase
	for round := range benchRounds() {
		for _, n := range []int{1, len(c.instances)} {
			balance(ctx, t, c, n)
			if benchPhase("rejection") {
				phases = append(phases, c.drive(ctx, "rejection", n, clients, d, rejectOp))
			}
			if !benchPhase("flash") {
				continue
			}
			// the flash sale: 24 fresh shows of 600 seats, each bought block by block
			const flashShows = 24
			type flashShow struct {
				id   int64
				next atomic.Int64
			}
			shows := make([]*flashShow, flashShows)
			for i := range shows {
				id, err := fx.NewShow(ctx, big, 40)
				if err != nil {
					t.Fatal(err)
				}
				shows[i] = &flashShow{id: id}
				c.do(ctx, c.base, "GET", fmt.Sprintf("/api/v1/shows/%d/seats", id), "", nil)
			}
			flashOp := func(rng *rand.Rand) (bool, answer) {
				s := shows[rng.IntN(len(shows))]
				k := 1 + rng.IntN(4)
				i := int(s.next.Add(int64(k))) - k
				if i+k > len(big.Seats) {
					i = rng.IntN(len(big.Seats) - k + 1) // sold out: a refusal, as buyers come late
				}
				ids := make([]string, k)
				for j := range ids {
					ids[j] = strconv.FormatInt(big.Seats[i+j].ID, 10)
				}
				b := buyers[rng.IntN(len(buyers)-100)]
				a := c.do(ctx, c.base, "POST", fmt.Sprintf("/api/v1/shows/%d/orders", s.id), b.Token, map[string]any{"seat_ids": ids},
					"Idempotency-Key", "bench-"+strconv.FormatInt(keys.Add(1), 36))
				return a.err == nil && a.status == http.StatusCreated, a
			}
			phases = append(phases, c.drive(ctx, "flash", n, clients, d, flashOp))
			t.Logf("round %d with %d instance(s) done", round+1, n)
		}
	}
	balance(ctx, t, c, len(c.instances))

	var b strings.Builder
	fmt.Fprintf(&b, "scale-out through the balancer: %d clients, %s phases, instance CPU quota %s, Redis %s\n", clients, d, env("CLUSTER_CPU_QUOTA", "none"),
		env("SEATFLOW_BENCH_SINGLE_REDIS", "Cluster"))
	for _, p := range phases {
		fmt.Fprintf(&b, "  %-9s %d instance(s): %8.0f/s ok (%d ok, %d other in %s)  served by %s\n", p.name, p.instances, p.rate(), p.ok, p.other,
			p.elapsed.Round(10*time.Millisecond), describeCounts(p.upstreams))
		fmt.Fprintf(&b, "      answers %s\n      cpu per ok answer %s\n      %s\n", describeCounts(p.codes), describeCPU(p.cpu, p.ok),
			describeMachine(p.cpu, p.elapsed))
		if nodes := describeNodes(p.nodes0, p.nodes1, p.ok); nodes != "" {
			fmt.Fprintln(&b, nodes)
		}
		if q, err := strconv.ParseFloat(env("CLUSTER_CPU_QUOTA", ""), 64); err == nil {
			fmt.Fprintf(&b, "      the serving instances used %.2f of their %.2f CPUs of quota\n", p.cpu["instances"].Seconds()/p.elapsed.Seconds(), q*float64(p.instances))
		}
		for code, n := range p.codes {
			if code == "transport error" || strings.HasPrefix(code, "5") {
				t.Errorf("%s with %d instance(s): %d answers %s", p.name, p.instances, n, code)
			}
		}
	}
	flashScale := 0.0
	for _, name := range []string{"rejection", "flash"} {
		var one, many []float64
		for _, p := range phases {
			if p.name != name {
				continue
			}
			if p.instances == 1 {
				one = append(one, p.rate())
			} else {
				many = append(many, p.rate())
			}
		}
		if len(one) == 0 || len(one) != len(many) {
			continue // the phase was not measured (SEATFLOW_BENCH_PHASES)
		}
		var ratios []string
		var rs []float64
		for i := range one {
			ratios = append(ratios, fmt.Sprintf("%.2f", many[i]/one[i]))
			rs = append(rs, many[i]/one[i])
		}
		fmt.Fprintf(&b, "  %-9s %d instances / 1: median %.2f (rounds %s); median rates %.0f/s and %.0f/s\n", name, len(c.instances),
			median(rs), strings.Join(ratios, ", "), median(many), median(one))
		if name == "flash" {
			flashScale = median(rs)
		}
	}
	b.WriteString(flashGoals(phases, len(c.instances), flashScale))
	t.Log("\n" + b.String())
	writeBench(t, b.String())
}

// writeBench appends a benchmark's report to the run folder's bench.txt.
func writeBench(t *testing.T, s string) {
	if f, err := os.OpenFile(filepath.Join(runDir(), "bench.txt"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		f.WriteString(s + "\n")
		f.Close()
	} else {
		t.Log(err)
	}
}

// describeCounts is "k1 n1, k2 n2" sorted by key.
func describeCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// describeCPU is each process group's CPU time per ok answer, in µs.
func describeCPU(cpu map[string]time.Duration, ok int64) string {
	if ok == 0 {
		return "-"
	}
	keys := make([]string, 0, len(cpu))
	for k := range cpu {
		if k != "machine" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %.0f µs", k, float64(cpu[k].Microseconds())/float64(ok))
	}
	return strings.Join(parts, ", ")
}

// benchProcs are the processes whose CPU time a phase reports, by group: the
// instances (their pid files), nginx (master and workers), the cluster's Redis servers
// (their pid files: the cluster's nodes, asynq's pair, the one-master pair of the
// Redis benchmark) and this process (the load generator).
func benchProcs(t *testing.T) map[string][]int {
	out := map[string][]int{"loadgen": {os.Getpid()}}
	pidOf := func(file string) int {
		b, err := os.ReadFile(file)
		if err != nil {
			return 0
		}
		n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return n
	}
	files, _ := filepath.Glob(filepath.Join(runDir(), "instance-*.pid"))
	for _, f := range files {
		if p := pidOf(f); p > 0 {
			out["instances"] = append(out["instances"], p)
		}
	}
	files, _ = filepath.Glob(filepath.Join(runDir(), "redis", "*", "pid"))
	for _, f := range files {
		g := "redis" // the cluster's nodes, 7001-7006
		switch port := filepath.Base(filepath.Dir(f)); port {
		case "7010", "7011":
			g = "redis-asynq"
		case "7020", "7021":
			g = "redis-1master"
			if os.Getenv("SEATFLOW_BENCH_SINGLE_REDIS") != "" {
				g = "redis-1node" // the one plain node every instance uses (.ci/cluster/bench)
			}
		}
		if p := pidOf(f); p > 0 {
			out[g] = append(out[g], p)
		}
	}
	if master := pidOf(filepath.Join(runDir(), "nginx", "nginx.pid")); master > 0 {
		out["nginx"] = append(out["nginx"], master)
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", master, master)); err == nil {
			for _, f := range strings.Fields(string(b)) {
				if p, err := strconv.Atoi(f); err == nil {
					out["nginx"] = append(out["nginx"], p)
				}
			}
		}
	}
	return out
}

// cpuTimes is the user+system CPU time of each group's processes (/proc/<pid>/stat,
// clock ticks of 10 ms).
func cpuTimes(procs map[string][]int) map[string]time.Duration {
	out := map[string]time.Duration{}
	for g, pids := range procs {
		for _, p := range pids {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
			if err != nil {
				continue
			}
			s := string(b)
			f := strings.Fields(s[strings.LastIndex(s, ")")+2:])
			if len(f) < 13 {
				continue
			}
			u, _ := strconv.ParseInt(f[11], 10, 64)
			k, _ := strconv.ParseInt(f[12], 10, 64)
			out[g] += time.Duration(u+k) * 10 * time.Millisecond
		}
	}
	// the whole machine's busy time, so that a phase shows what else ran meanwhile
	if b, err := os.ReadFile("/proc/stat"); err == nil {
		f := strings.Fields(strings.SplitN(string(b), "\n", 2)[0])
		var busy int64
		for i, v := range f[1:] {
			if i == 3 || i == 4 { // idle, iowait
				continue
			}
			n, _ := strconv.ParseInt(v, 10, 64)
			busy += n
		}
		out["machine"] = time.Duration(busy) * 10 * time.Millisecond
	}
	return out
}

// describeMachine is the machine's CPUs busy during a phase, and how much of it was
// not the measured processes (MariaDB, other work on the machine).
func describeMachine(cpu map[string]time.Duration, elapsed time.Duration) string {
	var ours time.Duration
	for k, v := range cpu {
		if k != "machine" && k != "its master" { // its master is counted in redis too
			ours += v
		}
	}
	return fmt.Sprintf("machine busy %.2f CPUs, of which %.2f the measured processes and %.2f the rest (MariaDB, others)",
		cpu["machine"].Seconds()/elapsed.Seconds(), ours.Seconds()/elapsed.Seconds(), (cpu["machine"]-ours).Seconds()/elapsed.Seconds())
}
