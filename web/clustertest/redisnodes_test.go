package clustertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// nodeSample is one Redis server of the run folder at one moment: its port, its role
// (master, replica; asynq's pair is named so), its CPU time (user+system from
// /proc/<pid>/stat) and its INFO commandstats (calls and µs inside each command).
type nodeSample struct {
	port  string
	role  string
	cpu   time.Duration
	calls map[string]int64
	usec  map[string]int64
}

// sampleNodes reads every Redis server of the run folder (its redis/<port>/pid files):
// the cluster's nodes, asynq's pair and, when it runs, the one-master pair. A server
// that does not answer is left out.
func sampleNodes(ctx context.Context) map[string]nodeSample {
	out := map[string]nodeSample{}
	files, _ := filepath.Glob(filepath.Join(runDir(), "redis", "*", "pid"))
	for _, f := range files {
		port := filepath.Base(filepath.Dir(f))
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		s := nodeSample{port: port, calls: map[string]int64{}, usec: map[string]int64{}}
		s.cpu = cpuTimes(map[string][]int{"p": {pid}})["p"]
		rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + port, PoolSize: 1, MaxRetries: -1})
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		info, err := rdb.Info(cctx, "replication", "commandstats").Result()
		cancel()
		rdb.Close()
		if err != nil {
			continue
		}
		for _, line := range strings.Split(info, "\n") {
			line = strings.TrimSpace(line)
			switch {
			case strings.HasPrefix(line, "role:"):
				s.role = strings.TrimPrefix(line, "role:")
				if s.role == "slave" {
					s.role = "replica"
				}
			case strings.HasPrefix(line, "cmdstat_"):
				// cmdstat_evalsha:calls=3,usec=120,usec_per_call=40.00,...
				name, rest, _ := strings.Cut(strings.TrimPrefix(line, "cmdstat_"), ":")
				for _, kv := range strings.Split(rest, ",") {
					k, v, _ := strings.Cut(kv, "=")
					n, _ := strconv.ParseInt(v, 10, 64)
					switch k {
					case "calls":
						s.calls[name] = n
					case "usec":
						s.usec[name] = n
					}
				}
			}
		}
		switch port {
		case "7010", "7011":
			s.role = "asynq " + s.role
		case "7020", "7021":
			s.role = "one-master pair " + s.role
			if os.Getenv("SEATFLOW_BENCH_SINGLE_REDIS") != "" {
				s.role = "one node"
			}
		}
		out[port] = s
	}
	return out
}

// describeNodes is each Redis server's share of a phase per ok answer: its CPU time
// (µs), how much of it INFO commandstats accounts for (time inside commands; the rest
// is reading and writing sockets, replication, the AOF and the cluster bus), and its
// busiest commands with their calls and µs per ok answer. One line a server, sorted by
// port, then the sums by role.
func describeNodes(before, after map[string]nodeSample, ok int64) string {
	if ok == 0 || len(after) == 0 {
		return ""
	}
	ports := make([]string, 0, len(after))
	for p := range after {
		if _, seen := before[p]; seen {
			ports = append(ports, p)
		}
	}
	sort.Strings(ports)
	per := func(v float64) float64 { return v / float64(ok) }
	byRole := map[string]float64{}
	var b strings.Builder
	for _, p := range ports {
		a, z := before[p], after[p]
		cpu := per(float64((z.cpu - a.cpu).Microseconds()))
		byRole[z.role] += cpu
		type cmd struct {
			name  string
			calls int64
			usec  int64
		}
		var cmds []cmd
		var inside int64
		for name, n := range z.calls {
			if d := n - a.calls[name]; d > 0 {
				u := z.usec[name] - a.usec[name]
				cmds = append(cmds, cmd{name, d, u})
				inside += u
			}
		}
		if cpu == 0 && len(cmds) == 0 {
			continue
		}
		sort.Slice(cmds, func(i, j int) bool {
			if cmds[i].usec != cmds[j].usec {
				return cmds[i].usec > cmds[j].usec
			}
			return cmds[i].calls > cmds[j].calls
		})
		var parts []string
		for i, c := range cmds {
			if i == 8 {
				break
			}
			parts = append(parts, fmt.Sprintf("%s %.2f×/%.1f µs", c.name, per(float64(c.calls)), per(float64(c.usec))))
		}
		fmt.Fprintf(&b, "        redis %s %-14s %6.1f µs cpu, %5.1f µs in commands: %s\n", p, z.role, cpu, per(float64(inside)), strings.Join(parts, ", "))
	}
	roles := make([]string, 0, len(byRole))
	for r := range byRole {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	var sums []string
	for _, r := range roles {
		sums = append(sums, fmt.Sprintf("%s %.0f µs", r, byRole[r]))
	}
	fmt.Fprintf(&b, "        redis cpu per ok answer, summed by role: %s", strings.Join(sums, ", "))
	return b.String()
}
