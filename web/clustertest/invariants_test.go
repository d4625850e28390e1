package clustertest

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"seatflow/services/seats"
)

// compareShow compares a show's seat map in Redis with MySQL by the comparison
// reconciliation repairs by (seats.CompareSeatCache), with no grace: at rest nothing is
// in flight. Findings are read twice a second apart and only those seen both times are
// returned, so an expiry committing between its MySQL and Redis steps is not drift. A
// show without a seat map in Redis has nothing to compare.
func compareShow(ctx context.Context, t *testing.T, c *cluster, showID int64) []seats.Finding {
	t.Helper()
	read := func() ([]seats.Finding, bool) {
		show, err := c.catalog.Show(ctx, showID)
		if err != nil {
			t.Fatal(err)
		}
		cache, err := c.seats.ReadCache(ctx, showID)
		if err != nil {
			t.Fatal(err)
		}
		if cache.Seats == nil {
			return nil, false
		}
		truth, err := c.seats.SnapshotFromDB(ctx, show)
		if err != nil {
			t.Fatal(err)
		}
		hall, err := c.catalog.Hall(ctx, show.HallID)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := seats.CompareSeatCache(seats.SeatComparison{ShowID: showID, Truth: truth, Cache: cache, ZoneOf: seats.ZoneOf(hall), Now: time.Now()})
		return f, true
	}
	first, ok := read()
	if !ok || len(first) == 0 {
		return nil
	}
	time.Sleep(time.Second)
	again, _ := read()
	seen := map[string]bool{}
	for _, f := range first {
		seen[f.Kind+"/"+strconv.FormatInt(f.SeatID, 10)] = true
	}
	var out []seats.Finding
	for _, f := range again {
		if seen[f.Kind+"/"+strconv.FormatInt(f.SeatID, 10)] {
			out = append(out, f)
		}
	}
	return out
}

// describe lists up to five findings for a failure message.
func describe(fs []seats.Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d findings:", len(fs))
	for i, f := range fs {
		if i == 5 {
			b.WriteString(" ...")
			break
		}
		fmt.Fprintf(&b, " [%s seat %d order %q: %s]", f.Kind, f.SeatID, f.OrderNo, f.Detail)
	}
	return b.String()
}

// seatMaps scans every Redis master (every node of a single Redis) for the shows that
// have a seat map, and returns them with the master that holds each.
func seatMaps(ctx context.Context, t *testing.T, c *cluster) map[int64]string {
	t.Helper()
	prefix := c.seats.Keys(0)[0]
	prefix = prefix[:strings.Index(prefix, "{")]
	out := map[int64]string{}
	scan := func(ctx context.Context, node *redis.Client) error {
		it := node.Scan(ctx, 0, prefix+"{show:*}:seats", 1000).Iterator()
		for it.Next(ctx) {
			k := it.Val()
			id, err := strconv.ParseInt(k[len(prefix)+len("{show:"):strings.Index(k, "}")], 10, 64)
			if err != nil {
				return fmt.Errorf("seat map key %q: %w", k, err)
			}
			out[id] = node.Options().Addr
		}
		return it.Err()
	}
	var err error
	switch r := c.rdb.(type) {
	case *redis.ClusterClient:
		var mu = make(chan struct{}, 1)
		err = r.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
			mu <- struct{}{}
			defer func() { <-mu }()
			return scan(ctx, node)
		})
	case *redis.Client:
		err = scan(ctx, r)
	default:
		t.Fatalf("unexpected Redis client %T", c.rdb)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCluster_Invariants checks every show of the cluster's database against MySQL and
// every Redis master: no seat in two live orders and every live flag right (invariant
// 1), then for every seat map found on a master, its seats, zone counts and per-user
// counts equal to what MySQL implies (invariant 3) before and after a reconciliation
// run of every show through the admin API, and nobody over a purchase limit.
func TestCluster_Invariants(t *testing.T) {
	c := newCluster(t)
	ctx := context.Background()
	var shows []int64
	if err := c.db.Select(&shows, "SELECT id FROM shows ORDER BY id"); err != nil {
		t.Fatal(err)
	}
	if len(shows) == 0 {
		t.Fatal("the cluster's database has no shows: was it seeded?")
	}
	checkLiveSeatsOnce(t, c.db, shows)
	var over int
	if err := c.db.Get(&over, `SELECT COUNT(*) FROM (SELECT o.user_id FROM order_seats os JOIN orders o ON o.id = os.order_id
		JOIN shows s ON s.id = os.show_id WHERE os.live = 1 GROUP BY os.show_id, o.user_id, s.purchase_limit
		HAVING COUNT(*) > s.purchase_limit) x`); err != nil {
		t.Fatal(err)
	}
	if over != 0 {
		t.Errorf("%d buyers hold or own more seats of a show than its purchase limit", over)
	}
	maps := seatMaps(ctx, t, c)
	perNode := map[string]int{}
	ids := make([]int64, 0, len(maps))
	for id, node := range maps {
		perNode[node]++
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	t.Logf("%d shows in MySQL, %d seat maps in Redis", len(shows), len(maps))
	logCounts(t, "seat maps on", perNode)
	before := 0
	for _, id := range ids {
		if f := compareShow(ctx, t, c, id); len(f) > 0 {
			before++
			t.Errorf("show %d (on %s) before reconciliation: %s", id, maps[id], describe(f))
		}
	}
	admin := c.admin(ctx, c.fixtures(ctx))
	found := c.reconcile(ctx, admin, 0, false)
	kinds := map[string]int{}
	for _, f := range found {
		kinds[f.Kind]++
	}
	t.Logf("reconciliation of every show through the admin API: %d findings %v", len(found), kinds)
	for _, f := range found {
		if f.Kind != seats.FindingMissingMap { // a show on sale whose map nobody loaded yet
			t.Errorf("reconciliation found drift at rest: %s", describe([]seats.Finding{f}))
		}
	}
	for id := range seatMaps(ctx, t, c) {
		if f := compareShow(ctx, t, c, id); len(f) > 0 {
			t.Errorf("show %d after reconciliation: %s", id, describe(f))
		}
	}
}
