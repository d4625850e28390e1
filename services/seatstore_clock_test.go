package services

import (
	"context"
	"testing"
	"time"
)

// TestSeatMapLifetimeIsCountedOnRedisClock: a seat map lives until a day after its show
// starts (at least an hour from the load), counted on Redis's clock whatever the
// application's clock says. An instance whose clock is days behind Redis's must not
// create a map that Redis deletes at once (the order then fails with "seat map not
// loaded"); one whose clock is days ahead must not keep a map for days too long.
func TestSeatMapLifetimeIsCountedOnRedisClock(t *testing.T) {
	const day = 24 * time.Hour
	for _, tc := range []struct {
		name     string
		skew     time.Duration // the application's clock minus Redis's
		startsIn time.Duration // the show's start, from Redis's clock
	}{
		{"clocks agree", 0, 2 * time.Hour},
		{"application ten days behind, show started days ago", -10 * day, -5 * day},
		{"application ten days behind, show in three days", -10 * day, 3 * day},
		{"application ten days ahead, show in two hours", 10 * day, 2 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t, unlimited)
			ctx := context.Background()
			redisNow, err := e.rdb.Time(ctx).Result()
			if err != nil {
				t.Fatal(err)
			}
			e.clock.mu.Lock()
			e.clock.t = redisNow.Add(tc.skew).UTC()
			e.clock.mu.Unlock()
			starts := redisNow.Add(tc.startsIn).UTC().Truncate(time.Second)
			e.show = e.makeShow(e.hall.ID, ShowOnSale, e.clock.Now().Add(-time.Hour), starts)

			if err := e.seats.Load(ctx, e.show.ID); err != nil {
				t.Fatal(err)
			}
			keys := e.seats.Keys(e.show.ID)
			ttl := e.rdb.TTL(ctx, keys[0]).Val()
			after, err := e.rdb.Time(ctx).Result()
			if err != nil {
				t.Fatal(err)
			}
			want := max(starts.Add(seatMapKeepAfterStart).Sub(after), seatMapMinTTL)
			if d := ttl - want; d < -5*time.Second || d > 5*time.Second {
				t.Errorf("seat map TTL %v, want %v (show starts %v, Redis's clock %v)", ttl, want, starts, after)
			}
			for _, k := range keys[1:] {
				if got := e.rdb.TTL(ctx, k).Val(); got < ttl-5*time.Second || got > ttl+5*time.Second {
					t.Errorf("%s TTL %v, the seats hash has %v", k, got, ttl)
				}
			}
			if !starts.After(e.clock.Now()) {
				return // the sale is over by the application's clock: no order to try
			}
			o, err := e.create(e.user(1), e.seatIDs("C3", "C4")...)
			if err != nil {
				t.Fatalf("order on a show whose map was just loaded: %v", err)
			}
			for _, id := range e.seatIDs("C3", "C4") {
				if v := e.seatVal(e.show.ID, id); v != heldBy(o) {
					t.Errorf("seat %d is %q, want %q", id, v, heldBy(o))
				}
			}
			e.checkInvariants()
		})
	}
}
