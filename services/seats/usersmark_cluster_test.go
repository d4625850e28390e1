package seats_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"seatflow/services/internal/testenv"
	"seatflow/services/seats"
)

// timeCalls is how many TIME commands the node at addr has run (INFO commandstats).
func timeCalls(t *testing.T, ctx context.Context, addr string) int64 {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	info, err := c.Info(ctx, "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_time:calls="); ok {
			n, _ := strconv.ParseInt(rest[:strings.IndexByte(rest, ',')], 10, 64)
			return n
		}
	}
	return 0
}

// TestUsersMark_ReadsTheShowsMasterClock: on a Redis Cluster, UsersMark reads Redis's
// clock on the master of the show's slot, where the marker was written, in the same
// round trip as the marker, never on another master (TIME has no key, and the cluster
// client alone sends it to a random master: a second round trip, and another machine's
// clock). Twelve shows spread over three masters: a TIME on any other master fails it.
func TestUsersMark_ReadsTheShowsMasterClock(t *testing.T) {
	addrs := testenv.StartRedisCluster(t, 3)
	cc := testenv.NewClusterClient(t, addrs)
	ctx := context.Background()
	s := seats.NewSeatStore(cc, nil, nil, "sf")
	for _, tc := range []struct {
		name   string
		marker string // "" leaves the per-user counts missing
	}{
		{"marker missing", ""},
		{"marker set", "1796356142000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for show := int64(1); show <= 12; show++ {
				key := s.Keys(show)[2]
				if tc.marker != "" {
					if err := cc.HSet(ctx, key, "_", tc.marker).Err(); err != nil {
						t.Fatal(err)
					}
				}
				master, err := cc.MasterForKey(ctx, key)
				if err != nil {
					t.Fatal(err)
				}
				before := map[string]int64{}
				for _, a := range addrs {
					before[a] = timeCalls(t, ctx, a)
				}
				mark, now, err := s.UsersMark(ctx, show)
				if err != nil {
					t.Fatalf("show %d: %v", show, err)
				}
				if mark != tc.marker || now.IsZero() {
					t.Fatalf("show %d: marker %q, clock %v; want %q and Redis's clock", show, mark, now, tc.marker)
				}
				for _, a := range addrs {
					want := before[a]
					if a == master.Options().Addr {
						want++
					}
					if got := timeCalls(t, ctx, a); got != want {
						t.Errorf("show %d (slot's master %s): %s ran %d TIME, want %d", show, master.Options().Addr, a, got-before[a], want-before[a])
					}
				}
			}
		})
	}
}
