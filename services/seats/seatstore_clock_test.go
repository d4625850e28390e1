package seats_test

import (
	"context"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/seats"
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
			e := testenv.NewTestEnv(t, testenv.Unlimited)
			ctx := context.Background()
			redisNow, err := e.RDB.Time(ctx).Result()
			if err != nil {
				t.Fatal(err)
			}
			e.Clock.Mu.Lock()
			e.Clock.T = redisNow.Add(tc.skew).UTC()
			e.Clock.Mu.Unlock()
			starts := redisNow.Add(tc.startsIn).UTC().Truncate(time.Second)
			e.Show = e.MakeShow(e.Hall.ID, services.ShowOnSale, e.Clock.Now().Add(-time.Hour), starts)

			if err := e.Seats.Load(ctx, e.Show.ID); err != nil {
				t.Fatal(err)
			}
			keys := e.Seats.Keys(e.Show.ID)
			ttl := e.RDB.TTL(ctx, keys[0]).Val()
			after, err := e.RDB.Time(ctx).Result()
			if err != nil {
				t.Fatal(err)
			}
			want := max(starts.Add(seats.SeatMapKeepAfterStart).Sub(after), seats.SeatMapMinTTL)
			if d := ttl - want; d < -5*time.Second || d > 5*time.Second {
				t.Errorf("seat map TTL %v, want %v (show starts %v, Redis's clock %v)", ttl, want, starts, after)
			}
			for _, k := range keys[1:] {
				if got := e.RDB.TTL(ctx, k).Val(); got < ttl-5*time.Second || got > ttl+5*time.Second {
					t.Errorf("%s TTL %v, the seats hash has %v", k, got, ttl)
				}
			}
			if !starts.After(e.Clock.Now()) {
				return // the sale is over by the application's clock: no order to try
			}
			o, err := e.Create(e.User(1), e.SeatIDs("C3", "C4")...)
			if err != nil {
				t.Fatalf("order on a show whose map was just loaded: %v", err)
			}
			for _, id := range e.SeatIDs("C3", "C4") {
				if v := e.SeatVal(e.Show.ID, id); v != testenv.HeldBy(o) {
					t.Errorf("seat %d is %q, want %q", id, v, testenv.HeldBy(o))
				}
			}
			e.CheckInvariants()
		})
	}
}
