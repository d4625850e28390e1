package invariants

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"seatflow/lua"
	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
	"seatflow/services/seats"
)

// TestInvariant2_PurchaseLimitIsInclusive proves that the purchase limit (4) is checked
// whole with the batch (invariant 2): holding 3, one more seat is allowed; holding 4,
// one more is refused with LIMIT_EXCEEDED and nothing is written; paid seats count,
// cancelled ones do not. An off-by-one (>= instead of >) or a limit that only looked at
// the batch would let a user hold 5 seats or refuse the 4th.
//
// Invariant 2 is kept by Orders.Create, which checks everything before the hold:
// validation, the show on sale, the seats in the show, seats.CheckCompanions, the
// price; by lua/order.lua, whose precheck, rate limits (its only writes before the
// hold's checks) and Idempotency-Key lock come before lua/hold.lua (its function), which
// checks loaded, DUP, TAKEN, LIMIT and SOLD_OUT before its first write; and by the
// release of the holds (owner-checked lua/release.lua) after any error past the hold, a
// lost script reply included. Best-available holds one whole block, rate limits fail
// closed, and the purchase limit has a second line in MySQL (invariant 3b). Besides this
// file, TestFault_MySQLDownDuringCreate (fault_test.go) proves it.
func TestInvariant2_PurchaseLimitIsInclusive(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	u := e.User(1)
	if _, err := e.Create(u, e.SeatIDs("A1", "A2", "A3")...); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Create(u, e.SeatIDs("A4")...); err != nil {
		t.Fatalf("holding 3, one more: %v", err)
	}
	before := e.State()
	if _, err := e.Create(u, e.SeatIDs("A5")...); services.ErrorCode(err) != services.CodeLimitExceeded {
		t.Fatalf("holding 4, one more: %v, want LIMIT_EXCEEDED", err)
	}
	if _, err := e.Create(u, e.SeatIDs("B1", "B2")...); services.ErrorCode(err) != services.CodeLimitExceeded {
		t.Fatalf("holding 4, two more: %v, want LIMIT_EXCEEDED", err)
	}
	if after := e.State(); after != before {
		t.Errorf("a refused order wrote something:\n%s", testenv.StateDiff(before, after))
	}
	if c := e.UserCount(e.Show.ID, u); c != "4" {
		t.Errorf("user counter %q, want 4", c)
	}

	// a batch over the limit on its own, from a fresh user
	v := e.User(2)
	before = e.State()
	if _, err := e.Create(v, e.SeatIDs("C1", "C2", "C3", "C4", "C5")...); services.ErrorCode(err) != services.CodeLimitExceeded && services.ErrorCode(err) != services.CodeInvalidRequest {
		t.Fatalf("5 seats at once: %v, want LIMIT_EXCEEDED or INVALID_REQUEST", err)
	}
	if after := e.State(); after != before {
		t.Errorf("a refused 5-seat batch wrote something:\n%s", testenv.StateDiff(before, after))
	}

	// paid seats count against the limit, cancelled ones do not
	paid, err := e.Create(v, e.SeatIDs("D1", "D2")...)
	if err != nil {
		t.Fatal(err)
	}
	pay, _, err := e.Payments.Start(ctx, v, paid.OrderNo, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Payments.DemoDecide(ctx, pay.PaymentID, true); err != nil {
		t.Fatal(err)
	}
	if s := e.OrderStatus(paid.OrderNo); s != services.OrderPaid {
		t.Fatalf("order is %s after approval", s)
	}
	gone, err := e.Create(v, e.SeatIDs("D3", "D4")...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Create(v, e.SeatIDs("D5")...); services.ErrorCode(err) != services.CodeLimitExceeded {
		t.Fatalf("2 paid + 2 held, one more: %v, want LIMIT_EXCEEDED", err)
	}
	if _, err := e.Orders.Cancel(ctx, v, gone.OrderNo); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Create(v, e.SeatIDs("D5", "D6", "D7")...); services.ErrorCode(err) != services.CodeLimitExceeded {
		t.Fatalf("2 paid, three more: %v, want LIMIT_EXCEEDED", err)
	}
	if _, err := e.Create(v, e.SeatIDs("D5", "D6")...); err != nil {
		t.Fatalf("2 paid, 2 more after a cancel: %v", err)
	}
	e.CheckInvariants()
}

// TestInvariant2_ParallelRequestsOfOneUserStayWithinLimit proves the purchase limit
// holds under concurrency: 50 goroutines of one user ask for disjoint batches of 1-2
// seats at once. Only the limit can refuse them, and the user must end with at most 4
// seats in MySQL and in Redis (a limit read outside the atomic script would let several
// batches pass the check together).
func TestInvariant2_ParallelRequestsOfOneUserStayWithinLimit(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	u := e.User(1)
	all := e.Sellable()
	var got, refused atomic.Int64
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 50; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			ids := all[2*g : 2*g+1+g%2] // 1 or 2 seats, disjoint from every other goroutine's
			<-start
			o, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, SeatIDs: ids})
			switch services.ErrorCode(err) {
			case "":
				if err != nil {
					t.Error(err)
					return
				}
				got.Add(int64(len(o.Seats)))
			case services.CodeLimitExceeded:
				refused.Add(1)
			default:
				t.Errorf("unexpected %v", err)
			}
		}(g)
	}
	close(start)
	wg.Wait()
	t.Logf("one user, 50 parallel requests: %d seats held, %d LIMIT_EXCEEDED", got.Load(), refused.Load())
	var mysqlSeats int
	if err := e.DB.Get(&mysqlSeats, `SELECT COUNT(*) FROM order_seats os JOIN orders o ON o.id = os.order_id
		WHERE o.user_id = ? AND os.live = 1`, u); err != nil {
		t.Fatal(err)
	}
	if got.Load() > 4 || mysqlSeats > 4 || mysqlSeats != int(got.Load()) || got.Load() < 3 {
		t.Errorf("the user got %d seats (%d in MySQL), want 3 or 4", got.Load(), mysqlSeats)
	}
	if c := e.UserCount(e.Show.ID, u); c != strconv.Itoa(mysqlSeats) {
		t.Errorf("Redis counter %q, MySQL %d", c, mysqlSeats)
	}
	e.CheckInvariants()
}

// TestInvariant2_BadInputWritesNothing proves "any failed check writes nothing, in Redis
// or in MySQL" (invariant 2) for every kind of bad request, and that each gets the
// contract's error code. A check made after the first write, or a partial batch held
// before a taken seat was found, would change the snapshot of Redis (every key of every
// show, in full) or the MySQL row counts.
func TestInvariant2_BadInputWritesNothing(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	owner, u, full := e.User(1), e.User(2), e.User(3)
	if _, err := e.Create(owner, e.SeatIDs("E5", "E6")...); err != nil { // loads the map, holds two seats
		t.Fatal(err)
	}
	if _, err := e.Create(full, e.SeatIDs("A1", "A2", "A3", "A4")...); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, SeatIDs: e.SeatIDs("B9"), IdempotencyKey: "used-key"}); err != nil {
		t.Fatal(err)
	}
	other := e.MakeLayout("Other Hall", testenv.RowSpec{Zone: "standard", Seats: "SSSS"})
	now := e.Clock.Now()
	later := e.MakeShow(e.Hall.ID, services.ShowOnSale, now.Add(time.Hour), now.Add(72*time.Hour))
	cancelled := e.MakeShow(e.Hall.ID, services.ShowCancelled, now.Add(-time.Hour), now.Add(73*time.Hour))
	closed := e.MakeShow(e.Hall.ID, services.ShowOnSale, now.Add(-48*time.Hour), now.Add(-time.Hour))
	draft := e.MakeShow(e.Hall.ID, services.ShowDraft, now.Add(-time.Hour), now.Add(74*time.Hour)) // held back from sale
	i64 := func(v int64) *int64 { return &v }
	hundred := make([]int64, 101)
	for i := range hundred {
		hundred[i] = e.Sellable()[i]
	}
	show := e.Show.ID
	cases := []struct {
		name string
		req  orders.CreateOrderRequest
		want []string
	}{
		{"duplicate seat ids", orders.CreateOrderRequest{SeatIDs: e.SeatIDs("C1", "C1")}, []string{services.CodeInvalidRequest}},
		{"duplicate among others", orders.CreateOrderRequest{SeatIDs: e.SeatIDs("C1", "C2", "C1")}, []string{services.CodeInvalidRequest}},
		{"seat of another hall", orders.CreateOrderRequest{SeatIDs: testenv.HallSeatIDs(t, other, "A1")}, []string{services.CodeSeatNotInShow}},
		{"free seat plus a seat of another hall", orders.CreateOrderRequest{SeatIDs: append(e.SeatIDs("C1"), testenv.HallSeatIDs(t, other, "A2")...)}, []string{services.CodeSeatNotInShow}},
		{"blocked seat", orders.CreateOrderRequest{SeatIDs: e.SeatIDs("J1")}, []string{services.CodeSeatNotInShow}},
		{"free seat plus a blocked seat", orders.CreateOrderRequest{SeatIDs: e.SeatIDs("C1", "J1")}, []string{services.CodeSeatNotInShow}},
		{"unknown seat id", orders.CreateOrderRequest{SeatIDs: []int64{987654321}}, []string{services.CodeSeatNotInShow}},
		{"zero seat id", orders.CreateOrderRequest{SeatIDs: []int64{0}}, []string{services.CodeInvalidRequest}},
		{"negative seat id", orders.CreateOrderRequest{SeatIDs: []int64{-5}}, []string{services.CodeInvalidRequest}},
		{"empty seat list", orders.CreateOrderRequest{SeatIDs: []int64{}}, []string{services.CodeInvalidRequest}},
		{"101 seats", orders.CreateOrderRequest{SeatIDs: hundred}, []string{services.CodeInvalidRequest, services.CodeLimitExceeded}},
		{"5 seats", orders.CreateOrderRequest{SeatIDs: e.SeatIDs("C1", "C2", "C3", "C4", "C5")}, []string{services.CodeInvalidRequest, services.CodeLimitExceeded}},
		{"zero quantity", orders.CreateOrderRequest{Zone: "standard", Quantity: 0}, []string{services.CodeInvalidRequest}},
		{"negative quantity", orders.CreateOrderRequest{Zone: "standard", Quantity: -2}, []string{services.CodeInvalidRequest}},
		{"huge quantity", orders.CreateOrderRequest{Zone: "standard", Quantity: 1 << 40}, []string{services.CodeInvalidRequest, services.CodeLimitExceeded}},
		{"quantity over the limit", orders.CreateOrderRequest{Zone: "standard", Quantity: 5}, []string{services.CodeInvalidRequest, services.CodeLimitExceeded}},
		{"unknown zone", orders.CreateOrderRequest{Zone: "vip", Quantity: 2}, []string{services.CodeInvalidRequest}},
		{"seats and zone together", orders.CreateOrderRequest{SeatIDs: e.SeatIDs("C1"), Zone: "standard", Quantity: 1}, []string{services.CodeInvalidRequest}},
		{"expected total mismatch", orders.CreateOrderRequest{SeatIDs: e.SeatIDs("C1", "H3"), ExpectedTotalMinor: i64(4500 + 6000)}, []string{services.CodePriceChanged}},
		{"expected total mismatch, best available", orders.CreateOrderRequest{Zone: "premium", Quantity: 2, ExpectedTotalMinor: i64(9000)}, []string{services.CodePriceChanged}},
		{"free seat plus a held seat", orders.CreateOrderRequest{SeatIDs: e.SeatIDs("C1", "C2", "E6")}, []string{services.CodeSeatTaken}},
		{"user at the limit", orders.CreateOrderRequest{UserID: full, SeatIDs: e.SeatIDs("C1")}, []string{services.CodeLimitExceeded}},
		{"idempotency key with another body", orders.CreateOrderRequest{SeatIDs: e.SeatIDs("C1"), IdempotencyKey: "used-key"}, []string{services.CodeIdempotencyMismatch}},
		{"idempotency key too long", orders.CreateOrderRequest{SeatIDs: e.SeatIDs("C1"), IdempotencyKey: strings.Repeat("k", 65)}, []string{services.CodeInvalidRequest}},
		{"idempotency key not printable", orders.CreateOrderRequest{SeatIDs: e.SeatIDs("C1"), IdempotencyKey: "a b"}, []string{services.CodeInvalidRequest}},
		{"unknown show", orders.CreateOrderRequest{ShowID: 999999, SeatIDs: e.SeatIDs("C1")}, []string{services.CodeNotFound}},
		{"sale not open yet", orders.CreateOrderRequest{ShowID: later.ID, SeatIDs: e.SeatIDs("C1")}, []string{services.CodeNotOnSale}},
		{"sale not open yet, best available", orders.CreateOrderRequest{ShowID: later.ID, Zone: "standard", Quantity: 2}, []string{services.CodeNotOnSale}},
		{"cancelled show", orders.CreateOrderRequest{ShowID: cancelled.ID, SeatIDs: e.SeatIDs("C1")}, []string{services.CodeNotOnSale}},
		{"sale closed", orders.CreateOrderRequest{ShowID: closed.ID, SeatIDs: e.SeatIDs("C1")}, []string{services.CodeNotOnSale}},
		{"draft show with an open window", orders.CreateOrderRequest{ShowID: draft.ID, SeatIDs: e.SeatIDs("C1")}, []string{services.CodeNotOnSale}},
	}
	for _, c := range cases {
		req := c.req
		if req.UserID == 0 {
			req.UserID = u
		}
		if req.ShowID == 0 {
			req.ShowID = show
		}
		before := e.State()
		o, err := e.Orders.Create(ctx, req)
		code := services.ErrorCode(err)
		ok := false
		for _, w := range c.want {
			ok = ok || code == w
		}
		if !ok {
			t.Errorf("%s: got %v (order %v), want %v", c.name, err, o, c.want)
		}
		if after := e.State(); after != before {
			t.Errorf("%s: the refused order wrote something:\n%s", c.name, testenv.StateDiff(before, after))
		}
	}
	e.CheckInvariants()
}

// TestInvariant2_InsertFailureReleasesHolds proves the all-or-nothing rule across the
// two stores (invariant 2, pipeline step 6): when the MySQL transaction fails after the
// Lua hold, the holds are released (owner-checked) and the counters restored, so
// nothing of the failed order remains; a user whose counter leaked would then be unable
// to order 4 seats.
func TestInvariant2_InsertFailureReleasesHolds(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	u := e.User(1)
	if _, err := e.Create(e.User(2), e.SeatIDs("A1")...); err != nil { // load the map
		t.Fatal(err)
	}
	before := e.State()
	var stages []string
	e.Orders.SetFailHook(func(stage string) error {
		if stage != "insert" {
			return nil
		}
		stages = append(stages, stage)
		return errors.New("boom")
	})
	ids := e.SeatIDs("F5", "F6", "H1", "H2")
	_, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, SeatIDs: ids, IdempotencyKey: "k1"})
	if services.ErrorCode(err) != services.CodeUnavailable {
		t.Fatalf("create with a failing insert: %v, want UNAVAILABLE", err)
	}
	if len(stages) == 0 {
		t.Fatal("the fail hook was never called")
	}
	if _, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, Zone: "standard", Quantity: 3}); services.ErrorCode(err) != services.CodeUnavailable {
		t.Fatalf("best available with a failing insert: %v, want UNAVAILABLE", err)
	}
	for _, id := range ids {
		if v := e.SeatVal(e.Show.ID, id); v != "F" {
			t.Errorf("seat %d is %q after the failed order", id, v)
		}
	}
	if c := e.UserCount(e.Show.ID, u); c != "" && c != "0" {
		t.Errorf("user counter %q after the failed order", c)
	}
	if after := e.RedisStateNorm(); after != strings.SplitN(before, "--\n", 2)[0] {
		t.Errorf("Redis changed:\n%s", testenv.StateDiff(before, after))
	}
	if after := e.DBState(); after != strings.SplitN(before, "--\n", 2)[1] {
		t.Errorf("MySQL changed:\n%s", testenv.StateDiff(before, after))
	}
	e.Orders.SetFailHook(nil)
	o, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, SeatIDs: ids, IdempotencyKey: "k1"})
	if err != nil {
		t.Fatalf("the same 4 seats once the database works: %v", err)
	}
	if len(o.Seats) != 4 || e.UserCount(e.Show.ID, u) != "4" {
		t.Errorf("order %+v, counter %q", o, e.UserCount(e.Show.ID, u))
	}
	e.CheckInvariants()
}

// TestInvariant1_IdempotencyKeyReplaysOneOrder proves that a retried request can never
// hold seats twice (invariant 1 seen from one buyer): the same key and body return the
// first order, one row in MySQL; the same key with another body is
// IDEMPOTENCY_MISMATCH and writes nothing; 20 concurrent replays create exactly one
// order; keys are per user; after 24 h the key may be used for a new order.
func TestInvariant1_IdempotencyKeyReplaysOneOrder(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	u, v := e.User(1), e.User(2)
	req := orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, SeatIDs: e.SeatIDs("G5", "G6"), IdempotencyKey: "order-1"}
	first, err := e.Orders.Create(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	again, err := e.Orders.Create(ctx, req)
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if again.OrderNo != first.OrderNo || again.TotalMinor != first.TotalMinor || !again.ExpiresAt.Equal(first.ExpiresAt) || len(again.Seats) != 2 || again.Status != services.OrderPending {
		t.Errorf("replay %+v differs from the first answer %+v", again, first)
	}
	if n := e.CountOrders(); n != 1 {
		t.Errorf("%d orders after a replay", n)
	}
	before := e.State()
	diff := req
	diff.SeatIDs = e.SeatIDs("G7")
	if _, err := e.Orders.Create(ctx, diff); services.ErrorCode(err) != services.CodeIdempotencyMismatch {
		t.Errorf("same key, other seats: %v, want IDEMPOTENCY_MISMATCH", err)
	}
	diff = req
	diff.ExpectedTotalMinor = new(int64)
	*diff.ExpectedTotalMinor = 9000
	if _, err := e.Orders.Create(ctx, diff); services.ErrorCode(err) != services.CodeIdempotencyMismatch {
		t.Errorf("same key, body with an expected total: %v, want IDEMPOTENCY_MISMATCH", err)
	}
	if after := e.State(); after != before {
		t.Errorf("a mismatched key wrote something:\n%s", testenv.StateDiff(before, after))
	}
	// keys are per user
	ov, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: v, ShowID: e.Show.ID, SeatIDs: e.SeatIDs("G7"), IdempotencyKey: "order-1"})
	if err != nil || ov.OrderNo == first.OrderNo {
		t.Errorf("another user's order with the same key: %v %v", ov, err)
	}

	// 20 concurrent requests with one fresh key and body
	w := e.User(3)
	creq := orders.CreateOrderRequest{UserID: w, ShowID: e.Show.ID, SeatIDs: e.SeatIDs("H10", "H11"), IdempotencyKey: "burst"}
	nos := make([]string, 20)
	errs := make([]error, 20)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range nos {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			o, err := e.Orders.Create(ctx, creq)
			errs[i] = err
			if err == nil {
				nos[i] = o.OrderNo
			}
		}(i)
	}
	close(start)
	wg.Wait()
	var orderNos []string
	if err := e.DB.Select(&orderNos, "SELECT order_no FROM orders WHERE user_id = ?", w); err != nil {
		t.Fatal(err)
	}
	if len(orderNos) != 1 {
		t.Fatalf("20 concurrent replays created %d orders", len(orderNos))
	}
	codes := map[string]int{}
	for i := range nos {
		if errs[i] == nil {
			codes["ok"]++
			if nos[i] != orderNos[0] {
				t.Errorf("replay %d answered order %s, the one order is %s", i, nos[i], orderNos[0])
			}
		} else {
			codes[services.ErrorCode(errs[i])]++
		}
	}
	t.Logf("20 concurrent replays: %v", codes)
	if codes["ok"] == 0 {
		t.Error("no concurrent replay got the order")
	}
	e.CheckInvariants()

	// after 24 h the key is forgotten: the same request makes a new order
	e.Clock.Advance(25 * time.Hour)
	if ok, err := e.Orders.Expire(ctx, first.OrderNo); err != nil || !ok {
		t.Fatalf("expire the first order: %v %v", ok, err)
	}
	fresh, err := e.Orders.Create(ctx, req)
	if err != nil {
		t.Fatalf("the key after 25 h: %v", err)
	}
	if fresh.OrderNo == first.OrderNo {
		t.Error("a key older than 24 h replayed the old order")
	}
	if again, err := e.Orders.Create(ctx, req); err != nil || again.OrderNo != fresh.OrderNo {
		t.Errorf("a replay of the renewed key: %v %v, want %s", again, err, fresh.OrderNo)
	}
	e.CheckInvariants()
}

// TestInvariant1_ConcurrentReplaysAllGetTheFirstOrder states the contract for replays
// that arrive while the first request is still in flight (a client retrying after a
// timeout): API.md promises a replay "the same 201 body", and Create tries to honour
// that ("a concurrent replay of the same request may have taken these seats"). Each of
// the 20 concurrent requests must therefore answer the one order, never SEAT_TAKEN for
// the buyer's own seats (nor LIMIT_EXCEEDED for a best-available replay).
func TestInvariant1_ConcurrentReplaysAllGetTheFirstOrder(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	if _, err := e.Create(e.User(9), e.SeatIDs("A1")...); err != nil { // load the map
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		req  orders.CreateOrderRequest
	}{
		{"chosen seats", orders.CreateOrderRequest{SeatIDs: e.SeatIDs("H10", "H11")}},
		{"best available", orders.CreateOrderRequest{Zone: "standard", Quantity: 3}},
	} {
		req := tc.req
		req.UserID, req.ShowID, req.IdempotencyKey = e.User(1), e.Show.ID, "retry-"+tc.name[:4]
		var mu sync.Mutex
		codes := map[string]int{}
		nos := map[string]bool{}
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := 0; i < 20; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				o, err := e.Orders.Create(ctx, req)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					codes[services.ErrorCode(err)]++
					return
				}
				codes["ok"]++
				nos[o.OrderNo] = true
			}()
		}
		close(start)
		wg.Wait()
		t.Logf("%s: 20 concurrent replays answered %v", tc.name, codes)
		if codes["ok"] != 20 || len(nos) != 1 {
			t.Errorf("%s: %d of 20 concurrent replays got the order (%v), want all 20", tc.name, codes["ok"], codes)
		}
		var n int
		if err := e.DB.Get(&n, "SELECT COUNT(*) FROM orders WHERE user_id = ?", req.UserID); err != nil || n != 1 {
			t.Errorf("%s: %d orders (%v)", tc.name, n, err)
		}
	}
	e.CheckInvariants()
}

// TestInvariant2_RateLimitedAndLimiterDownWriteNothing proves that the rate limits are
// checks made before the first write (invariant 2) and fail closed (pipeline step 4):
// the third order in a row of a user allowed 2 per minute with a burst of 2 is
// RATE_LIMITED with a Retry-After of at least 1 s and writes nothing, while another user
// is unaffected; with the limiter's Redis unreachable the answer is UNAVAILABLE, never
// "allowed", and nothing is written.
func TestInvariant2_RateLimitedAndLimiterDownWriteNothing(t *testing.T) {
	e := testenv.NewTestEnv(t, orders.Limits{UserPerMinute: 2, UserBurst: 2, ShowPerSecond: 1e6, ShowBurst: 1e6, LoginPerMinute: 1e6, LoginBurst: 1e6})
	ctx := context.Background()
	u, v := e.User(1), e.User(2)
	if _, err := e.Create(u, e.SeatIDs("A1")...); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Create(u, e.SeatIDs("A2")...); err != nil {
		t.Fatal(err)
	}
	before := e.State()
	_, err := e.Create(u, e.SeatIDs("A3")...)
	var re *services.Error
	if !errors.As(err, &re) || re.Code != services.CodeRateLimited || re.RetryAfterS < 1 {
		t.Fatalf("third order in a row: %#v, want RATE_LIMITED with RetryAfterS >= 1", err)
	}
	t.Logf("third order: %s, retry after %d s", re.Code, re.RetryAfterS)
	if after := e.State(); after != before {
		t.Errorf("a rate-limited order wrote something:\n%s", testenv.StateDiff(before, after))
	}
	if _, err := e.Create(v, e.SeatIDs("A3")...); err != nil {
		t.Errorf("another user is limited too: %v", err)
	}

	// the show's bucket: the fourth order inside one second is refused. The bucket refills
	// in Redis's time, so on a machine too slow to send four orders within a second a token
	// comes back on the way; such a round proves nothing and runs again (three at most)
	var es *testenv.TestEnv
	var users []int64
	for round := 1; ; round++ {
		es = testenv.NewTestEnv(t, orders.Limits{UserPerMinute: 1e6, UserBurst: 1e6, ShowPerSecond: 1, ShowBurst: 3, LoginPerMinute: 1e6, LoginBurst: 1e6})
		users = es.BulkUsers(4)
		start := time.Now()
		for i, uid := range users[:3] {
			if _, err := es.Create(uid, es.Sellable()[i]); err != nil {
				t.Fatalf("order %d for the show: %v", i, err)
			}
		}
		before = es.State()
		_, err := es.Create(users[3], es.Sellable()[3])
		if took := time.Since(start); services.ErrorCode(err) != services.CodeRateLimited && took > time.Second && round < 3 {
			t.Logf("round %d took %v, longer than the bucket's second: again", round, took)
			continue
		}
		if services.ErrorCode(err) != services.CodeRateLimited {
			t.Errorf("fourth order for a show with a burst of 3: %v, want RATE_LIMITED", err)
		}
		if after := es.State(); after != before {
			t.Errorf("a rate-limited order wrote something:\n%s", testenv.StateDiff(before, after))
		}
		break
	}

	// the limiter's Redis is down
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DialTimeout: 300 * time.Millisecond, MaxRetries: -1,
		DialerRetries: 1, DialerRetryTimeout: time.Millisecond})
	defer down.Close()
	lim := orders.NewRateLimiter(down, testenv.Unlimited, "sf")
	if err := lim.AllowLogin(ctx, "x@test.example", "192.0.2.1"); services.ErrorCode(err) != services.CodeUnavailable {
		t.Errorf("AllowLogin with Redis down: %v, want UNAVAILABLE", err)
	}
	// the order limits live in the order script, on the seat cache's Redis
	orderList := orders.NewOrders(es.DB, es.Catalog, seats.NewSeatStore(down, es.DB, es.Catalog, "sf"), lim, es.Clock, orders.OrdersConfig{HoldFor: 15 * time.Minute, Expiry: es.Expiry})
	before = es.State()
	for _, req := range []orders.CreateOrderRequest{
		{UserID: users[3], ShowID: es.Show.ID, SeatIDs: es.Sellable()[10:12]},
		{UserID: users[3], ShowID: es.Show.ID, Zone: "premium", Quantity: 2},
	} {
		if o, err := orderList.Create(ctx, req); services.ErrorCode(err) != services.CodeUnavailable {
			t.Errorf("create with the limiter down: %v %v, want UNAVAILABLE", o, err)
		}
	}
	if after := es.State(); after != before {
		t.Errorf("an order with the limiter down wrote something:\n%s", testenv.StateDiff(before, after))
	}
}

// TestInvariant2_BestAvailablePicksOneContiguousBlock proves that best available holds
// one whole block (invariant 2: the batch is chosen and checked whole): seats side by
// side in one row of the zone, never across the aisle, nearest the centre; accessible
// requests get a block with a wheelchair space and plain ones never take wheelchair or
// companion seats.
func TestInvariant2_BestAvailablePicksOneContiguousBlock(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	states := map[int64]string{}
	for _, s := range e.Hall.Seats {
		states[s.ID] = "F"
		if !s.Sellable() {
			states[s.ID] = "B"
		}
	}
	seatOf := func(h *services.Hall, id int64) *services.Seat { s, _ := h.Seat(id); return s }
	checkBlock := func(h *services.Hall, ids []int64, zone string, q int) {
		t.Helper()
		if len(ids) != q {
			t.Fatalf("%s x%d: got %d seats", zone, q, len(ids))
		}
		first := seatOf(h, ids[0])
		for i, id := range ids {
			s := seatOf(h, id)
			if s.Row != first.Row || s.Col != first.Col+i || s.ZoneCode != zone {
				t.Errorf("%s x%d: seat %s (row %d col %d) breaks the block starting at %s", zone, q, s.Label, s.Row, s.Col, first.Label)
			}
		}
	}
	centre := float64(e.Hall.Cols+1) / 2
	for _, zone := range []string{"standard", "premium"} {
		for q := 1; q <= 10; q++ {
			ids, free := seats.BestAvailable(e.Hall, states, zone, q, false)
			checkBlock(e.Hall, ids, zone, q)
			wantFree := 140
			if zone == "premium" {
				wantFree = 59
			}
			if free != wantFree {
				t.Errorf("%s: %d free, want %d", zone, free, wantFree)
			}
			// nearest the centre: no block of that row lies closer to the middle
			a, b := seatOf(e.Hall, ids[0]), seatOf(e.Hall, ids[q-1])
			got := absf(float64(a.Col+b.Col)/2 - centre)
			best := centre
			for c := 1; c+q-1 <= e.Hall.Cols; c++ {
				if c <= 11 && c+q-1 >= 11 {
					continue // would span the aisle
				}
				best = min(best, absf(float64(2*c+q-1)/2-centre))
			}
			if got != best {
				t.Errorf("%s x%d: block %s-%s is %.1f from the centre, a block %.1f away exists", zone, q, a.Label, b.Label, got, best)
			}
		}
		if ids, _ := seats.BestAvailable(e.Hall, states, zone, 11, false); ids != nil {
			t.Errorf("%s x11: got a block across the aisle: %v", zone, ids)
		}
	}
	// only the two seats either side of the aisle are free in the standard zone
	aisle := map[int64]string{}
	for id, v := range states {
		aisle[id] = v
		if s := seatOf(e.Hall, id); s.ZoneCode == "standard" && s.Label != "G10" && s.Label != "G11" {
			aisle[id] = "H|X|1"
		}
	}
	if ids, free := seats.BestAvailable(e.Hall, aisle, "standard", 2, false); ids != nil || free != 2 {
		t.Errorf("G10 and G11 across the aisle: %v (%d free), want no block", ids, free)
	}

	// accessible seating in a custom hall
	h := e.MakeLayout("Access Hall",
		testenv.RowSpec{Zone: "standard", Seats: "SSSSS.SSSSS"},
		testenv.RowSpec{Zone: "standard", Seats: "SSSSS.SSSSS"},
		testenv.RowSpec{Zone: "standard", Seats: "WCSSS.SSSCW"},
	)
	hs := map[int64]string{}
	for _, s := range h.Seats {
		hs[s.ID] = "F"
	}
	for q := 1; q <= 4; q++ {
		ids, _ := seats.BestAvailable(h, hs, "standard", q, true)
		checkBlock(h, ids, "standard", q)
		wheel := 0
		for _, id := range ids {
			if seatOf(h, id).Kind == services.KindWheelchair {
				wheel++
			}
		}
		if wheel == 0 {
			t.Errorf("accessible x%d: no wheelchair space in %v", q, ids)
		}
		plain, _ := seats.BestAvailable(h, hs, "standard", q, false)
		checkBlock(h, plain, "standard", q)
		for _, id := range plain {
			if k := seatOf(h, id).Kind; k != services.KindStandard {
				t.Errorf("plain x%d took a %s seat", q, k)
			}
		}
	}
	if ids, _ := seats.BestAvailable(h, hs, "standard", 6, true); ids != nil {
		t.Errorf("accessible x6 crossed the aisle: %v", ids)
	}

	// through Create: adjacent seats, held in Redis
	ctx := context.Background()
	show := e.OnSaleShow(h.ID, 0)
	for i, tc := range []struct {
		zone string
		q    int
		acc  bool
	}{{"standard", 3, false}, {"standard", 4, false}, {"standard", 2, true}, {"standard", 1, true}} {
		u := e.User(100 + i)
		o, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: u, ShowID: show.ID, Zone: tc.zone, Quantity: tc.q, Accessible: tc.acc})
		if err != nil {
			t.Fatalf("best available %+v: %v", tc, err)
		}
		ids := make([]int64, len(o.Seats))
		for j, s := range o.Seats {
			ids[j] = s.SeatID
			if v := e.SeatVal(show.ID, s.SeatID); v != testenv.HeldBy(o) {
				t.Errorf("%s is %q in Redis", s.Label, v)
			}
		}
		checkBlock(h, ids, tc.zone, tc.q)
		block := make([]*services.Seat, len(ids))
		for j, id := range ids {
			block[j] = seatOf(h, id)
		}
		if tc.acc && !seats.HasWheelchair(block) {
			t.Errorf("accessible order %v has no wheelchair space", orders.Labels(o.Seats))
		}
		t.Logf("best available %+v -> %v", tc, orders.Labels(o.Seats))
	}
	before := e.State()
	if _, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(200), ShowID: show.ID, Zone: "standard", Quantity: 1, Accessible: true}); services.ErrorCode(err) != services.CodeSoldOut && services.ErrorCode(err) != services.CodeNoAdjacentSeats {
		t.Errorf("a third accessible order with both wheelchair spaces held: %v", err)
	}
	if after := e.State(); after != before {
		t.Errorf("a refused best-available order wrote something:\n%s", testenv.StateDiff(before, after))
	}
}

func absf(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// TestInvariant2_BestAvailableRefusesWholeWhenNoBlockFits proves the refusals of best
// available write nothing (invariant 2): NO_ADJACENT_SEATS when only scattered single
// seats remain, SOLD_OUT when the zone has fewer free seats than asked.
func TestInvariant2_BestAvailableRefusesWholeWhenNoBlockFits(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	h := e.MakeLayout("Small Hall", testenv.RowSpec{Zone: "standard", Seats: "SSSSS"}, testenv.RowSpec{Zone: "premium", Seats: "SSS"})
	show := e.OnSaleShow(h.ID, 0)
	if _, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(1), ShowID: show.ID, SeatIDs: testenv.HallSeatIDs(t, h, "A2", "A4", "B2")}); err != nil {
		t.Fatal(err)
	}
	u := e.User(2)
	for _, tc := range []struct {
		zone string
		q    int
		want string
	}{
		{"standard", 2, services.CodeNoAdjacentSeats}, // A1, A3, A5 are free, none side by side
		{"standard", 4, services.CodeSoldOut},         // 3 free
		{"premium", 2, services.CodeNoAdjacentSeats},  // B1, B3
		{"premium", 3, services.CodeSoldOut},
	} {
		before := e.State()
		_, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: u, ShowID: show.ID, Zone: tc.zone, Quantity: tc.q})
		if services.ErrorCode(err) != tc.want {
			t.Errorf("%s x%d: %v, want %s", tc.zone, tc.q, err, tc.want)
		}
		if after := e.State(); after != before {
			t.Errorf("%s x%d wrote something:\n%s", tc.zone, tc.q, testenv.StateDiff(before, after))
		}
	}
	o, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: u, ShowID: show.ID, Zone: "standard", Quantity: 1})
	if err != nil || len(o.Seats) != 1 {
		t.Fatalf("a single seat: %v %v", o, err)
	}
	if l := o.Seats[0].Label; l != "A3" {
		t.Errorf("single seat %s, want the centre seat A3", l)
	}
}

// lostReplyHook makes the hold script's reply get lost after Redis ran it, as a
// timeout on a slow or broken connection does: the script's writes happen, the caller
// sees an error.
type lostReplyHook struct {
	scripts map[string]bool // sha and source of the hold script
	armed   atomic.Bool
}

func (h *lostReplyHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *lostReplyHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h *lostReplyHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		args := cmd.Args()
		if err == nil && h.armed.Load() && (cmd.Name() == "evalsha" || cmd.Name() == "eval") && len(args) > 1 && h.scripts[fmt.Sprint(args[1])] {
			cmd.SetErr(context.DeadlineExceeded)
			return context.DeadlineExceeded
		}
		return err
	}
}

// TestInvariant2_LostHoldReplyWritesNothing proves the promise of UNAVAILABLE ("nothing
// was written", API.md; "every error leaves Redis and MySQL as they were", Create) when
// the hold script ran in Redis but its reply was lost (a timeout): the order fails with
// UNAVAILABLE, so its holds must be released (owner-checked, as after a failed insert).
// Left in place they are orphans that keep the seats from everyone, the buyer's retry
// included (SEAT_TAKEN), and count against the buyer's purchase limit until
// reconciliation's grace period ends.
func TestInvariant2_LostHoldReplyWritesNothing(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	if _, err := e.Create(e.User(9), e.SeatIDs("A1")...); err != nil { // load the map
		t.Fatal(err)
	}
	hook := &lostReplyHook{scripts: map[string]bool{redis.NewScript(lua.Order).Hash(): true, lua.Order: true}}
	rdb := redis.NewClient(&redis.Options{Addr: e.RDB.(*redis.Client).Options().Addr, DB: testenv.TestRedisDB})
	defer rdb.Close()
	rdb.AddHook(hook)
	seats := seats.NewSeatStore(rdb, e.DB, e.Catalog, "sf")
	orderList := orders.NewOrders(e.DB, e.Catalog, seats, e.Limiter, e.Clock, orders.OrdersConfig{HoldFor: 15 * time.Minute, Expiry: e.Expiry})
	u := e.User(1)
	ids := e.SeatIDs("F5", "F6", "F7")
	before := e.RedisStateNorm()
	hook.armed.Store(true)
	_, err := orderList.Create(ctx, orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, SeatIDs: ids})
	hook.armed.Store(false)
	if services.ErrorCode(err) != services.CodeUnavailable {
		t.Fatalf("create with the hold reply lost: %v, want UNAVAILABLE", err)
	}
	if after := e.RedisStateNorm(); after != before {
		t.Errorf("an UNAVAILABLE order left writes in Redis:\n%s", testenv.StateDiff(before, after))
	}
	if _, err := e.Create(u, ids...); err != nil {
		t.Errorf("the buyer retries the same seats: %v", err)
	}
}

// TestInvariant2_PurchaseLimitHoldsWhenTheCacheForgot: the seat cache counts the
// user's seats, but when it has forgotten them (Redis wiped and rebuilt while an order
// was in flight), the order transaction's own count in MySQL still refuses a batch over
// the limit, and nothing of it stays in either store.
func TestInvariant2_PurchaseLimitHoldsWhenTheCacheForgot(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	u := e.User(0)
	if _, err := e.Create(u, e.SeatIDs("A1", "A2", "A3")...); err != nil {
		t.Fatal(err)
	}
	// the cache forgets the user's three seats
	if err := e.RDB.HSet(ctx, e.Seats.Keys(e.Show.ID)[2], strconv.FormatInt(u, 10), 0).Err(); err != nil {
		t.Fatal(err)
	}
	_, err := e.Create(u, e.SeatIDs("B1", "B2")...)
	if services.ErrorCode(err) != services.CodeLimitExceeded {
		t.Fatalf("3 + 2 seats with the cache's count lost: %v, want LIMIT_EXCEEDED", err)
	}
	for _, l := range []string{"B1", "B2"} {
		if v := e.SeatVal(e.Show.ID, e.SeatIDs(l)[0]); v != "F" {
			t.Errorf("seat %s is %q after the refusal, want F", l, v)
		}
	}
	var live int
	e.DB.Get(&live, "SELECT COUNT(*) FROM order_seats os JOIN orders o ON o.id = os.order_id WHERE o.user_id = ? AND os.live = 1", u)
	if live != 3 {
		t.Errorf("%d live seats in MySQL, want 3", live)
	}
}

// TestIdempotencyKey_ReplayedWhenRedisForgotIt: a key is checked in MySQL only when
// Redis remembers it was used; when Redis lost that (flushed), the retry's insert meets
// the first order's key in MySQL and the retry returns the first order, holding nothing
// and creating nothing.
func TestIdempotencyKey_ReplayedWhenRedisForgotIt(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	u := e.User(0)
	req := orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, SeatIDs: e.SeatIDs("D4", "D5"), IdempotencyKey: "retry-after-a-flush"}
	first, err := e.Orders.Create(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.RDB.Del(ctx, e.Orders.IdempotencyKeyNames(e.Show.ID, u, req.IdempotencyKey)[1]).Err(); err != nil {
		t.Fatal(err)
	}
	other := req
	other.SeatIDs = e.SeatIDs("D4", "D5")
	again, err := e.Orders.Create(ctx, other)
	if err != nil {
		t.Fatalf("retry: %v", err)
	}
	if again.OrderNo != first.OrderNo {
		t.Errorf("retry created %s, want the first order %s", again.OrderNo, first.OrderNo)
	}
	var n int
	e.DB.Get(&n, "SELECT COUNT(*) FROM orders WHERE user_id = ?", u)
	if n != 1 {
		t.Errorf("%d orders for one key", n)
	}
	e.CheckInvariants()
}
