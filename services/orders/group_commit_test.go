package orders_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/redis/go-redis/v9"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// batching replaces the env's order service with one whose group commit waits up to
// 10 s for creates still holding, so creates that hold together commit together.
func batching(e *testenv.TestEnv) *orders.Orders {
	o := orders.NewOrders(e.DB, e.Catalog, e.Seats, e.Limiter, e.Clock, orders.OrdersConfig{HoldFor: 15 * time.Minute,
		Expiry: e.Expiry, HallMaps: e.Shows, GroupCommit: orders.GroupCommit{MaxWait: 10 * time.Second}})
	e.Orders = o
	return o
}

// heldTogether makes the next n creates wait after their Redis hold until all n have
// held; then last runs (once, before any of them goes on to its commit).
func heldTogether(t *testing.T, o *orders.Orders, n int, last func()) {
	var arrived atomic.Int32
	all := make(chan struct{})
	o.SetFailHook(func(stage string) error {
		if stage != "held" {
			return nil
		}
		if int(arrived.Add(1)) == n {
			if last != nil {
				last()
			}
			close(all)
		}
		select {
		case <-all:
			return nil
		case <-time.After(10 * time.Second):
			return errors.New("the other creates never held their seats")
		}
	})
	t.Cleanup(func() { o.SetFailHook(nil) })
}

// createAll creates one order per buyer at once, buyer i ordering seats(i).
func createAll(e *testenv.TestEnv, users []int64, seats func(i int) []int64) ([]*services.Order, []error) {
	out, errs := make([]*services.Order, len(users)), make([]error, len(users))
	var wg sync.WaitGroup
	for i, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = e.Create(u, seats(i)...)
		}()
	}
	wg.Wait()
	return out, errs
}

// batches returns how many group-commit transactions committed and how many orders they
// held in all (the seatflow_order_commit_batch_orders histogram).
func batches(t *testing.T, o *orders.Orders) (count uint64, orderSum float64) {
	var m dto.Metric
	if err := o.Metrics().CommitBatchSize.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
}

// pairOf is the seats buyer i orders in these tests: column i+1 of rows A and B.
func pairOf(e *testenv.TestEnv) func(i int) []int64 {
	return func(i int) []int64 { return e.SeatIDs(fmt.Sprintf("A%d", i+1), fmt.Sprintf("B%d", i+1)) }
}

// checkOrderRows fails the test unless every order's id in MySQL carries its order
// number and its seats: the ids a multi-row INSERT gave the batch reached the right
// order_seats rows.
func checkOrderRows(t *testing.T, e *testenv.TestEnv, list []*services.Order) {
	t.Helper()
	for _, o := range list {
		var no string
		var seats int
		if err := e.DB.Get(&no, "SELECT order_no FROM orders WHERE id = ?", o.ID); err != nil || no != o.OrderNo {
			t.Errorf("order id %d is %q in MySQL (%v), want %s", o.ID, no, err, o.OrderNo)
		}
		if err := e.DB.Get(&seats, "SELECT COUNT(*) FROM order_seats WHERE order_id = ? AND live = 1", o.ID); err != nil || seats != len(o.Seats) {
			t.Errorf("order %s has %d live seat rows (%v), want %d", o.OrderNo, seats, err, len(o.Seats))
		}
	}
}

// TestGroupCommit_ConcurrentCreatesShareOneTransaction: creates that hold their seats at
// the same moment commit in one MySQL transaction (one batch in the metrics), each
// answered with its own order, whose id in MySQL carries its order number and seats,
// whether the ids come from the first id of the INSERT or are read back.
func TestGroupCommit_ConcurrentCreatesShareOneTransaction(t *testing.T) {
	for _, tc := range []struct {
		name string
		step int64 // 0: read the ids back
	}{{"ids from the first id", 1}, {"ids read back", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			e := testenv.NewTestEnv(t, testenv.Unlimited)
			o := batching(e)
			o.SetIDStep(tc.step)
			if _, err := e.Create(e.User(0), e.SeatIDs("J10")...); err != nil { // loads the seat map
				t.Fatal(err)
			}
			const n = 12
			heldTogether(t, o, n, nil)
			list, errs := createAll(e, e.BulkUsers(n), pairOf(e))
			for i, err := range errs {
				if err != nil {
					t.Fatalf("create %d: %v", i, err)
				}
			}
			if count, sum := batches(t, o); count != 2 || sum != n+1 {
				t.Errorf("%d transactions committed %.0f orders, want 2 committing %d (the first order, then one batch of %d)", count, sum, n+1, n)
			}
			checkOrderRows(t, e, list)
			e.CheckInvariants()
		})
	}
}

// TestGroupCommit_ARefusedOrderNeverFailsItsBatch: one order of a batch is refused at
// its commit; the other orders of the batch commit all the same, and the refused
// order's holds are released. A house seat is refused by the batch's lock read, before
// any insert, with no retry; a refusal after the insert (the purchase limit) runs the
// batch again without the order; a unique-key conflict (a seat Redis no longer knew
// was sold) commits the batch order by order.
func TestGroupCommit_ARefusedOrderNeverFailsItsBatch(t *testing.T) {
	const n, victim = 6, 3 // buyer 3 orders A4 and B4
	for _, tc := range []struct {
		name   string
		cause  string // the retry the batch needed ("": none)
		code   string
		inject func(e *testenv.TestEnv, victimUser int64) (undo func())
	}{
		{"house seat kept by staff meanwhile", "", services.CodeSeatTaken, func(e *testenv.TestEnv, _ int64) func() {
			e.Exec("INSERT INTO show_house_seats (show_id, seat_id, reason, created_at) VALUES (?, ?, 'press', ?)", e.Show.ID, e.SeatIDs("B4")[0], e.Clock.Now())
			return func() { e.Exec("DELETE FROM show_house_seats WHERE show_id = ?", e.Show.ID) }
		}},
		{"seat sold in MySQL, free in Redis", "conflict", services.CodeSeatTaken, func(e *testenv.TestEnv, _ int64) func() {
			no := insertLiveOrder(e, e.User(40), "A4")
			return func() { deleteOrder(e, no) }
		}},
		{"purchase limit, counts rebuilt around the hold", "refused", services.CodeLimitExceeded, func(e *testenv.TestEnv, u int64) func() {
			no := insertLiveOrder(e, u, "C1", "C2", "C3") // 3 + 2 seats > 4
			e.RDB.HDel(context.Background(), e.Seats.Keys(e.Show.ID)[2], "_")
			return func() { deleteOrder(e, no) }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := testenv.NewTestEnv(t, testenv.Unlimited)
			e.QuietLogs()
			o := batching(e)
			if _, err := e.Create(e.User(0), e.SeatIDs("J10")...); err != nil { // loads the seat map
				t.Fatal(err)
			}
			users := e.BulkUsers(n)
			var undo func()
			heldTogether(t, o, n, func() { undo = tc.inject(e, users[victim]) })
			retries := func() (n float64) {
				for _, cause := range []string{"refused", "conflict"} {
					if tc.cause == "" || cause == tc.cause {
						n += testutil.ToFloat64(o.Metrics().CommitBatchRetries.WithLabelValues(cause))
					}
				}
				return n
			}
			before := retries()
			list, errs := createAll(e, users, pairOf(e))
			var committed []*services.Order
			for i, err := range errs {
				switch {
				case i == victim && services.ErrorCode(err) != tc.code:
					t.Errorf("the refused order: %v, want %s", err, tc.code)
				case i != victim && err != nil:
					t.Errorf("order %d of the batch failed with the refused one: %v", i, err)
				case i != victim:
					committed = append(committed, list[i])
				}
			}
			if got, want := retries()-before, map[bool]float64{true: 0, false: 1}[tc.cause == ""]; got != want {
				t.Errorf("%.0f batch retries of cause %q, want %.0f", got, tc.cause, want)
			}
			checkOrderRows(t, e, committed)
			for _, l := range []string{"A4", "B4"} {
				if v := e.SeatVal(e.Show.ID, e.SeatIDs(l)[0]); v != "F" {
					t.Errorf("%s is %q after the refused order, want its hold released (F)", l, v)
				}
			}
			undo()
			e.CheckInvariants()
		})
	}
}

// insertLiveOrder writes a pending order of user for the seats straight into MySQL, as
// an order committed by a process whose holds Redis then lost; it returns its number.
func insertLiveOrder(e *testenv.TestEnv, user int64, labels ...string) string {
	now := e.Clock.Now()
	o := &services.Order{OrderNo: services.NewOrderNo(now), UserID: user, ShowID: e.Show.ID, Status: services.OrderPending,
		Currency: "CNY", CreatedAt: now, ExpiresAt: now.Add(15 * time.Minute)}
	for i, id := range e.SeatIDs(labels...) {
		o.Seats = append(o.Seats, services.OrderSeat{SeatID: id, Label: labels[i], ZoneCode: "standard", PriceMinor: 4500})
		o.TotalMinor += 4500
	}
	tx := e.DB.MustBegin()
	if err := orders.InsertOrder(context.Background(), tx, o, true); err != nil {
		e.T.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		e.T.Fatal(err)
	}
	return o.OrderNo
}

// deleteOrder removes an order written by insertLiveOrder.
func deleteOrder(e *testenv.TestEnv, orderNo string) {
	e.Exec("DELETE os FROM order_seats os JOIN orders o ON o.id = os.order_id WHERE o.order_no = ?", orderNo)
	e.Exec("DELETE FROM orders WHERE order_no = ?", orderNo)
}

// roundTrips counts the commands and pipelines a Redis client sends (one per round
// trip), by first argument.
type roundTrips struct {
	mu    sync.Mutex
	total int
	by    map[string]int
	evals int // scripts run, inside pipelines too
}

func (h *roundTrips) countEvals(cmds ...redis.Cmder) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range cmds {
		if n := c.Name(); n == "evalsha" || n == "eval" {
			h.evals++
		}
	}
}

func (h *roundTrips) add(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.total++
	h.by[name]++
}

func (h *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if n := cmd.Name(); n != "hello" && n != "client" && n != "select" { // a new connection's set-up
			h.add(n)
		}
		h.countEvals(cmd)
		return next(ctx, cmd)
	}
}

func (h *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if n := cmds[0].Name(); n != "hello" && n != "client" && n != "select" {
			h.add("pipeline " + n)
		}
		h.countEvals(cmds...)
		return next(ctx, cmds)
	}
}

// TestGroupCommit_RedisRoundTripsPerOrder counts the seat cache's round trips of n
// creates with Idempotency-Keys that commit in one batch: per order one call of
// lua/order.lua (the key's marker and claim, the precheck, the two rate limits and the
// hold; before it, five calls), calls made at the same moment sharing a pipeline; per
// batch the per-user counts' marker. The keys' locks are left to expire (before, one
// pipeline per batch gave them back, one script per key at first). The expiry task
// (asynq, not in these tests) adds one per batch. Every key's marker is kept and each
// key replays its order at once, with one call, while its lock is still there, also when
// Redis had lost its scripts (NOSCRIPT after a flush).
func TestGroupCommit_RedisRoundTripsPerOrder(t *testing.T) {
	ctx := context.Background()
	for _, flushScripts := range []bool{false, true} {
		t.Run(fmt.Sprintf("scripts flushed %v", flushScripts), func(t *testing.T) {
			e := testenv.NewTestEnv(t, testenv.Unlimited)
			o := batching(e)
			// loads the seat map and the scripts (the release script is EVALSHA'd in a pipeline)
			if _, err := o.Create(ctx, orders.CreateOrderRequest{UserID: e.User(0), ShowID: e.Show.ID, SeatIDs: e.SeatIDs("J10"), IdempotencyKey: "warm-up"}); err != nil {
				t.Fatal(err)
			}
			const n = 8
			users := e.BulkUsers(n)
			if flushScripts {
				// every script is loaded again by its next Run
				heldTogether(t, o, n, func() { e.RDB.ScriptFlush(ctx) })
			} else {
				heldTogether(t, o, n, nil)
			}
			rt := &roundTrips{by: map[string]int{}}
			e.RDB.AddHook(rt)
			var wg sync.WaitGroup
			errs := make([]error, n)
			got := make([]*services.Order, n)
			for i, u := range users {
				wg.Add(1)
				go func() {
					defer wg.Done()
					got[i], errs[i] = o.Create(ctx, orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, SeatIDs: pairOf(e)(i), IdempotencyKey: fmt.Sprintf("k-%d", i)})
				}()
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("create %d: %v", i, err)
				}
			}
			t.Logf("%d round trips for %d orders in one batch: %v; %d scripts", rt.total, n, rt.by, rt.evals)
			if most := n + 1; !flushScripts && (rt.total > most || rt.total < 2) {
				t.Errorf("%d round trips for %d orders, want 2 to %d (1 per order at most, as orders made at the same moment share a pipeline; 1 per batch)", rt.total, n, most)
			}
			if want := n; !flushScripts && rt.evals != want {
				t.Errorf("%d scripts run for %d orders, want %d (lua/order.lua per order, nothing after the commit)", rt.evals, n, want)
			}
			for i, u := range users {
				key := fmt.Sprintf("k-%d", i)
				names := orders.IdempotencyKeyNames("sf", e.Show.ID, u, key)
				if n, err := e.RDB.Exists(ctx, names[0]).Result(); err != nil || n != 1 {
					t.Errorf("key %s: its lock is gone (%v), want it left to expire", key, err)
				}
				if n, err := e.RDB.Exists(ctx, names[1]).Result(); err != nil || n != 1 {
					t.Errorf("key %s: its seen marker is gone (%v)", key, err)
				}
				rt.mu.Lock()
				rt.total = 0
				rt.mu.Unlock()
				o2, err := o.Create(ctx, orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, SeatIDs: pairOf(e)(i), IdempotencyKey: key})
				if err != nil || o2.OrderNo != got[i].OrderNo {
					t.Errorf("key %s: the replay answered %+v %v, want order %s", key, o2, err, got[i].OrderNo)
				}
				if !flushScripts && rt.total != 1 {
					t.Errorf("key %s: the replay made %d Redis calls, want 1 (SEEN, then MySQL)", key, rt.total)
				}
			}
			e.CheckInvariants()
		})
	}
}

// TestGroupCommit_PurchaseLimitAcrossBatchesAfterARebuild: a buyer's first order holds
// two seats, then the per-user counts are lost and rebuilt from MySQL without it (it
// has not committed), so the same buyer's second order of three seats passes the seat
// cache. The two orders commit in two transactions at the same time, both counting the
// buyer's seats in MySQL: the second count waits for the first transaction (the buyer's
// row is locked by the first) and sees its seats, so one of the orders is refused with
// LIMIT_EXCEEDED and the buyer never has more than 4 seats.
func TestGroupCommit_PurchaseLimitAcrossBatchesAfterARebuild(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.QuietLogs()
	ctx := context.Background()
	if _, err := e.Create(e.User(0), e.SeatIDs("J10")...); err != nil { // loads the seat map
		t.Fatal(err)
	}
	u := e.User(1)
	firstHeld := make(chan struct{})
	var helds, inserts atomic.Int32
	bothInserting := make(chan struct{})
	e.Orders.SetFailHook(func(stage string) error {
		switch {
		case stage == "held" && helds.Add(1) == 1:
			// the counts are lost; the next hold reloads them from MySQL, without this order
			e.RDB.Del(ctx, e.Seats.Keys(e.Show.ID)[2])
			close(firstHeld)
		case stage == "insert":
			if inserts.Add(1) == 2 {
				close(bothInserting)
			}
			select { // both transactions between insert and commit, if the second gets there
			case <-bothInserting:
			case <-time.After(time.Second):
			}
		}
		return nil
	})
	defer e.Orders.SetFailHook(nil)
	errs := twoOrdersOfOneBuyer(e, u, firstHeld)
	t.Logf("first order: %v; second order: %v", errs[0], errs[1])
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Errorf("orders of 2 and 3 seats of one buyer: %v and %v, want one of them LIMIT_EXCEEDED", errs[0], errs[1])
	}
	for _, err := range errs {
		if err != nil && services.ErrorCode(err) != services.CodeLimitExceeded {
			t.Errorf("refused with %v, want LIMIT_EXCEEDED", err)
		}
	}
	var live int
	if err := e.DB.Get(&live, "SELECT COUNT(*) FROM orders o JOIN order_seats os ON os.order_id = o.id AND os.live = 1 WHERE o.user_id = ? AND o.show_id = ?", u, e.Show.ID); err != nil || live > 4 {
		t.Errorf("the buyer has %d live seats (%v), the limit is 4", live, err)
	}
	// the seat cache's count of the buyer stays short of the first order's seats (the
	// rebuild could not see them) until reconciliation repairs it (user_count, invariant 3)
}

// TestGroupCommit_PurchaseLimitWithinABatch: as TestGroupCommit_PurchaseLimitAcrossBatchesAfterARebuild,
// but the buyer's two orders (2 and 3 seats, 5 together) reach the same batch: the one
// queued first fits and commits, only the other is refused with LIMIT_EXCEEDED.
func TestGroupCommit_PurchaseLimitWithinABatch(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.QuietLogs()
	ctx := context.Background()
	o := batching(e)
	if _, err := e.Create(e.User(0), e.SeatIDs("J10")...); err != nil { // loads the seat map
		t.Fatal(err)
	}
	u := e.User(1)
	firstHeld, bothHeld := make(chan struct{}), make(chan struct{})
	var helds atomic.Int32
	o.SetFailHook(func(stage string) error {
		if stage != "held" {
			return nil
		}
		switch helds.Add(1) {
		case 1:
			// the counts are lost; the next hold reloads them from MySQL, without this order
			e.RDB.Del(ctx, e.Seats.Keys(e.Show.ID)[2])
			close(firstHeld)
		case 2:
			close(bothHeld)
		}
		select { // both submit together: one batch
		case <-bothHeld:
		case <-time.After(10 * time.Second):
		}
		return nil
	})
	defer o.SetFailHook(nil)
	errs := twoOrdersOfOneBuyer(e, u, firstHeld)
	t.Logf("first order: %v; second order: %v", errs[0], errs[1])
	refused := 0
	for _, err := range errs {
		if err != nil {
			refused++
			if services.ErrorCode(err) != services.CodeLimitExceeded {
				t.Errorf("refused with %v, want LIMIT_EXCEEDED", err)
			}
		}
	}
	if refused != 1 {
		t.Errorf("%d of the buyer's two orders refused, want 1 (the one queued first fits)", refused)
	}
	if count, _ := batches(t, o); count != 2 {
		t.Errorf("%d transactions committed, want 2 (the first order, then the batch without the refused one)", count)
	}
}

// twoOrdersOfOneBuyer creates buyer u's orders of C1, C2 and of D1, D2, D3 (5 seats
// together, over the limit of 4), the second once firstHeld is closed (by the fail hook,
// after the first order's hold), and returns their errors.
func twoOrdersOfOneBuyer(e *testenv.TestEnv, u int64, firstHeld chan struct{}) [2]error {
	var wg sync.WaitGroup
	var errs [2]error
	wg.Add(2)
	go func() { defer wg.Done(); _, errs[0] = e.Create(u, e.SeatIDs("C1", "C2")...) }()
	go func() {
		defer wg.Done()
		<-firstHeld
		_, errs[1] = e.Create(u, e.SeatIDs("D1", "D2", "D3")...)
	}()
	wg.Wait()
	return errs
}
