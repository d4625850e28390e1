package clustertest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The scale-out goals of the flash sale (make cluster-bench): Redis CPU per created
// order in the cluster (masters, replicas and asynq's pair) at most redisClusterGoal
// times one plain node's under the same load, and 3 instances at least
// flashScaleGoal times one at flashScaleQuota CPU each.
const (
	redisClusterGoal = 2.0
	flashScaleGoal   = 2.5
	flashScaleQuota  = "0.15"
)

// passMiss is "PASS" when ok, else "MISS".
func passMiss(ok bool) string {
	if ok {
		return "PASS"
	}
	return "MISS"
}

// redisPerOrder is the Redis CPU (µs) a phase spent per ok answer on the servers that
// hold the order path's data: with one plain node (SEATFLOW_BENCH_SINGLE_REDIS) that
// node, otherwise the cluster's masters and replicas and asynq's pair. The other
// servers of the run folder idle meanwhile and are not counted.
func redisPerOrder(p *phase) float64 {
	if p.ok == 0 {
		return 0
	}
	single := os.Getenv("SEATFLOW_BENCH_SINGLE_REDIS") != ""
	var us float64
	for port, z := range p.nodes1 {
		a, seen := p.nodes0[port]
		if !seen {
			continue
		}
		counted := z.role == "one node"
		if !single {
			counted = z.role == "master" || z.role == "replica" || strings.HasPrefix(z.role, "asynq ")
		}
		if counted {
			us += float64((z.cpu - a.cpu).Microseconds())
		}
	}
	return us / float64(p.ok)
}

// flashGoals is the report's goal lines for the flash phases of all instances: the
// scale-out ratio (at flashScaleQuota only) and the Redis CPU per created order. The
// cluster's figure is kept in the run folder (flash-redis-cluster), so the later run on
// one node compares with it at the same instance quota.
func flashGoals(phases []*phase, instances int, scale float64) string {
	var per []float64
	for _, p := range phases {
		if p.name == "flash" && p.instances == instances {
			per = append(per, redisPerOrder(p))
		}
	}
	if len(per) == 0 {
		return ""
	}
	quota := env("CLUSTER_CPU_QUOTA", "none")
	mine := median(per)
	var b strings.Builder
	if os.Getenv("SEATFLOW_BENCH_SINGLE_REDIS") == "" {
		if quota == flashScaleQuota && scale > 0 {
			fmt.Fprintf(&b, "  GOAL flash sale %d instances / 1 at %s CPU each: %.2fx (goal >= %.1fx): %s\n", instances, quota, scale,
				flashScaleGoal, passMiss(scale >= flashScaleGoal))
		}
		fmt.Fprintf(&b, "  flash sale, %d instances: Redis CPU per created order %.0f µs (masters, replicas, asynq's pair; median of %d)\n",
			instances, mine, len(per))
		_ = os.WriteFile(filepath.Join(runDir(), "flash-redis-cluster"), []byte(quota+" "+strconv.FormatFloat(mine, 'f', 1, 64)), 0o644)
		return b.String()
	}
	fmt.Fprintf(&b, "  flash sale, %d instances on one node: Redis CPU per created order %.0f µs (median of %d)\n", instances, mine, len(per))
	saved, err := os.ReadFile(filepath.Join(runDir(), "flash-redis-cluster"))
	q, v, _ := strings.Cut(string(saved), " ")
	cluster, perr := strconv.ParseFloat(v, 64)
	switch {
	case err != nil || perr != nil:
		fmt.Fprintf(&b, "  GOAL Redis per created order, cluster / one node: no cluster figure in this run folder (run the cluster part first)\n")
	case q != quota:
		fmt.Fprintf(&b, "  GOAL Redis per created order, cluster / one node: the cluster was measured at %s CPU per instance, this at %s: not compared\n", q, quota)
	case mine > 0:
		fmt.Fprintf(&b, "  GOAL Redis per created order, cluster / one node: %.0f / %.0f µs = %.2fx (goal <= %.1fx): %s\n", cluster, mine,
			cluster/mine, redisClusterGoal, passMiss(cluster/mine <= redisClusterGoal))
	}
	return b.String()
}
