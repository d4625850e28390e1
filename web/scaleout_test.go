package web

import (
	"context"
	"strconv"
	"sync"
	"testing"
)

// TestScaleOut_TwoInstancesNeverSellASeatTwice races 200 buyers through two app
// instances that share MySQL and Redis (as two processes behind a load balancer would)
// for the same 8 seats, then checks invariant 1 in MySQL and that Redis agrees with
// MySQL seat by seat (invariant 3).
func TestScaleOut_TwoInstancesNeverSellASeatTwice(t *testing.T) {
	a := newTestApp(t, func(c *Config) {
		c.RateShowPerSecond, c.RateShowBurst = 100000, 100000
		c.RateRegisterPerMinute, c.RateRegisterBurst = 100000, 100000
	})
	_, bBase := otherInstance(t, a.Cfg, a.clock)
	bases := []string{a.base, bBase}

	show, seats := a.onSaleShow(8)
	const buyers = 200
	tokens := make([]string, buyers)
	for i := range tokens {
		tokens[i] = a.newUser()
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	start := make(chan struct{})
	for i := 0; i < buyers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			// overlapping pairs of the 8 seats, alternating instances
			pick := []string{seats[i%8], seats[(i+1)%8]}
			r := a.doAt(bases[i%2], "POST", "/api/v1/shows/"+show+"/orders", tokens[i], map[string]any{"seat_ids": pick})
			mu.Lock()
			statuses[r.status]++
			mu.Unlock()
		}(i)
	}
	close(start)
	wg.Wait()
	t.Logf("200 buyers on 8 seats through 2 instances: %v", statuses)
	if statuses[201] < 1 || statuses[201] > 4 || statuses[201]+statuses[409] != buyers {
		t.Errorf("answers %v: want 1..4 orders of 2 seats and SEAT_TAKEN for the rest", statuses)
	}
	var dup int
	if err := a.DB.Get(&dup, `SELECT COUNT(*) FROM (SELECT seat_id FROM order_seats os JOIN orders o ON o.id = os.order_id
		WHERE os.show_id = ? AND o.status IN ('pending','paid') GROUP BY seat_id HAVING COUNT(*) > 1) d`, show); err != nil {
		t.Fatal(err)
	}
	if dup != 0 {
		t.Errorf("invariant 1: %d seats in more than one live order", dup)
	}
	id, _ := strconv.ParseInt(show, 10, 64)
	sh, err := a.Catalog.Show(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := a.Seats.SnapshotFromDB(context.Background(), sh)
	if err != nil {
		t.Fatal(err)
	}
	got := a.Redis.HGetAll(context.Background(), a.Seats.Keys(id)[0]).Val()
	for seat, want := range snap.Values {
		if g := got[strconv.FormatInt(seat, 10)]; g != want {
			t.Errorf("invariant 3: seat %d is %q in Redis, %q in MySQL", seat, g, want)
		}
	}
}
