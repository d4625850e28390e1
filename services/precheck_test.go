package services

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestPrecheck_TakenSeatsCostNoRateLimitToken: a request for seats another buyer holds
// is refused by the pipelined read (SEAT_TAKEN naming them) before the rate limiter,
// the Idempotency-Key lock or the hold script; it leaves no lock or marker behind and
// does not use up the buyer's order budget.
func TestPrecheck_TakenSeatsCostNoRateLimitToken(t *testing.T) {
	lim := unlimited
	lim.UserPerMinute, lim.UserBurst = 1, 1
	e := newTestEnv(t, lim)
	ctx := context.Background()
	if _, err := e.create(e.user(2), e.seatIDs("A1", "A2")...); err != nil {
		t.Fatal(err)
	}
	u := e.user(1)
	for _, key := range []string{"", "k1", "k2", "k3", ""} {
		t.Run("key="+key, func(t *testing.T) {
			_, err := e.orders.Create(ctx, CreateOrderRequest{UserID: u, ShowID: e.show.ID, SeatIDs: e.seatIDs("A2", "A3"), IdempotencyKey: key})
			var se *Error
			if ErrorCode(err) != CodeSeatTaken || !errors.As(err, &se) || strings.Join(se.Seats, ",") != "A2" {
				t.Fatalf("got %v, want SEAT_TAKEN naming A2", err)
			}
			if key != "" {
				for _, k := range e.orders.IdempotencyKeyNames(u, key) {
					if n := e.rdb.Exists(ctx, k).Val(); n != 0 {
						t.Errorf("%s left behind by a refused request", k)
					}
				}
			}
		})
	}
	if _, err := e.create(u, e.seatIDs("B1")...); err != nil {
		t.Fatalf("the buyer's one order of the minute, after five refusals: %v", err)
	}
	if _, err := e.create(u, e.seatIDs("B2")...); ErrorCode(err) != CodeRateLimited {
		t.Fatalf("second order of the minute: %v, want RATE_LIMITED (the limiter is on)", err)
	}
	e.checkInvariants()
}

// TestPrecheck_SoldOutZoneCostsNoRateLimitToken: best available in a zone with fewer
// free seats than asked is SOLD_OUT from the read alone; the buyer's own held seats are
// not "taken" for the read (the hold decides, as before).
func TestPrecheck_SoldOutZoneCostsNoRateLimitToken(t *testing.T) {
	lim := unlimited
	lim.UserPerMinute, lim.UserBurst = 1, 1
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	for i, qty := 0, 4; ; i++ {
		_, err := e.orders.Create(ctx, CreateOrderRequest{UserID: e.user(10 + i), ShowID: e.show.ID, Zone: "premium", Quantity: qty})
		if ErrorCode(err) == CodeNoAdjacentSeats && qty > 1 {
			qty = 1 // the last seats one at a time
			continue
		}
		if ErrorCode(err) == CodeSoldOut && qty == 1 {
			break
		}
		if err != nil || i > 80 {
			t.Fatalf("selling out premium, order %d: %v", i, err)
		}
	}
	e.orders.SetRateLimiter(NewRateLimiter(e.rdb, lim, "sf"))
	u := e.user(1)
	left, _ := e.rdb.HGet(ctx, e.seats.Keys(e.show.ID)[1], "premium").Int()
	for i := 0; i < 3; i++ {
		_, err := e.orders.Create(ctx, CreateOrderRequest{UserID: u, ShowID: e.show.ID, Zone: "premium", Quantity: 2, IdempotencyKey: "z"})
		if ErrorCode(err) != CodeSoldOut {
			t.Fatalf("asking 2 of %d left: %v, want SOLD_OUT", left, err)
		}
	}
	if _, err := e.create(u, e.seatIDs("C1")...); err != nil {
		t.Fatalf("the buyer's one order of the minute, after three refusals: %v", err)
	}
	// the buyer's own seat is no refusal of the read: the hold answers (taken by an order)
	_, err := e.create(u, e.seatIDs("C1")...)
	if ErrorCode(err) != CodeRateLimited {
		t.Fatalf("asking again for an own seat: %v, want the full pipeline (RATE_LIMITED here)", err)
	}
	e.checkInvariants()
}

// TestIdempotencyKeys_OneHashSlot: the lock and the marker of a key share one hash slot
// (the claim and release scripts touch both), whatever characters the client's key has.
func TestIdempotencyKeys_OneHashSlot(t *testing.T) {
	for _, key := range []string{"abc", "a}b", "{x}", "}{", "k-1:2"} {
		t.Run(key, func(t *testing.T) {
			if a, b := hashTag(idempotencyKeyNames("sf", 7, key)[0]), hashTag(idempotencyKeyNames("sf", 7, key)[1]); a != b || a == "" {
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
