package invariants

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// TestInvariant1_StormOfOverlappingBatches proves invariant 1 (a seat belongs to at
// most one live order) and the purchase limit of invariant 2 under heavy contention:
// 600 goroutines acting as 60 users send random overlapping batches of 1-4 seats over
// every sellable seat of the show (half of them aimed at a hot block in the middle),
// retrying on SEAT_TAKEN, and a quarter of the successful orders are cancelled at once
// so released seats are fought over again. If the hold script were not atomic, or a
// release freed the wrong seats or restored counters twice, MySQL would show a seat in
// two live orders (or its unique key would reject an insert Redis allowed), a user
// would own more than 4 seats, or Redis would disagree with MySQL afterwards.
//
// Invariant 1 is kept by two independent guards. lua/hold.lua checks that every seat is
// F and writes the holds in one atomic script. MySQL's unique key uq_order_seats_live
// (show_id, seat_id, live) on order_seats is the second: live is 1 while the order is
// live and NULL after it ends, and NULLs never collide, so a released seat can be sold
// again and its history stays. When Redis has drifted (free in Redis, live in MySQL) the
// insert hits the key, and the create answers SEAT_TAKEN and releases its holds. The
// Idempotency-Key lock keeps a retried request from holding seats twice. Besides this
// file, the invariant is proven by TestInvariant1_IdempotencyKeyReplaysOneOrder,
// TestInvariant1_ConcurrentReplaysAllGetTheFirstOrder and
// TestIdempotencyKey_ReplayedWhenRedisForgotIt (invariant2_test.go),
// TestGroupCommit_ARefusedOrderNeverFailsItsBatch (a seat live in MySQL and free in
// Redis, inside a batch) and TestGroupCommit_ConcurrentCreatesShareOneTransaction
// (services/orders/group_commit_test.go), and
// TestScaleOut_TwoInstancesNeverSellASeatTwice (web/scaleout_test.go).
func TestInvariant1_StormOfOverlappingBatches(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	const nUsers, perUser, maxAttempts = 60, 10, 10
	users := e.BulkUsers(nUsers)
	all := e.Sellable()
	var hot []int64 // rows D-H, the 8 seats either side of the aisle
	for _, s := range e.Hall.Seats {
		if s.Sellable() && s.Row >= 4 && s.Row <= 8 && s.Col >= 7 && s.Col <= 15 {
			hot = append(hot, s.ID)
		}
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d, %d goroutines, %d users, %d sellable seats, %d hot seats", seed, nUsers*perUser, nUsers, len(all), len(hot))

	var attempts, created, taken, limit, soldOut, cancelled, seatsHeld, seatsCancelled atomic.Int64
	var mu sync.Mutex
	live := map[string]*services.Order{} // orders the goroutines created and did not cancel
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < nUsers*perUser; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(g)))
			user := users[g%nUsers]
			<-start
			for a := 0; a < maxAttempts; a++ {
				pool := all
				if rng.IntN(2) == 0 {
					pool = hot
				}
				k := 1 + rng.IntN(4)
				ids := make([]int64, 0, k)
				for _, i := range rng.Perm(len(pool))[:k] {
					ids = append(ids, pool[i])
				}
				attempts.Add(1)
				o, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: user, ShowID: e.Show.ID, SeatIDs: ids})
				switch services.ErrorCode(err) {
				case "":
					if err != nil {
						t.Errorf("create: %v", err)
						return
					}
					created.Add(1)
					if len(o.Seats) != k {
						t.Errorf("order %s has %d seats, asked %d", o.OrderNo, len(o.Seats), k)
					}
					if rng.IntN(4) == 0 {
						if _, err := e.Orders.Cancel(ctx, user, o.OrderNo); err != nil {
							t.Errorf("cancel %s: %v", o.OrderNo, err)
							return
						}
						cancelled.Add(1)
						seatsCancelled.Add(int64(k))
					} else {
						seatsHeld.Add(int64(k))
						mu.Lock()
						live[o.OrderNo] = o
						mu.Unlock()
					}
				case services.CodeSeatTaken:
					taken.Add(1)
				case services.CodeLimitExceeded:
					limit.Add(1)
				case services.CodeSoldOut:
					soldOut.Add(1)
				default:
					t.Errorf("create %v: unexpected %v", ids, err)
					return
				}
			}
		}(g)
	}
	began := time.Now()
	close(start)
	wg.Wait()
	t.Logf("%v: attempts %d, orders created %d (cancelled %d), SEAT_TAKEN %d, LIMIT_EXCEEDED %d, SOLD_OUT %d, seats held %d (%d released by cancels)",
		time.Since(began).Round(time.Millisecond), attempts.Load(), created.Load(), cancelled.Load(), taken.Load(), limit.Load(), soldOut.Load(),
		seatsHeld.Load(), seatsCancelled.Load())
	if created.Load() == 0 || taken.Load() == 0 {
		t.Fatalf("no contention: %d created, %d SEAT_TAKEN", created.Load(), taken.Load())
	}

	e.CheckInvariants()
	var liveSeats, liveOrders, allOrders int
	if err := e.DB.Get(&liveSeats, "SELECT COUNT(*) FROM order_seats WHERE show_id = ? AND live = 1", e.Show.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.DB.Get(&liveOrders, "SELECT COUNT(*) FROM orders WHERE show_id = ? AND status = 'pending'", e.Show.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.DB.Get(&allOrders, "SELECT COUNT(*) FROM orders WHERE show_id = ?", e.Show.ID); err != nil {
		t.Fatal(err)
	}
	if int64(liveSeats) != seatsHeld.Load() || liveOrders != len(live) || int64(allOrders) != created.Load() {
		t.Errorf("MySQL has %d live seats in %d pending orders (%d orders in all); the callers saw %d seats in %d orders (%d created)",
			liveSeats, liveOrders, allOrders, seatsHeld.Load(), len(live), created.Load())
	}
	var over int
	if err := e.DB.Get(&over, `SELECT COUNT(*) FROM (SELECT o.user_id FROM order_seats os JOIN orders o ON o.id = os.order_id
		WHERE os.show_id = ? AND os.live = 1 GROUP BY o.user_id HAVING COUNT(*) > 4) x`, e.Show.ID); err != nil {
		t.Fatal(err)
	}
	if over != 0 {
		t.Errorf("%d users own more than 4 seats in MySQL", over)
	}
	keys := e.Seats.Keys(e.Show.ID)
	for u, v := range e.RDB.HGetAll(ctx, keys[2]).Val() {
		if u == "_" {
			continue // the marker (the counts' rebuild time), no user
		}
		if n, _ := strconv.Atoi(v); n < 0 || n > 4 {
			t.Errorf("user %s: Redis counter %s", u, v)
		}
	}
	held := 0
	for _, o := range live {
		for _, s := range o.Seats {
			if v := e.SeatVal(e.Show.ID, s.SeatID); v != testenv.HeldBy(o) {
				t.Errorf("seat %s of order %s is %q in Redis", s.Label, o.OrderNo, v)
			}
			held++
		}
	}
	var zoneSum int
	for _, v := range e.RDB.HGetAll(ctx, keys[1]).Val() {
		n, _ := strconv.Atoi(v)
		zoneSum += n
	}
	if zoneSum+held != len(all) {
		t.Errorf("zone counters say %d free, %d held, of %d sellable seats", zoneSum, held, len(all))
	}
}

// TestInvariant1_ThousandRequestsOneSeat proves invariant 1 at its sharpest: 1,000
// distinct users ask for the same seat at the same moment. Exactly one order may be
// created; the other 999 must be told SEAT_TAKEN naming the seat. A non-atomic
// check-then-set in the hold script would let two callers see the seat free.
func TestInvariant1_ThousandRequestsOneSeat(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	users := e.BulkUsers(1000)
	seat := e.SeatIDs("F5")
	var ok, taken atomic.Int64
	var winner atomic.Pointer[services.Order]
	start := make(chan struct{})
	var wg sync.WaitGroup
	for _, u := range users {
		wg.Add(1)
		go func(u int64) {
			defer wg.Done()
			<-start
			o, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, SeatIDs: seat})
			switch {
			case err == nil:
				ok.Add(1)
				winner.Store(o)
			case services.ErrorCode(err) == services.CodeSeatTaken:
				taken.Add(1)
				var se *services.Error
				if !errors.As(err, &se) || len(se.Seats) != 1 || se.Seats[0] != "F5" {
					t.Errorf("SEAT_TAKEN does not name F5: %#v", err)
				}
			default:
				t.Errorf("unexpected %v", err)
			}
		}(u)
	}
	began := time.Now()
	close(start)
	wg.Wait()
	t.Logf("%v: 1000 requests for F5: %d orders, %d SEAT_TAKEN", time.Since(began).Round(time.Millisecond), ok.Load(), taken.Load())
	if ok.Load() != 1 || taken.Load() != 999 {
		t.Fatalf("%d orders and %d SEAT_TAKEN, want 1 and 999", ok.Load(), taken.Load())
	}
	if n := e.CountOrders(); n != 1 {
		t.Errorf("%d orders in MySQL", n)
	}
	if v := e.SeatVal(e.Show.ID, seat[0]); v != testenv.HeldBy(winner.Load()) {
		t.Errorf("F5 is %q in Redis, want held by the winner", v)
	}
	e.CheckInvariants()
}

// TestInvariant1_MySQLUniqueKeyCatchesRedisDrift proves the second enforcement of
// invariant 1: when Redis wrongly says a seat is free (drift) while MySQL has it in a
// live order, the hold succeeds in Redis but the insert hits the unique key on live
// occupancy; the order must fail with SEAT_TAKEN, no second live row may exist, and the
// holds (and the user's counter) must be released in Redis.
func TestInvariant1_MySQLUniqueKeyCatchesRedisDrift(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	a, b := e.User(1), e.User(2)
	oa, err := e.Create(a, e.SeatIDs("C3")...)
	if err != nil {
		t.Fatal(err)
	}
	// drift: Redis forgets A's hold on C3 and its counters, as a bad reconciliation might
	keys := e.Seats.Keys(e.Show.ID)
	c3 := strconv.FormatInt(oa.Seats[0].SeatID, 10)
	e.RDB.HSet(ctx, keys[0], c3, "F")
	e.RDB.HIncrBy(ctx, keys[1], "standard", 1)
	e.RDB.HIncrBy(ctx, keys[2], strconv.FormatInt(a, 10), -1)
	before := e.RedisStateNorm()

	_, err = e.Create(b, e.SeatIDs("C3", "C4")...)
	if services.ErrorCode(err) != services.CodeSeatTaken {
		t.Fatalf("order of a seat live in MySQL: %v, want SEAT_TAKEN", err)
	}
	if after := e.RedisStateNorm(); after != before {
		t.Errorf("the failed order changed Redis:\n%s", testenv.StateDiff(before, after))
	}
	var live int
	if err := e.DB.Get(&live, "SELECT COUNT(*) FROM order_seats WHERE show_id = ? AND seat_id = ? AND live = 1", e.Show.ID, oa.Seats[0].SeatID); err != nil {
		t.Fatal(err)
	}
	if live != 1 || e.CountOrders() != 1 {
		t.Errorf("C3 is in %d live order rows, %d orders in all", live, e.CountOrders())
	}
}
