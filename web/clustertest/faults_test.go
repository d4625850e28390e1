package clustertest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// faultCluster is newCluster for the fault tests, which also need
// SEATFLOW_CLUSTER_FAULTS=1 (make cluster-faults): they kill instances and Redis
// nodes of the running cluster, so make cluster-test leaves them out.
func faultCluster(t *testing.T) *cluster {
	if os.Getenv("SEATFLOW_CLUSTER_FAULTS") != "1" {
		t.Skip("SEATFLOW_CLUSTER_FAULTS is not 1: make cluster-up, then make cluster-faults")
	}
	c := newCluster(t)
	if !clusterHealthy(context.Background(), t) {
		t.Fatal("the Redis Cluster is not healthy before the fault")
	}
	return c
}

// faultConvergeBudget is how long after a fault's injection Redis must agree with MySQL
// for every show of the sale (the sale runs on for 4 s after the fault step).
const faultConvergeBudget = 10 * time.Second

// faultRun is what a fault test measured, for its report.
type faultRun struct {
	name      string
	faultAt   time.Time      // when the fault was injected
	faultTook time.Duration  // injection until the fault's own step was done (promotion, restart, slot moved)
	converged time.Duration  // injection until Redis agreed with MySQL for every show after reconciliation
	atRest    bool           // Redis already agreed when the sale stopped (converged is then the last repair's end)
	drift     map[string]int // what the first comparison after the sale found (no grace)
	rounds    int
}

// runFault runs a sale on saleShows shows, injects the fault after warm (the fault
// function returns when its own step is complete: a node promoted, an instance
// restarted, a slot moved), lets the sale run on for after, stops it, then runs
// reconciliation of each show through the admin API until Redis agrees with MySQL for
// every show (within faultConvergeBudget of the fault), and checks the history: no seat in two live orders, every acknowledged
// order, cancel and payment in MySQL as answered, no seat granted to two orders at
// overlapping times, no order half-held.
func runFault(t *testing.T, name string, fault func(ctx context.Context, c *cluster, s *sale) string) {
	c := faultCluster(t)
	ctx := context.Background()
	s := newSale(ctx, t, c, 10, 30, 120)
	admin := c.admin(ctx, c.fixtures(ctx))
	r := faultRun{name: name}
	s.start(ctx, t)
	time.Sleep(3 * time.Second)
	r.faultAt = time.Now()
	what := fault(ctx, c, s)
	r.faultTook = time.Since(r.faultAt)
	time.Sleep(4 * time.Second)
	s.finish()
	loadFor := time.Since(s.started)

	// convergence: reconcile every show and compare until all agree
	if !clusterHealthy(ctx, t) {
		waitFor(t, "cluster_state:ok on every node", time.Minute, func() bool { return clusterHealthy(ctx, t) })
	}
	r.drift = map[string]int{}
	for _, show := range s.shows {
		for _, f := range compareShow(ctx, t, c, show) {
			r.drift[f.Kind]++
		}
	}
	deadline := time.Now().Add(3 * time.Minute) // past the budget too, to report how long it took
	for {
		r.rounds++
		for _, show := range s.shows {
			c.reconcile(ctx, admin, show, false)
		}
		clean := true
		for _, show := range s.shows {
			if f := compareShow(ctx, t, c, show); len(f) > 0 {
				clean = false
				if time.Now().After(deadline) {
					t.Errorf("show %d still differs after %d reconciliation rounds: %s", show, r.rounds, describe(f))
				}
			}
		}
		if clean {
			r.converged = time.Since(r.faultAt)
			if r.rounds == 1 && len(r.drift) == 0 {
				// Redis already agreed when the sale stopped: it converged when the last
				// run that repaired these shows since the fault finished (the fault's own
				// runs), or when the fault step ended if nothing needed a repair
				r.converged = lastRepairSince(t, s, r.faultAt)
				if r.converged < r.faultTook {
					r.converged = r.faultTook
				}
				r.atRest = true
			}
			break
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(2 * time.Second)
	}

	switch {
	case r.converged == 0:
		t.Errorf("Redis never agreed with MySQL (%d rounds)", r.rounds)
	case r.converged > faultConvergeBudget:
		t.Errorf("Redis agreed with MySQL %s after the fault, want within %s", r.converged.Round(100*time.Millisecond), faultConvergeBudget)
	}

	checkLiveSeatsOnce(t, c.db, s.shows)
	checkHistoryInMySQL(t, c.db, s.shows, s.grants, s.unknownCreates)
	checkNoOverlappingHolds(t, s.grants)
	checkNoHalfHolds(t, c, s.grants)
	report(t, r, s, what, loadFor)
}

// report logs a fault's numbers in one block (and appends it to the run folder's
// faults.txt for make cluster-faults to print at the end).
func report(t *testing.T, r faultRun, s *sale, what string, loadFor time.Duration) {
	var sold int
	q := `SELECT COUNT(*) FROM order_seats os JOIN orders o ON o.id = os.order_id WHERE o.status = 'paid' AND os.show_id IN (?` +
		strings.Repeat(",?", len(s.shows)-1) + `)`
	args := make([]any, len(s.shows))
	for i, id := range s.shows {
		args[i] = id
	}
	if err := s.c.db.Get(&sold, q, args...); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "fault %s: %s\n", r.name, what)
	fmt.Fprintf(&b, "  load: %d buyers on %d shows for %s; %d requests, %d successes (2xx), %d unknown outcomes, %d creates unknown after their retries\n",
		len(s.buyers), len(s.shows), loadFor.Round(100*time.Millisecond), s.requests, s.successes, s.unknown, s.unknownCreates)
	fmt.Fprintf(&b, "  orders acknowledged %d, seats sold (paid) %d\n", len(s.grants), sold)
	if len(s.failures) > 0 {
		sort.Slice(s.failures, func(i, j int) bool { return s.failures[i].Before(s.failures[j]) })
		fmt.Fprintf(&b, "  lost or 5xx answers from %+.1fs to %+.1fs after the fault\n",
			s.failures[0].Sub(r.faultAt).Seconds(), s.failures[len(s.failures)-1].Sub(r.faultAt).Seconds())
	}
	how := "the test's reconciliation rounds after the sale"
	if r.atRest {
		how = "already agreeing when the sale stopped: the last repair of the fault's own runs"
	}
	fmt.Fprintf(&b, "  fault step done in %s; Redis agreed with MySQL %s after the fault (%s; %d rounds)\n",
		r.faultTook.Round(100*time.Millisecond), r.converged.Round(100*time.Millisecond), how, r.rounds)
	fmt.Fprintf(&b, "  Redis and MySQL differed after the sale by %v; reconciliation of these shows since the fault (every run, cron or admin): %s\n",
		r.drift, reconciledSince(t, s, r.faultAt))
	keys := make([]string, 0, len(s.codes))
	for k := range s.codes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "    %-44s %d\n", k, s.codes[k])
	}
	status := "checks passed"
	if t.Failed() {
		status = "CHECKS FAILED (see the test's errors)"
	}
	fmt.Fprintf(&b, "  %s: seats in two live orders, orders/payments not as answered, overlapping grants, half-held orders, Redis≠MySQL after reconciliation\n", status)
	t.Log("\n" + b.String())
	if f, err := os.OpenFile(filepath.Join(runDir(), "faults.txt"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		f.WriteString(b.String() + "\n")
		f.Close()
	}
}

// TestClusterFault_InstanceKilled kills one instance with SIGKILL mid-sale, runs on
// with the other two for two seconds, then starts it again (.ci/cluster/instance start).
func TestClusterFault_InstanceKilled(t *testing.T) {
	runFault(t, "a. instance killed", func(ctx context.Context, c *cluster, s *sale) string {
		n := fmt.Sprint(len(c.instances)/2 + 1)
		pid := killPidFile(t, filepath.Join(runDir(), "instance-"+n+".pid"))
		time.Sleep(2 * time.Second)
		script(t, "instance", "start", n)
		return fmt.Sprintf("kill -9 of instance %s (pid %d), started again 2 s later", n, pid)
	})
}

// TestClusterFault_ReplicaForcedFailover runs CLUSTER FAILOVER FORCE on the replica of
// the master holding the busy show's slot (no handshake with the master: writes not yet
// replicated are lost), and waits until the replica serves the slot.
func TestClusterFault_ReplicaForcedFailover(t *testing.T) {
	runFault(t, "b. forced failover", func(ctx context.Context, c *cluster, s *sale) string {
		slot, master, replicas := busyShard(ctx, t, c, s)
		if err := node(t, replicas[0]).Do(ctx, "CLUSTER", "FAILOVER", "FORCE").Err(); err != nil {
			t.Fatal(err)
		}
		took := waitFor(t, "the replica serves the slot", time.Minute, func() bool {
			m, _, ok := slotOwner(ctx, t, slot)
			return ok && m == replicas[0]
		})
		return fmt.Sprintf("CLUSTER FAILOVER FORCE on %s, replica of %s serving slot %d (show %d); promoted in %s",
			replicas[0], master, slot, s.shows[0], took.Round(100*time.Millisecond))
	})
}

// TestClusterFault_MasterKilled kills the master holding the busy show's slot with
// SIGKILL, waits until its replica is promoted (cluster-node-timeout, 2 s by default in
// .ci/cluster/redis), then starts the killed node again and waits until it is a
// replica of the new master.
func TestClusterFault_MasterKilled(t *testing.T) {
	runFault(t, "c. master killed", func(ctx context.Context, c *cluster, s *sale) string {
		slot, master, _ := busyShard(ctx, t, c, s)
		port := master[strings.LastIndex(master, ":")+1:]
		pid := killPidFile(t, filepath.Join(runDir(), "redis", port, "pid"))
		promoted := waitFor(t, "a replica serves the slot", time.Minute, func() bool {
			m, _, ok := slotOwner(ctx, t, slot, master)
			return ok && m != master
		})
		newMaster, _, _ := slotOwner(ctx, t, slot, master)
		script(t, "redis", "restart", port)
		rejoined := waitFor(t, "the killed master rejoins as a replica", time.Minute, func() bool {
			return role(ctx, t, master) == "slave" && clusterHealthy(ctx, t)
		})
		return fmt.Sprintf("kill -9 of master %s (pid %d) serving slot %d (show %d); %s promoted in %s; the old master restarted and rejoined as a replica %s later",
			master, pid, slot, s.shows[0], newMaster, promoted.Round(100*time.Millisecond), rejoined.Round(100*time.Millisecond))
	})
}

// TestClusterFault_SlotMigrated moves the busy show's slot to another master during
// the sale at the pace of redis-cli --cluster reshard (MOVED, ASK and TRYAGAIN for the
// show's scripts while the slot is open).
func TestClusterFault_SlotMigrated(t *testing.T) {
	runFault(t, "d. slot migrated", func(ctx context.Context, c *cluster, s *sale) string {
		slot := showSlot(ctx, t, c, s.shows[0])
		src, _, ok := slotOwner(ctx, t, slot)
		if !ok {
			t.Fatalf("slot %d has no master", slot)
		}
		var dst string
		for _, m := range masters(ctx, t) {
			if m != src {
				dst = m
				break
			}
		}
		t0 := time.Now()
		moved, kinds := migrateSlot(ctx, t, slot, src, dst, slotBatch, slotPause)
		took := time.Since(t0)
		waitFor(t, "every node sees the slot on its new master", 30*time.Second, func() bool {
			m, _, ok := slotOwner(ctx, t, slot)
			return ok && m == dst
		})
		names := make([]string, 0, len(kinds))
		for k := range kinds {
			names = append(names, k)
		}
		sort.Slice(names, func(i, j int) bool {
			return kinds[names[i]] > kinds[names[j]] || kinds[names[i]] == kinds[names[j]] && names[i] < names[j]
		})
		for i, k := range names {
			names[i] = fmt.Sprintf("%s %d", k, kinds[k])
		}
		return fmt.Sprintf("slot %d (show %d) migrated from %s to %s: %d keys (%s), %d per MIGRATE, %s between, in %s",
			slot, s.shows[0], src, dst, moved, strings.Join(names, ", "), slotBatch, slotPause, took.Round(100*time.Millisecond))
	})
}

// slotBatch and slotPause are the slot move's pace: redis-cli --cluster reshard's
// default pipeline (10 keys per MIGRATE) and no pause.
const (
	slotBatch               = 10
	slotPause time.Duration = 0
)

// reconciledSince lists what reconciliation runs (any trigger, not dry) found and fixed
// on the sale's shows since t: "kind found/fixed, ...".
func reconciledSince(t *testing.T, s *sale, since time.Time) string {
	q, args, err := sqlx.In(`SELECT f.kind, COUNT(*) AS found, SUM(f.fixed) AS fixed FROM reconcile_findings f
		JOIN reconcile_runs r ON r.id = f.run_id WHERE r.dry_run = 0 AND r.started_at >= ? AND f.show_id IN (?)
		GROUP BY f.kind ORDER BY f.kind`, since.UTC(), s.shows)
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Kind  string `db:"kind"`
		Found int    `db:"found"`
		Fixed int    `db:"fixed"`
	}
	if err := s.c.db.Select(&rows, s.c.db.Rebind(q), args...); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		return "nothing found"
	}
	parts := make([]string, len(rows))
	for i, r := range rows {
		parts[i] = fmt.Sprintf("%s %d found/%d fixed", r.Kind, r.Found, r.Fixed)
	}
	return strings.Join(parts, ", ")
}

// lastRepairSince is how long after since the last reconciliation run (not dry) that
// fixed something on the sale's shows finished; 0 when none did.
func lastRepairSince(t *testing.T, s *sale, since time.Time) time.Duration {
	q, args, err := sqlx.In(`SELECT MAX(r.finished_at) FROM reconcile_runs r JOIN reconcile_findings f ON f.run_id = r.id
		WHERE r.dry_run = 0 AND r.started_at >= ? AND f.fixed = 1 AND f.show_id IN (?)`, since.UTC(), s.shows)
	if err != nil {
		t.Fatal(err)
	}
	var last sql.NullTime
	if err := s.c.db.Get(&last, s.c.db.Rebind(q), args...); err != nil {
		t.Fatal(err)
	}
	if !last.Valid {
		return 0
	}
	return last.Time.Sub(since)
}
