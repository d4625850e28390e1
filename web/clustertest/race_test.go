package clustertest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services/seats"
	"seatflow/web/loadtest"
)

// grant is one order a buyer was told was created (201), and what the buyer did and
// was told afterwards: the history the final state is checked against.
// grantOf is the grant an order's creation answered (201, or 200 for a replay of its
// Idempotency-Key): its number, total and seats; nil when a has no order.
func grantOf(show, buyer int64, a answer) *grant {
	var o struct {
		OrderNo    string `json:"order_no"`
		TotalMinor int64  `json:"total_minor"`
		Seats      []struct {
			ID string `json:"id"`
		} `json:"seats"`
	}
	if err := json.Unmarshal(a.body, &o); err != nil || o.OrderNo == "" {
		return nil
	}
	g := &grant{show: show, buyer: buyer, orderNo: o.OrderNo, total: o.TotalMinor, created: a}
	for _, st := range o.Seats {
		id, _ := strconv.ParseInt(st.ID, 10, 64)
		g.seats = append(g.seats, id)
	}
	return g
}

type grant struct {
	show, buyer int64
	orderNo     string
	seats       []int64
	total       int64
	created     answer    // the 201
	cancelSent  time.Time // when a cancel was sent (zero: never)
	cancelled   bool      // a cancel answered 200 "cancelled"
	payStarted  bool      // a payment was started and its approval accepted by the webhook
	payUnknown  bool      // an approval was sent but its answer was lost (it may have paid)
	paidSeen    bool      // the order was read back "paid" afterwards
}

// holdsUntil is when the buyer's hold stops being certain: the moment a cancel was
// sent, or never.
func (g *grant) holdsUntil() time.Time {
	if g.cancelSent.IsZero() {
		return time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return g.cancelSent
}

// TestCluster_RaceOverlappingHolds sends raceBuyers buyers, each raceRounds times,
// through the balancer at overlapping blocks of the first hotSeats seats of raceShows
// shows; a buyer who gets an order cancels it, pays it (the webhook through the
// balancer too, so often to another instance) or keeps it. Afterwards: every instance
// served, no seat is in two live orders, every acknowledged order, cancel and payment
// is in MySQL as answered and no order exists that nobody was told of, no two buyers
// held a seat at overlapping times, no order is half-held in Redis, and Redis agrees
// with MySQL before and after a reconciliation run through the admin API.
func TestCluster_RaceOverlappingHolds(t *testing.T) {
	c := newCluster(t)
	ctx := context.Background()
	const (
		raceShows  = 4
		raceBuyers = 300
		raceRounds = 5
		hotSeats   = 24
		limit      = 4
	)
	fx := c.fixtures(ctx)
	hall, err := fx.NewHall(ctx, "race", 4, 10)
	if err != nil {
		t.Fatal(err)
	}
	shows := make([]int64, raceShows)
	for i := range shows {
		if shows[i], err = fx.NewShow(ctx, hall, limit); err != nil {
			t.Fatal(err)
		}
	}
	buyers, err := fx.NewVisitors(ctx, shows[0], raceBuyers)
	if err != nil {
		t.Fatal(err)
	}
	admin := c.admin(ctx, fx)

	var mu sync.Mutex
	var grants []*grant
	codes := map[string]int{}
	upstreams := map[string]int{}
	createErrors := 0
	note := func(what string, a answer) {
		mu.Lock()
		defer mu.Unlock()
		if a.upstream != "" {
			upstreams[a.upstream]++
		}
		switch {
		case a.err != nil:
			codes[what+" error"]++
		case a.status >= 300:
			codes[fmt.Sprintf("%s %d %s", what, a.status, a.code())]++
		default:
			codes[fmt.Sprintf("%s %d", what, a.status)]++
		}
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, b := range buyers {
		wg.Add(1)
		go func(i int, b loadtest.Buyer) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			<-start
			for r := 0; r < raceRounds; r++ {
				show := shows[rng.IntN(len(shows))]
				n := 1 + rng.IntN(3)
				k := rng.IntN(hotSeats - n + 1)
				ids := make([]string, n)
				for j := range ids {
					ids[j] = strconv.FormatInt(hall.Seats[k+j].ID, 10)
				}
				a := c.do(ctx, c.base, "POST", fmt.Sprintf("/api/v1/shows/%d/orders", show), b.Token,
					map[string]any{"seat_ids": ids}, "Idempotency-Key", fmt.Sprintf("race-%d-%d", i, r))
				note("create", a)
				if a.err != nil {
					mu.Lock()
					createErrors++
					mu.Unlock()
					continue
				}
				if a.status != http.StatusCreated {
					continue
				}
				g := grantOf(show, b.ID, a)
				if g == nil {
					t.Errorf("201 without an order: %s", a.body)
					continue
				}
				switch p := rng.Float64(); {
				case p < 0.6:
					g.cancelSent = time.Now()
					a := c.do(ctx, c.base, "POST", "/api/v1/orders/"+g.orderNo+"/cancel", b.Token, nil)
					note("cancel", a)
					g.cancelled = a.err == nil && a.status == http.StatusOK && jsonStatus(a.body) == "cancelled"
				case p < 0.9:
					a := c.do(ctx, c.base, "POST", "/api/v1/orders/"+g.orderNo+"/pay", b.Token, nil)
					note("pay", a)
					var pay struct {
						PaymentID string `json:"payment_id"`
					}
					if a.err != nil || a.status != http.StatusOK || json.Unmarshal(a.body, &pay) != nil {
						break
					}
					w := c.webhook(ctx, pay.PaymentID, g.total)
					note("webhook", w)
					g.payStarted = w.err == nil && w.status == http.StatusOK
					if g.payStarted {
						rd := c.do(ctx, c.base, "GET", "/api/v1/orders/"+g.orderNo, b.Token, nil)
						note("read", rd)
						g.paidSeen = rd.err == nil && rd.status == http.StatusOK && jsonStatus(rd.body) == "paid"
					}
				}
				mu.Lock()
				grants = append(grants, g)
				mu.Unlock()
			}
		}(i, b)
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	t.Logf("%d buyers x %d rounds on %d shows (%d hot seats) through %s in %s: %d orders created",
		raceBuyers, raceRounds, raceShows, hotSeats, c.base, time.Since(t0).Round(time.Millisecond), len(grants))
	logCounts(t, "answers", codes)
	logCounts(t, "served by", upstreams)
	for _, in := range c.instances {
		if upstreams[in[len("http://"):]] == 0 {
			t.Errorf("instance %s served none of the requests: %v", in, upstreams)
		}
	}
	if len(grants) == 0 {
		t.Fatal("no order was created at all")
	}

	checkLiveSeatsOnce(t, c.db, shows)
	checkHistoryInMySQL(t, c.db, shows, grants, createErrors)
	checkNoOverlappingHolds(t, grants)
	checkNoHalfHolds(t, c, grants)
	for _, show := range shows {
		if f := compareShow(ctx, t, c, show); len(f) > 0 {
			t.Errorf("show %d before reconciliation: Redis and MySQL differ: %s", show, describe(f))
		}
		if f := c.reconcile(ctx, admin, show, false); len(f) > 0 {
			t.Errorf("show %d: reconciliation found drift at rest: %s", show, describe(f))
		}
		if f := compareShow(ctx, t, c, show); len(f) > 0 {
			t.Errorf("show %d after reconciliation: Redis and MySQL differ: %s", show, describe(f))
		}
	}
}

// jsonStatus is the "status" field of a JSON body ("" when none).
func jsonStatus(body []byte) string {
	var o struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(body, &o)
	return o.Status
}

// logCounts logs a count per key, keys sorted.
func logCounts(t *testing.T, what string, m map[string]int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("  %s %-40s %d", what, k, m[k])
	}
}

// checkLiveSeatsOnce checks invariant 1 in MySQL for the shows: no seat in two live
// orders, and every order seat's live flag matching its order's status.
func checkLiveSeatsOnce(t *testing.T, db *sqlx.DB, shows []int64) {
	t.Helper()
	q, args, err := sqlx.In(`SELECT COUNT(*) FROM (SELECT os.show_id, os.seat_id FROM order_seats os JOIN orders o ON o.id = os.order_id
		WHERE os.show_id IN (?) AND o.status IN ('pending','paid') GROUP BY os.show_id, os.seat_id HAVING COUNT(*) > 1) d`, shows)
	if err != nil {
		t.Fatal(err)
	}
	var dup, flag int
	if err := db.Get(&dup, db.Rebind(q), args...); err != nil {
		t.Fatal(err)
	}
	q, args, _ = sqlx.In(`SELECT COUNT(*) FROM order_seats os JOIN orders o ON o.id = os.order_id
		WHERE os.show_id IN (?) AND ((o.status IN ('pending','paid')) <> (os.live IS NOT NULL))`, shows)
	if err := db.Get(&flag, db.Rebind(q), args...); err != nil {
		t.Fatal(err)
	}
	if dup != 0 {
		t.Errorf("invariant 1: %d seats are in more than one live order", dup)
	}
	if flag != 0 {
		t.Errorf("%d order seats have a live flag that disagrees with their order's status", flag)
	}
}

// checkHistoryInMySQL checks that nothing acknowledged is lost: every order answered 201
// is in MySQL with the seats answered, a cancel answered "cancelled" left it cancelled,
// an order read back "paid" is paid, and an order nobody cancelled or paid is still
// pending (or paid, when its payment was accepted). With no create lost to a transport
// error, no order may exist that its buyer was not told of.
func checkHistoryInMySQL(t *testing.T, db *sqlx.DB, shows []int64, grants []*grant, createErrors int) {
	t.Helper()
	q, args, err := sqlx.In(`SELECT o.order_no, o.status, os.seat_id FROM orders o JOIN order_seats os ON os.order_id = o.id
		WHERE o.show_id IN (?) ORDER BY o.order_no, os.seat_id`, shows)
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		OrderNo string `db:"order_no"`
		Status  string `db:"status"`
		SeatID  int64  `db:"seat_id"`
	}
	if err := db.Select(&rows, db.Rebind(q), args...); err != nil {
		t.Fatal(err)
	}
	status := map[string]string{}
	seatsOf := map[string][]int64{}
	for _, r := range rows {
		status[r.OrderNo] = r.Status
		seatsOf[r.OrderNo] = append(seatsOf[r.OrderNo], r.SeatID)
	}
	lost := 0
	told := map[string]bool{}
	for _, g := range grants {
		told[g.orderNo] = true
		st, ok := status[g.orderNo]
		want := []string{"pending"}
		switch {
		case g.cancelled:
			want = []string{"cancelled"}
		case g.paidSeen:
			want = []string{"paid"}
		case g.payStarted || g.payUnknown || !g.cancelSent.IsZero():
			want = []string{"pending", "paid", "cancelled"}
		}
		got := append([]int64(nil), g.seats...)
		sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
		if !ok || !slices.Contains(want, st) || fmt.Sprint(got) != fmt.Sprint(seatsOf[g.orderNo]) {
			lost++
			if lost <= 10 {
				t.Errorf("order %s (show %d): answered with seats %v; MySQL has status %q (want one of %v) and seats %v",
					g.orderNo, g.show, got, st, want, seatsOf[g.orderNo])
			}
		}
	}
	unknown := 0
	for no := range status {
		if !told[no] {
			unknown++
		}
	}
	t.Logf("history: %d acknowledged orders checked against MySQL, %d not as answered; %d orders in MySQL nobody was told of (%d creates without an answer)",
		len(grants), lost, unknown, createErrors)
	if unknown > createErrors {
		t.Errorf("%d orders exist that no buyer was told of, more than the %d creates that got no answer", unknown, createErrors)
	}
}

// checkNoOverlappingHolds checks that no seat was granted to two orders at overlapping
// times: an order certainly holds its seats from its 201 until its cancel was sent (or
// for ever), and those spans of one seat must not overlap.
func checkNoOverlappingHolds(t *testing.T, grants []*grant) {
	t.Helper()
	type key struct{ show, seat int64 }
	bySeat := map[key][]*grant{}
	for _, g := range grants {
		for _, s := range g.seats {
			bySeat[key{g.show, s}] = append(bySeat[key{g.show, s}], g)
		}
	}
	overlaps, regrants := 0, 0
	for k, gs := range bySeat {
		sort.Slice(gs, func(i, j int) bool { return gs[i].created.done.Before(gs[j].created.done) })
		var last *grant
		for _, g := range gs {
			if last != nil && g.created.done.Before(last.holdsUntil()) {
				overlaps++
				if overlaps <= 10 {
					t.Errorf("show %d seat %d: order %s was granted at %s while order %s held it (granted %s, cancel sent %s)",
						k.show, k.seat, g.orderNo, g.created.done.Format("15:04:05.000000"), last.orderNo,
						last.created.done.Format("15:04:05.000000"), last.cancelSent.Format("15:04:05.000000"))
				}
			}
			if last == nil || g.holdsUntil().After(last.holdsUntil()) {
				last = g
			}
		}
		regrants += len(gs) - 1
	}
	t.Logf("history: %d seats granted, %d times granted again after a release, %d overlapping grants", len(bySeat), regrants, overlaps)
}

// checkNoHalfHolds checks every acknowledged order in Redis: all its seats carry its
// order number or none does (invariant 2).
func checkNoHalfHolds(t *testing.T, c *cluster, grants []*grant) {
	t.Helper()
	ctx := context.Background()
	half := 0
	for _, g := range grants {
		fields := make([]string, len(g.seats))
		for i, s := range g.seats {
			fields[i] = strconv.FormatInt(s, 10)
		}
		vals, err := c.rdb.HMGet(ctx, c.seats.Keys(g.show)[0], fields...).Result()
		if err != nil {
			t.Fatal(err)
		}
		mine := 0
		for _, v := range vals {
			if s, ok := v.(string); ok {
				if _, no, _ := seats.SeatValue(s); no == g.orderNo {
					mine++
				}
			}
		}
		if mine != 0 && mine != len(g.seats) {
			half++
			t.Errorf("order %s holds %d of its %d seats in Redis: %v", g.orderNo, mine, len(g.seats), vals)
		}
	}
	t.Logf("redis: %d orders read seat by seat, %d half-held", len(grants), half)
}
