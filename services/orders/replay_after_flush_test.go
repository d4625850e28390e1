package orders_test

import (
	"context"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// TestIdempotencyKey_ReplayOutranksRefusalsAfterAFlush: once Redis lost its data (the
// keys' markers with it), a replay of a keyed create must still return its first order,
// and a reuse of the key with another body IDEMPOTENCY_MISMATCH, although the seat cache
// rebuilt from MySQL now refuses the request (its seats are sold to this very order, the
// zone has too few left, the buyer's limit counts the order's seats). API.md: a replay
// returns the first answer for 24 h; IDEMPOTENCY_MISMATCH outranks SEAT_TAKEN, SOLD_OUT
// and LIMIT_EXCEEDED.
func TestIdempotencyKey_ReplayOutranksRefusalsAfterAFlush(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		first func(e *testenv.TestEnv, u int64) orders.CreateOrderRequest
		other func(e *testenv.TestEnv, u int64) orders.CreateOrderRequest // same key, another body
	}{
		{"chosen seats (SEAT_TAKEN by its own order)", func(e *testenv.TestEnv, u int64) orders.CreateOrderRequest {
			return orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, SeatIDs: e.SeatIDs("E5", "E6"), IdempotencyKey: "k"}
		}, func(e *testenv.TestEnv, u int64) orders.CreateOrderRequest {
			return orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, SeatIDs: e.SeatIDs("E5"), IdempotencyKey: "k"}
		}},
		{"best available over the limit (LIMIT_EXCEEDED counting its own order)", func(e *testenv.TestEnv, u int64) orders.CreateOrderRequest {
			return orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, Zone: "premium", Quantity: 3, IdempotencyKey: "k"}
		}, func(e *testenv.TestEnv, u int64) orders.CreateOrderRequest {
			return orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, Zone: "premium", Quantity: 2, IdempotencyKey: "k"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := testenv.NewTestEnv(t, testenv.Unlimited)
			e.QuietLogs()
			u := e.User(1)
			first, err := e.Orders.Create(ctx, tc.first(e, u))
			if err != nil {
				t.Fatal(err)
			}
			if err := e.RDB.FlushDB(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			again, err := e.Orders.Create(ctx, tc.first(e, u))
			if err != nil || again.OrderNo != first.OrderNo {
				t.Fatalf("the replay after a flush: %+v %v, want order %s", again, err, first.OrderNo)
			}
			if _, err := e.Orders.Create(ctx, tc.other(e, u)); services.ErrorCode(err) != services.CodeIdempotencyMismatch {
				t.Errorf("the key with another body after a flush: %v, want IDEMPOTENCY_MISMATCH", err)
			}
			if n := e.CountOrders(); n != 1 {
				t.Errorf("%d orders, want the first only", n)
			}
			e.CheckInvariants()
		})
	}
}

// TestIdempotencyKey_MarkersEpochAfterAFlush: the first keyed request on a show after
// Redis lost its data sets the epoch of the show's key markers: now when MySQL holds a
// key of an order of that show used in the last 24 h (refusals then ask MySQL for 24 h),
// 24 h ago when it holds none (a new install, a flush after a quiet day, or keys of other
// shows only, which have markers of their own: refusals cost no lookups). Times are the
// application's clock.
func TestIdempotencyKey_MarkersEpochAfterAFlush(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		lastKey time.Duration // age of the newest key in MySQL; 0: none
		onOther bool          // that key is of an order of another show
		young   bool
	}{
		{"no key in MySQL", 0, false, false},
		{"newest key 25 h old", 25 * time.Hour, false, false},
		{"newest key an hour old", time.Hour, false, true},
		{"a key of another show a minute old", time.Minute, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := testenv.NewTestEnv(t, testenv.Unlimited)
			if tc.lastKey > 0 {
				show := e.Show.ID
				if tc.onOther {
					show = e.OnSaleShow(e.Show.HallID, 1).ID
				}
				o, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(2), ShowID: show, SeatIDs: e.SeatIDs("A1"), IdempotencyKey: "old"})
				if err != nil {
					t.Fatal(err)
				}
				e.Exec("UPDATE orders SET created_at = ? WHERE id = ?", e.Clock.Now().Add(-tc.lastKey), o.ID) // the key counts from its order's creation
			}
			if err := e.RDB.FlushDB(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			if _, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(1), ShowID: e.Show.ID, SeatIDs: e.SeatIDs("B1"), IdempotencyKey: "new"}); err != nil {
				t.Fatal(err)
			}
			want := e.Clock.Now().Add(-orders.IdempotencyTTL)
			if tc.young {
				want = e.Clock.Now()
			}
			if got, err := e.RDB.Get(ctx, e.Orders.IdempotencyEpochName(e.Show.ID)).Int64(); err != nil || got != want.Unix() {
				t.Errorf("epoch %d (%v), want %d (%s)", got, err, want.Unix(), want)
			}
		})
	}
}
