package services

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
)

// TestInvariant2_PurchaseLimitIsInclusive proves that the purchase limit (4) is checked
// whole with the batch (invariant 2): holding 3, one more seat is allowed; holding 4,
// one more is refused with LIMIT_EXCEEDED and nothing is written; paid seats count,
// cancelled ones do not. An off-by-one (>= instead of >) or a limit that only looked at
// the batch would let a user hold 5 seats or refuse the 4th.
func TestInvariant2_PurchaseLimitIsInclusive(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	u := e.user(1)
	if _, err := e.create(u, e.seatIDs("A1", "A2", "A3")...); err != nil {
		t.Fatal(err)
	}
	if _, err := e.create(u, e.seatIDs("A4")...); err != nil {
		t.Fatalf("holding 3, one more: %v", err)
	}
	before := e.state()
	if _, err := e.create(u, e.seatIDs("A5")...); ErrorCode(err) != CodeLimitExceeded {
		t.Fatalf("holding 4, one more: %v, want LIMIT_EXCEEDED", err)
	}
	if _, err := e.create(u, e.seatIDs("B1", "B2")...); ErrorCode(err) != CodeLimitExceeded {
		t.Fatalf("holding 4, two more: %v, want LIMIT_EXCEEDED", err)
	}
	if after := e.state(); after != before {
		t.Errorf("a refused order wrote something:\n%s", stateDiff(before, after))
	}
	if c := e.userCount(e.show.ID, u); c != "4" {
		t.Errorf("user counter %q, want 4", c)
	}

	// a batch over the limit on its own, from a fresh user
	v := e.user(2)
	before = e.state()
	if _, err := e.create(v, e.seatIDs("C1", "C2", "C3", "C4", "C5")...); ErrorCode(err) != CodeLimitExceeded && ErrorCode(err) != CodeInvalidRequest {
		t.Fatalf("5 seats at once: %v, want LIMIT_EXCEEDED or INVALID_REQUEST", err)
	}
	if after := e.state(); after != before {
		t.Errorf("a refused 5-seat batch wrote something:\n%s", stateDiff(before, after))
	}

	// paid seats count against the limit, cancelled ones do not
	paid, err := e.create(v, e.seatIDs("D1", "D2")...)
	if err != nil {
		t.Fatal(err)
	}
	pay, _, err := e.payments.Start(ctx, v, paid.OrderNo, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.payments.DemoDecide(ctx, pay.PaymentID, true); err != nil {
		t.Fatal(err)
	}
	if s := e.orderStatus(paid.OrderNo); s != OrderPaid {
		t.Fatalf("order is %s after approval", s)
	}
	gone, err := e.create(v, e.seatIDs("D3", "D4")...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.create(v, e.seatIDs("D5")...); ErrorCode(err) != CodeLimitExceeded {
		t.Fatalf("2 paid + 2 held, one more: %v, want LIMIT_EXCEEDED", err)
	}
	if _, err := e.orders.Cancel(ctx, v, gone.OrderNo); err != nil {
		t.Fatal(err)
	}
	if _, err := e.create(v, e.seatIDs("D5", "D6", "D7")...); ErrorCode(err) != CodeLimitExceeded {
		t.Fatalf("2 paid, three more: %v, want LIMIT_EXCEEDED", err)
	}
	if _, err := e.create(v, e.seatIDs("D5", "D6")...); err != nil {
		t.Fatalf("2 paid, 2 more after a cancel: %v", err)
	}
	e.checkInvariants()
}

// TestInvariant2_ParallelRequestsOfOneUserStayWithinLimit proves the purchase limit
// holds under concurrency: 50 goroutines of one user ask for disjoint batches of 1-2
// seats at once. Only the limit can refuse them, and the user must end with at most 4
// seats in MySQL and in Redis (a limit read outside the atomic script would let several
// batches pass the check together).
func TestInvariant2_ParallelRequestsOfOneUserStayWithinLimit(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	u := e.user(1)
	all := e.sellable()
	var got, refused atomic.Int64
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 50; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			ids := all[2*g : 2*g+1+g%2] // 1 or 2 seats, disjoint from every other goroutine's
			<-start
			o, err := e.orders.Create(ctx, CreateOrderRequest{UserID: u, ShowID: e.show.ID, SeatIDs: ids})
			switch ErrorCode(err) {
			case "":
				if err != nil {
					t.Error(err)
					return
				}
				got.Add(int64(len(o.Seats)))
			case CodeLimitExceeded:
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
	if err := e.db.Get(&mysqlSeats, `SELECT COUNT(*) FROM order_seats os JOIN orders o ON o.id = os.order_id
		WHERE o.user_id = ? AND os.live = 1`, u); err != nil {
		t.Fatal(err)
	}
	if got.Load() > 4 || mysqlSeats > 4 || mysqlSeats != int(got.Load()) || got.Load() < 3 {
		t.Errorf("the user got %d seats (%d in MySQL), want 3 or 4", got.Load(), mysqlSeats)
	}
	if c := e.userCount(e.show.ID, u); c != strconv.Itoa(mysqlSeats) {
		t.Errorf("Redis counter %q, MySQL %d", c, mysqlSeats)
	}
	e.checkInvariants()
}

// TestInvariant2_BadInputWritesNothing proves "any failed check writes nothing, in Redis
// or in MySQL" (invariant 2) for every kind of bad request, and that each gets the
// contract's error code. A check made after the first write, or a partial batch held
// before a taken seat was found, would change the snapshot of Redis (every key of every
// show, in full) or the MySQL row counts.
func TestInvariant2_BadInputWritesNothing(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	owner, u, full := e.user(1), e.user(2), e.user(3)
	if _, err := e.create(owner, e.seatIDs("E5", "E6")...); err != nil { // loads the map, holds two seats
		t.Fatal(err)
	}
	if _, err := e.create(full, e.seatIDs("A1", "A2", "A3", "A4")...); err != nil {
		t.Fatal(err)
	}
	if _, err := e.orders.Create(ctx, CreateOrderRequest{UserID: u, ShowID: e.show.ID, SeatIDs: e.seatIDs("B9"), IdempotencyKey: "used-key"}); err != nil {
		t.Fatal(err)
	}
	other := e.makeLayout("Other Hall", rowSpec{"standard", "SSSS"})
	now := e.clock.Now()
	later := e.makeShow(e.hall.ID, ShowOnSale, now.Add(time.Hour), now.Add(72*time.Hour))
	cancelled := e.makeShow(e.hall.ID, ShowCancelled, now.Add(-time.Hour), now.Add(73*time.Hour))
	closed := e.makeShow(e.hall.ID, ShowOnSale, now.Add(-48*time.Hour), now.Add(-time.Hour))
	draft := e.makeShow(e.hall.ID, ShowDraft, now.Add(-time.Hour), now.Add(74*time.Hour)) // held back from sale
	i64 := func(v int64) *int64 { return &v }
	hundred := make([]int64, 101)
	for i := range hundred {
		hundred[i] = e.sellable()[i]
	}
	show := e.show.ID
	cases := []struct {
		name string
		req  CreateOrderRequest
		want []string
	}{
		{"duplicate seat ids", CreateOrderRequest{SeatIDs: e.seatIDs("C1", "C1")}, []string{CodeInvalidRequest}},
		{"duplicate among others", CreateOrderRequest{SeatIDs: e.seatIDs("C1", "C2", "C1")}, []string{CodeInvalidRequest}},
		{"seat of another hall", CreateOrderRequest{SeatIDs: hallSeatIDs(t, other, "A1")}, []string{CodeSeatNotInShow}},
		{"free seat plus a seat of another hall", CreateOrderRequest{SeatIDs: append(e.seatIDs("C1"), hallSeatIDs(t, other, "A2")...)}, []string{CodeSeatNotInShow}},
		{"blocked seat", CreateOrderRequest{SeatIDs: e.seatIDs("J1")}, []string{CodeSeatNotInShow}},
		{"free seat plus a blocked seat", CreateOrderRequest{SeatIDs: e.seatIDs("C1", "J1")}, []string{CodeSeatNotInShow}},
		{"unknown seat id", CreateOrderRequest{SeatIDs: []int64{987654321}}, []string{CodeSeatNotInShow}},
		{"zero seat id", CreateOrderRequest{SeatIDs: []int64{0}}, []string{CodeInvalidRequest}},
		{"negative seat id", CreateOrderRequest{SeatIDs: []int64{-5}}, []string{CodeInvalidRequest}},
		{"empty seat list", CreateOrderRequest{SeatIDs: []int64{}}, []string{CodeInvalidRequest}},
		{"101 seats", CreateOrderRequest{SeatIDs: hundred}, []string{CodeInvalidRequest, CodeLimitExceeded}},
		{"5 seats", CreateOrderRequest{SeatIDs: e.seatIDs("C1", "C2", "C3", "C4", "C5")}, []string{CodeInvalidRequest, CodeLimitExceeded}},
		{"zero quantity", CreateOrderRequest{Zone: "standard", Quantity: 0}, []string{CodeInvalidRequest}},
		{"negative quantity", CreateOrderRequest{Zone: "standard", Quantity: -2}, []string{CodeInvalidRequest}},
		{"huge quantity", CreateOrderRequest{Zone: "standard", Quantity: 1 << 40}, []string{CodeInvalidRequest, CodeLimitExceeded}},
		{"quantity over the limit", CreateOrderRequest{Zone: "standard", Quantity: 5}, []string{CodeInvalidRequest, CodeLimitExceeded}},
		{"unknown zone", CreateOrderRequest{Zone: "vip", Quantity: 2}, []string{CodeInvalidRequest}},
		{"seats and zone together", CreateOrderRequest{SeatIDs: e.seatIDs("C1"), Zone: "standard", Quantity: 1}, []string{CodeInvalidRequest}},
		{"expected total mismatch", CreateOrderRequest{SeatIDs: e.seatIDs("C1", "H3"), ExpectedTotalMinor: i64(4500 + 6000)}, []string{CodePriceChanged}},
		{"expected total mismatch, best available", CreateOrderRequest{Zone: "premium", Quantity: 2, ExpectedTotalMinor: i64(9000)}, []string{CodePriceChanged}},
		{"free seat plus a held seat", CreateOrderRequest{SeatIDs: e.seatIDs("C1", "C2", "E6")}, []string{CodeSeatTaken}},
		{"user at the limit", CreateOrderRequest{UserID: full, SeatIDs: e.seatIDs("C1")}, []string{CodeLimitExceeded}},
		{"idempotency key with another body", CreateOrderRequest{SeatIDs: e.seatIDs("C1"), IdempotencyKey: "used-key"}, []string{CodeIdempotencyMismatch}},
		{"idempotency key too long", CreateOrderRequest{SeatIDs: e.seatIDs("C1"), IdempotencyKey: strings.Repeat("k", 65)}, []string{CodeInvalidRequest}},
		{"idempotency key not printable", CreateOrderRequest{SeatIDs: e.seatIDs("C1"), IdempotencyKey: "a b"}, []string{CodeInvalidRequest}},
		{"unknown show", CreateOrderRequest{ShowID: 999999, SeatIDs: e.seatIDs("C1")}, []string{CodeNotFound}},
		{"sale not open yet", CreateOrderRequest{ShowID: later.ID, SeatIDs: e.seatIDs("C1")}, []string{CodeNotOnSale}},
		{"sale not open yet, best available", CreateOrderRequest{ShowID: later.ID, Zone: "standard", Quantity: 2}, []string{CodeNotOnSale}},
		{"cancelled show", CreateOrderRequest{ShowID: cancelled.ID, SeatIDs: e.seatIDs("C1")}, []string{CodeNotOnSale}},
		{"sale closed", CreateOrderRequest{ShowID: closed.ID, SeatIDs: e.seatIDs("C1")}, []string{CodeNotOnSale}},
		{"draft show with an open window", CreateOrderRequest{ShowID: draft.ID, SeatIDs: e.seatIDs("C1")}, []string{CodeNotOnSale}},
	}
	for _, c := range cases {
		req := c.req
		if req.UserID == 0 {
			req.UserID = u
		}
		if req.ShowID == 0 {
			req.ShowID = show
		}
		before := e.state()
		o, err := e.orders.Create(ctx, req)
		code := ErrorCode(err)
		ok := false
		for _, w := range c.want {
			ok = ok || code == w
		}
		if !ok {
			t.Errorf("%s: got %v (order %v), want %v", c.name, err, o, c.want)
		}
		if after := e.state(); after != before {
			t.Errorf("%s: the refused order wrote something:\n%s", c.name, stateDiff(before, after))
		}
	}
	e.checkInvariants()
}

// TestInvariant2_InsertFailureReleasesHolds proves the all-or-nothing rule across the
// two stores (invariant 2, pipeline step 6): when the MySQL transaction fails after the
// Lua hold, the holds are released (owner-checked) and the counters restored, so
// nothing of the failed order remains; a user whose counter leaked would then be unable
// to order 4 seats.
func TestInvariant2_InsertFailureReleasesHolds(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	u := e.user(1)
	if _, err := e.create(e.user(2), e.seatIDs("A1")...); err != nil { // load the map
		t.Fatal(err)
	}
	before := e.state()
	var stages []string
	e.orders.SetFailHook(func(stage string) error { stages = append(stages, stage); return errors.New("boom") })
	ids := e.seatIDs("F5", "F6", "H1", "H2")
	_, err := e.orders.Create(ctx, CreateOrderRequest{UserID: u, ShowID: e.show.ID, SeatIDs: ids, IdempotencyKey: "k1"})
	if ErrorCode(err) != CodeUnavailable {
		t.Fatalf("create with a failing insert: %v, want UNAVAILABLE", err)
	}
	if len(stages) == 0 {
		t.Fatal("the fail hook was never called")
	}
	if _, err := e.orders.Create(ctx, CreateOrderRequest{UserID: u, ShowID: e.show.ID, Zone: "standard", Quantity: 3}); ErrorCode(err) != CodeUnavailable {
		t.Fatalf("best available with a failing insert: %v, want UNAVAILABLE", err)
	}
	for _, id := range ids {
		if v := e.seatVal(e.show.ID, id); v != "F" {
			t.Errorf("seat %d is %q after the failed order", id, v)
		}
	}
	if c := e.userCount(e.show.ID, u); c != "" && c != "0" {
		t.Errorf("user counter %q after the failed order", c)
	}
	if after := e.redisStateNorm(); after != strings.SplitN(before, "--\n", 2)[0] {
		t.Errorf("Redis changed:\n%s", stateDiff(before, after))
	}
	if after := e.dbState(); after != strings.SplitN(before, "--\n", 2)[1] {
		t.Errorf("MySQL changed:\n%s", stateDiff(before, after))
	}
	e.orders.SetFailHook(nil)
	o, err := e.orders.Create(ctx, CreateOrderRequest{UserID: u, ShowID: e.show.ID, SeatIDs: ids, IdempotencyKey: "k1"})
	if err != nil {
		t.Fatalf("the same 4 seats once the database works: %v", err)
	}
	if len(o.Seats) != 4 || e.userCount(e.show.ID, u) != "4" {
		t.Errorf("order %+v, counter %q", o, e.userCount(e.show.ID, u))
	}
	e.checkInvariants()
}

// TestInvariant1_IdempotencyKeyReplaysOneOrder proves that a retried request can never
// hold seats twice (invariant 1 seen from one buyer): the same key and body return the
// first order, one row in MySQL; the same key with another body is
// IDEMPOTENCY_MISMATCH and writes nothing; 20 concurrent replays create exactly one
// order; keys are per user; after 24 h the key may be used for a new order.
func TestInvariant1_IdempotencyKeyReplaysOneOrder(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	u, v := e.user(1), e.user(2)
	req := CreateOrderRequest{UserID: u, ShowID: e.show.ID, SeatIDs: e.seatIDs("G5", "G6"), IdempotencyKey: "order-1"}
	first, err := e.orders.Create(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	again, err := e.orders.Create(ctx, req)
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if again.OrderNo != first.OrderNo || again.TotalMinor != first.TotalMinor || !again.ExpiresAt.Equal(first.ExpiresAt) || len(again.Seats) != 2 || again.Status != OrderPending {
		t.Errorf("replay %+v differs from the first answer %+v", again, first)
	}
	if n := e.countOrders(); n != 1 {
		t.Errorf("%d orders after a replay", n)
	}
	before := e.state()
	diff := req
	diff.SeatIDs = e.seatIDs("G7")
	if _, err := e.orders.Create(ctx, diff); ErrorCode(err) != CodeIdempotencyMismatch {
		t.Errorf("same key, other seats: %v, want IDEMPOTENCY_MISMATCH", err)
	}
	diff = req
	diff.ExpectedTotalMinor = new(int64)
	*diff.ExpectedTotalMinor = 9000
	if _, err := e.orders.Create(ctx, diff); ErrorCode(err) != CodeIdempotencyMismatch {
		t.Errorf("same key, body with an expected total: %v, want IDEMPOTENCY_MISMATCH", err)
	}
	if after := e.state(); after != before {
		t.Errorf("a mismatched key wrote something:\n%s", stateDiff(before, after))
	}
	// keys are per user
	ov, err := e.orders.Create(ctx, CreateOrderRequest{UserID: v, ShowID: e.show.ID, SeatIDs: e.seatIDs("G7"), IdempotencyKey: "order-1"})
	if err != nil || ov.OrderNo == first.OrderNo {
		t.Errorf("another user's order with the same key: %v %v", ov, err)
	}

	// 20 concurrent requests with one fresh key and body
	w := e.user(3)
	creq := CreateOrderRequest{UserID: w, ShowID: e.show.ID, SeatIDs: e.seatIDs("H10", "H11"), IdempotencyKey: "burst"}
	nos := make([]string, 20)
	errs := make([]error, 20)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range nos {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			o, err := e.orders.Create(ctx, creq)
			errs[i] = err
			if err == nil {
				nos[i] = o.OrderNo
			}
		}(i)
	}
	close(start)
	wg.Wait()
	var orderNos []string
	if err := e.db.Select(&orderNos, "SELECT order_no FROM orders WHERE user_id = ?", w); err != nil {
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
			codes[ErrorCode(errs[i])]++
		}
	}
	t.Logf("20 concurrent replays: %v", codes)
	if codes["ok"] == 0 {
		t.Error("no concurrent replay got the order")
	}
	e.checkInvariants()

	// after 24 h the key is forgotten: the same request makes a new order
	e.clock.Advance(25 * time.Hour)
	if ok, err := e.orders.Expire(ctx, first.OrderNo); err != nil || !ok {
		t.Fatalf("expire the first order: %v %v", ok, err)
	}
	fresh, err := e.orders.Create(ctx, req)
	if err != nil {
		t.Fatalf("the key after 25 h: %v", err)
	}
	if fresh.OrderNo == first.OrderNo {
		t.Error("a key older than 24 h replayed the old order")
	}
	if again, err := e.orders.Create(ctx, req); err != nil || again.OrderNo != fresh.OrderNo {
		t.Errorf("a replay of the renewed key: %v %v, want %s", again, err, fresh.OrderNo)
	}
	e.checkInvariants()
}

// TestInvariant1_ConcurrentReplaysAllGetTheFirstOrder states the contract for replays
// that arrive while the first request is still in flight (a client retrying after a
// timeout): API.md promises a replay "the same 201 body", and Create tries to honour
// that ("a concurrent replay of the same request may have taken these seats"). Each of
// the 20 concurrent requests must therefore answer the one order, never SEAT_TAKEN for
// the buyer's own seats (nor LIMIT_EXCEEDED for a best-available replay).
func TestInvariant1_ConcurrentReplaysAllGetTheFirstOrder(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	if _, err := e.create(e.user(9), e.seatIDs("A1")...); err != nil { // load the map
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		req  CreateOrderRequest
	}{
		{"chosen seats", CreateOrderRequest{SeatIDs: e.seatIDs("H10", "H11")}},
		{"best available", CreateOrderRequest{Zone: "standard", Quantity: 3}},
	} {
		req := tc.req
		req.UserID, req.ShowID, req.IdempotencyKey = e.user(1), e.show.ID, "retry-"+tc.name[:4]
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
				o, err := e.orders.Create(ctx, req)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					codes[ErrorCode(err)]++
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
		if err := e.db.Get(&n, "SELECT COUNT(*) FROM orders WHERE user_id = ?", req.UserID); err != nil || n != 1 {
			t.Errorf("%s: %d orders (%v)", tc.name, n, err)
		}
	}
	e.checkInvariants()
}

// TestInvariant2_RateLimitedAndLimiterDownWriteNothing proves that the rate limits are
// checks made before the first write (invariant 2) and fail closed (pipeline step 4):
// the third order in a row of a user allowed 2 per minute with a burst of 2 is
// RATE_LIMITED with a Retry-After of at least 1 s and writes nothing, while another user
// is unaffected; with the limiter's Redis unreachable the answer is UNAVAILABLE, never
// "allowed", and nothing is written.
func TestInvariant2_RateLimitedAndLimiterDownWriteNothing(t *testing.T) {
	e := newTestEnv(t, Limits{UserPerMinute: 2, UserBurst: 2, ShowPerSecond: 1e6, ShowBurst: 1e6, LoginPerMinute: 1e6, LoginBurst: 1e6})
	ctx := context.Background()
	u, v := e.user(1), e.user(2)
	if _, err := e.create(u, e.seatIDs("A1")...); err != nil {
		t.Fatal(err)
	}
	if _, err := e.create(u, e.seatIDs("A2")...); err != nil {
		t.Fatal(err)
	}
	before := e.state()
	_, err := e.create(u, e.seatIDs("A3")...)
	var re *Error
	if !errors.As(err, &re) || re.Code != CodeRateLimited || re.RetryAfterS < 1 {
		t.Fatalf("third order in a row: %#v, want RATE_LIMITED with RetryAfterS >= 1", err)
	}
	t.Logf("third order: %s, retry after %d s", re.Code, re.RetryAfterS)
	if after := e.state(); after != before {
		t.Errorf("a rate-limited order wrote something:\n%s", stateDiff(before, after))
	}
	if _, err := e.create(v, e.seatIDs("A3")...); err != nil {
		t.Errorf("another user is limited too: %v", err)
	}

	// the show's bucket
	es := newTestEnv(t, Limits{UserPerMinute: 1e6, UserBurst: 1e6, ShowPerSecond: 1, ShowBurst: 3, LoginPerMinute: 1e6, LoginBurst: 1e6})
	users := es.bulkUsers(4)
	for i, uid := range users[:3] {
		if _, err := es.create(uid, es.sellable()[i]); err != nil {
			t.Fatalf("order %d for the show: %v", i, err)
		}
	}
	before = es.state()
	if _, err := es.create(users[3], es.sellable()[3]); ErrorCode(err) != CodeRateLimited {
		t.Errorf("fourth order for a show with a burst of 3: %v, want RATE_LIMITED", err)
	}
	if after := es.state(); after != before {
		t.Errorf("a rate-limited order wrote something:\n%s", stateDiff(before, after))
	}

	// the limiter's Redis is down
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DialTimeout: 300 * time.Millisecond, MaxRetries: -1,
		DialerRetries: 1, DialerRetryTimeout: time.Millisecond})
	defer down.Close()
	lim := NewRateLimiter(down, unlimited, "sf")
	if err := lim.AllowOrder(ctx, u, es.show.ID); ErrorCode(err) != CodeUnavailable {
		t.Errorf("AllowOrder with Redis down: %v, want UNAVAILABLE", err)
	}
	if err := lim.AllowLogin(ctx, "x@test.example", "192.0.2.1"); ErrorCode(err) != CodeUnavailable {
		t.Errorf("AllowLogin with Redis down: %v, want UNAVAILABLE", err)
	}
	orders := NewOrders(es.db, es.catalog, es.seats, lim, es.clock, OrdersConfig{HoldFor: 15 * time.Minute, Expiry: es.expiry})
	before = es.state()
	for _, req := range []CreateOrderRequest{
		{UserID: users[3], ShowID: es.show.ID, SeatIDs: es.sellable()[10:12]},
		{UserID: users[3], ShowID: es.show.ID, Zone: "premium", Quantity: 2},
	} {
		if o, err := orders.Create(ctx, req); ErrorCode(err) != CodeUnavailable {
			t.Errorf("create with the limiter down: %v %v, want UNAVAILABLE", o, err)
		}
	}
	if after := es.state(); after != before {
		t.Errorf("an order with the limiter down wrote something:\n%s", stateDiff(before, after))
	}
}

// TestInvariant2_BestAvailablePicksOneContiguousBlock proves that best available holds
// one whole block (invariant 2: the batch is chosen and checked whole): seats side by
// side in one row of the zone, never across the aisle, nearest the centre; accessible
// requests get a block with a wheelchair space and plain ones never take wheelchair or
// companion seats.
func TestInvariant2_BestAvailablePicksOneContiguousBlock(t *testing.T) {
	e := newTestEnv(t, unlimited)
	states := map[int64]string{}
	for _, s := range e.hall.Seats {
		states[s.ID] = "F"
		if !s.Sellable() {
			states[s.ID] = "B"
		}
	}
	seatOf := func(h *Hall, id int64) *Seat { s, _ := h.Seat(id); return s }
	checkBlock := func(h *Hall, ids []int64, zone string, q int) {
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
	centre := float64(e.hall.Cols+1) / 2
	for _, zone := range []string{"standard", "premium"} {
		for q := 1; q <= 10; q++ {
			ids, free := BestAvailable(e.hall, states, zone, q, false)
			checkBlock(e.hall, ids, zone, q)
			wantFree := 140
			if zone == "premium" {
				wantFree = 59
			}
			if free != wantFree {
				t.Errorf("%s: %d free, want %d", zone, free, wantFree)
			}
			// nearest the centre: no block of that row lies closer to the middle
			a, b := seatOf(e.hall, ids[0]), seatOf(e.hall, ids[q-1])
			got := absf(float64(a.Col+b.Col)/2 - centre)
			best := centre
			for c := 1; c+q-1 <= e.hall.Cols; c++ {
				if c <= 11 && c+q-1 >= 11 {
					continue // would span the aisle
				}
				best = min(best, absf(float64(2*c+q-1)/2-centre))
			}
			if got != best {
				t.Errorf("%s x%d: block %s-%s is %.1f from the centre, a block %.1f away exists", zone, q, a.Label, b.Label, got, best)
			}
		}
		if ids, _ := BestAvailable(e.hall, states, zone, 11, false); ids != nil {
			t.Errorf("%s x11: got a block across the aisle: %v", zone, ids)
		}
	}
	// only the two seats either side of the aisle are free in the standard zone
	aisle := map[int64]string{}
	for id, v := range states {
		aisle[id] = v
		if s := seatOf(e.hall, id); s.ZoneCode == "standard" && s.Label != "G10" && s.Label != "G11" {
			aisle[id] = "H|X|1"
		}
	}
	if ids, free := BestAvailable(e.hall, aisle, "standard", 2, false); ids != nil || free != 2 {
		t.Errorf("G10 and G11 across the aisle: %v (%d free), want no block", ids, free)
	}

	// accessible seating in a custom hall
	h := e.makeLayout("Access Hall",
		rowSpec{"standard", "SSSSS.SSSSS"},
		rowSpec{"standard", "SSSSS.SSSSS"},
		rowSpec{"standard", "WCSSS.SSSCW"},
	)
	hs := map[int64]string{}
	for _, s := range h.Seats {
		hs[s.ID] = "F"
	}
	for q := 1; q <= 4; q++ {
		ids, _ := BestAvailable(h, hs, "standard", q, true)
		checkBlock(h, ids, "standard", q)
		wheel := 0
		for _, id := range ids {
			if seatOf(h, id).Kind == KindWheelchair {
				wheel++
			}
		}
		if wheel == 0 {
			t.Errorf("accessible x%d: no wheelchair space in %v", q, ids)
		}
		plain, _ := BestAvailable(h, hs, "standard", q, false)
		checkBlock(h, plain, "standard", q)
		for _, id := range plain {
			if k := seatOf(h, id).Kind; k != KindStandard {
				t.Errorf("plain x%d took a %s seat", q, k)
			}
		}
	}
	if ids, _ := BestAvailable(h, hs, "standard", 6, true); ids != nil {
		t.Errorf("accessible x6 crossed the aisle: %v", ids)
	}

	// through Create: adjacent seats, held in Redis
	ctx := context.Background()
	show := e.onSaleShow(h.ID, 0)
	for i, tc := range []struct {
		zone string
		q    int
		acc  bool
	}{{"standard", 3, false}, {"standard", 4, false}, {"standard", 2, true}, {"standard", 1, true}} {
		u := e.user(100 + i)
		o, err := e.orders.Create(ctx, CreateOrderRequest{UserID: u, ShowID: show.ID, Zone: tc.zone, Quantity: tc.q, Accessible: tc.acc})
		if err != nil {
			t.Fatalf("best available %+v: %v", tc, err)
		}
		ids := make([]int64, len(o.Seats))
		for j, s := range o.Seats {
			ids[j] = s.SeatID
			if v := e.seatVal(show.ID, s.SeatID); v != heldBy(o) {
				t.Errorf("%s is %q in Redis", s.Label, v)
			}
		}
		checkBlock(h, ids, tc.zone, tc.q)
		block := make([]*Seat, len(ids))
		for j, id := range ids {
			block[j] = seatOf(h, id)
		}
		if tc.acc && !hasWheelchair(block) {
			t.Errorf("accessible order %v has no wheelchair space", labels(o.Seats))
		}
		t.Logf("best available %+v -> %v", tc, labels(o.Seats))
	}
	before := e.state()
	if _, err := e.orders.Create(ctx, CreateOrderRequest{UserID: e.user(200), ShowID: show.ID, Zone: "standard", Quantity: 1, Accessible: true}); ErrorCode(err) != CodeSoldOut && ErrorCode(err) != CodeNoAdjacentSeats {
		t.Errorf("a third accessible order with both wheelchair spaces held: %v", err)
	}
	if after := e.state(); after != before {
		t.Errorf("a refused best-available order wrote something:\n%s", stateDiff(before, after))
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
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	h := e.makeLayout("Small Hall", rowSpec{"standard", "SSSSS"}, rowSpec{"premium", "SSS"})
	show := e.onSaleShow(h.ID, 0)
	if _, err := e.orders.Create(ctx, CreateOrderRequest{UserID: e.user(1), ShowID: show.ID, SeatIDs: hallSeatIDs(t, h, "A2", "A4", "B2")}); err != nil {
		t.Fatal(err)
	}
	u := e.user(2)
	for _, tc := range []struct {
		zone string
		q    int
		want string
	}{
		{"standard", 2, CodeNoAdjacentSeats}, // A1, A3, A5 are free, none side by side
		{"standard", 4, CodeSoldOut},         // 3 free
		{"premium", 2, CodeNoAdjacentSeats},  // B1, B3
		{"premium", 3, CodeSoldOut},
	} {
		before := e.state()
		_, err := e.orders.Create(ctx, CreateOrderRequest{UserID: u, ShowID: show.ID, Zone: tc.zone, Quantity: tc.q})
		if ErrorCode(err) != tc.want {
			t.Errorf("%s x%d: %v, want %s", tc.zone, tc.q, err, tc.want)
		}
		if after := e.state(); after != before {
			t.Errorf("%s x%d wrote something:\n%s", tc.zone, tc.q, stateDiff(before, after))
		}
	}
	o, err := e.orders.Create(ctx, CreateOrderRequest{UserID: u, ShowID: show.ID, Zone: "standard", Quantity: 1})
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
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	if _, err := e.create(e.user(9), e.seatIDs("A1")...); err != nil { // load the map
		t.Fatal(err)
	}
	hook := &lostReplyHook{scripts: map[string]bool{redis.NewScript(lua.Hold).Hash(): true, lua.Hold: true}}
	rdb := redis.NewClient(&redis.Options{Addr: e.rdb.Options().Addr, DB: testRedisDB})
	defer rdb.Close()
	rdb.AddHook(hook)
	seats := NewSeatStore(rdb, e.db, e.catalog, "sf")
	orders := NewOrders(e.db, e.catalog, seats, e.limiter, e.clock, OrdersConfig{HoldFor: 15 * time.Minute, Expiry: e.expiry})
	u := e.user(1)
	ids := e.seatIDs("F5", "F6", "F7")
	before := e.redisStateNorm()
	hook.armed.Store(true)
	_, err := orders.Create(ctx, CreateOrderRequest{UserID: u, ShowID: e.show.ID, SeatIDs: ids})
	hook.armed.Store(false)
	if ErrorCode(err) != CodeUnavailable {
		t.Fatalf("create with the hold reply lost: %v, want UNAVAILABLE", err)
	}
	if after := e.redisStateNorm(); after != before {
		t.Errorf("an UNAVAILABLE order left writes in Redis:\n%s", stateDiff(before, after))
	}
	if _, err := e.create(u, ids...); err != nil {
		t.Errorf("the buyer retries the same seats: %v", err)
	}
}

// TestInvariant2_PurchaseLimitHoldsWhenTheCacheForgot: the seat cache counts the
// user's seats, but when it has forgotten them (Redis wiped and rebuilt while an order
// was in flight), the order transaction's own count in MySQL still refuses a batch over
// the limit, and nothing of it stays in either store.
func TestInvariant2_PurchaseLimitHoldsWhenTheCacheForgot(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	u := e.user(0)
	if _, err := e.create(u, e.seatIDs("A1", "A2", "A3")...); err != nil {
		t.Fatal(err)
	}
	// the cache forgets the user's three seats
	if err := e.rdb.HSet(ctx, e.seats.Keys(e.show.ID)[2], strconv.FormatInt(u, 10), 0).Err(); err != nil {
		t.Fatal(err)
	}
	_, err := e.create(u, e.seatIDs("B1", "B2")...)
	if ErrorCode(err) != CodeLimitExceeded {
		t.Fatalf("3 + 2 seats with the cache's count lost: %v, want LIMIT_EXCEEDED", err)
	}
	for _, l := range []string{"B1", "B2"} {
		if v := e.seatVal(e.show.ID, e.seatIDs(l)[0]); v != "F" {
			t.Errorf("seat %s is %q after the refusal, want F", l, v)
		}
	}
	var live int
	e.db.Get(&live, "SELECT COUNT(*) FROM order_seats os JOIN orders o ON o.id = os.order_id WHERE o.user_id = ? AND os.live = 1", u)
	if live != 3 {
		t.Errorf("%d live seats in MySQL, want 3", live)
	}
}

// TestIdempotencyKey_ReplayedWhenRedisForgotIt: a key is checked in MySQL only when
// Redis remembers it was used; when Redis lost that (flushed), the retry's insert meets
// the first order's key in MySQL and the retry returns the first order, holding nothing
// and creating nothing.
func TestIdempotencyKey_ReplayedWhenRedisForgotIt(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	u := e.user(0)
	req := CreateOrderRequest{UserID: u, ShowID: e.show.ID, SeatIDs: e.seatIDs("D4", "D5"), IdempotencyKey: "retry-after-a-flush"}
	first, err := e.orders.Create(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.rdb.Del(ctx, e.orders.IdempotencyKeyNames(u, req.IdempotencyKey)[1]).Err(); err != nil {
		t.Fatal(err)
	}
	other := req
	other.SeatIDs = e.seatIDs("D4", "D5")
	again, err := e.orders.Create(ctx, other)
	if err != nil {
		t.Fatalf("retry: %v", err)
	}
	if again.OrderNo != first.OrderNo {
		t.Errorf("retry created %s, want the first order %s", again.OrderNo, first.OrderNo)
	}
	var n int
	e.db.Get(&n, "SELECT COUNT(*) FROM orders WHERE user_id = ?", u)
	if n != 1 {
		t.Errorf("%d orders for one key", n)
	}
	e.checkInvariants()
}
