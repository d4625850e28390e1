package orders_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// TestPrecheck_TakenSeatsCostNoRateLimitToken: a request for seats another buyer holds
// is refused by the pipelined read (SEAT_TAKEN naming them) before the rate limiter,
// the Idempotency-Key lock or the hold script; it leaves no lock or marker behind and
// does not use up the buyer's order budget.
func TestPrecheck_TakenSeatsCostNoRateLimitToken(t *testing.T) {
	lim := testenv.Unlimited
	lim.UserPerMinute, lim.UserBurst = 1, 1
	e := testenv.NewTestEnv(t, lim)
	ctx := context.Background()
	if _, err := e.Create(e.User(2), e.SeatIDs("A1", "A2")...); err != nil {
		t.Fatal(err)
	}
	u := e.User(1)
	for _, key := range []string{"", "k1", "k2", "k3", ""} {
		t.Run("key="+key, func(t *testing.T) {
			_, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, SeatIDs: e.SeatIDs("A2", "A3"), IdempotencyKey: key})
			var se *services.Error
			if services.ErrorCode(err) != services.CodeSeatTaken || !errors.As(err, &se) || strings.Join(se.Seats, ",") != "A2" {
				t.Fatalf("got %v, want SEAT_TAKEN naming A2", err)
			}
			if key != "" {
				for _, k := range e.Orders.IdempotencyKeyNames(e.Show.ID, u, key) {
					if n := e.RDB.Exists(ctx, k).Val(); n != 0 {
						t.Errorf("%s left behind by a refused request", k)
					}
				}
			}
		})
	}
	if _, err := e.Create(u, e.SeatIDs("B1")...); err != nil {
		t.Fatalf("the buyer's one order of the minute, after five refusals: %v", err)
	}
	if _, err := e.Create(u, e.SeatIDs("B2")...); services.ErrorCode(err) != services.CodeRateLimited {
		t.Fatalf("second order of the minute: %v, want RATE_LIMITED (the limiter is on)", err)
	}
	e.CheckInvariants()
}

// TestPrecheck_SoldOutZoneCostsNoRateLimitToken: best available in a zone with fewer
// free seats than asked is SOLD_OUT from the read alone; the buyer's own held seats are
// not "taken" for the read (the hold decides, as before).
func TestPrecheck_SoldOutZoneCostsNoRateLimitToken(t *testing.T) {
	lim := testenv.Unlimited
	lim.UserPerMinute, lim.UserBurst = 1, 1
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	for i, qty := 0, 4; ; i++ {
		_, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(10 + i), ShowID: e.Show.ID, Zone: "premium", Quantity: qty})
		if services.ErrorCode(err) == services.CodeNoAdjacentSeats && qty > 1 {
			qty = 1 // the last seats one at a time
			continue
		}
		if services.ErrorCode(err) == services.CodeSoldOut && qty == 1 {
			break
		}
		if err != nil || i > 80 {
			t.Fatalf("selling out premium, order %d: %v", i, err)
		}
	}
	e.Orders.SetRateLimiter(orders.NewRateLimiter(e.RDB, lim, "sf"))
	u := e.User(1)
	left, _ := e.RDB.HGet(ctx, e.Seats.Keys(e.Show.ID)[1], "premium").Int()
	for i := 0; i < 3; i++ {
		_, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, Zone: "premium", Quantity: 2, IdempotencyKey: "z"})
		if services.ErrorCode(err) != services.CodeSoldOut {
			t.Fatalf("asking 2 of %d left: %v, want SOLD_OUT", left, err)
		}
	}
	if _, err := e.Create(u, e.SeatIDs("C1")...); err != nil {
		t.Fatalf("the buyer's one order of the minute, after three refusals: %v", err)
	}
	// the buyer's own seat is no refusal of the read: the hold answers (taken by an order)
	_, err := e.Create(u, e.SeatIDs("C1")...)
	if services.ErrorCode(err) != services.CodeRateLimited {
		t.Fatalf("asking again for an own seat: %v, want the full pipeline (RATE_LIMITED here)", err)
	}
	e.CheckInvariants()
}

// TestIdempotencyKeys_OneHashSlot: the lock and the marker of a key share one hash slot
// (the claim and release scripts touch both), whatever characters the client's key has.
func TestIdempotencyKeys_OneHashSlot(t *testing.T) {
	for _, key := range []string{"abc", "a}b", "{x}", "}{", "k-1:2"} {
		t.Run(key, func(t *testing.T) {
			if a, b := hashTag(orders.IdempotencyKeyNames("sf", 42, 7, key)[0]), hashTag(orders.IdempotencyKeyNames("sf", 42, 7, key)[1]); a != b || a != "show:42" {
				t.Errorf("slots differ: %q vs %q", a, b)
			}
		})
	}
}

// hashTag is the part of a key Redis Cluster hashes (the cluster specification's rule).
func hashTag(key string) string {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			return key[i+1 : i+1+j]
		}
	}
	return key
}
