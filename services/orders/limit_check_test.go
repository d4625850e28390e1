package orders_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// TestNeedsLimitCount: the MySQL count runs when the per-user counts were rebuilt after
// the hold, shortly before it, or when a marker is unknown; only an order held and
// committed on counts rebuilt long ago skips it.
func TestNeedsLimitCount(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	ms := func(d time.Duration) string { return strconv.FormatInt(now.Add(-d).UnixMilli(), 10) }
	old := ms(time.Hour)
	cases := []struct {
		name, hold, cur string
		want            bool
	}{
		{"counts rebuilt long ago, unchanged", old, old, false},
		{"rebuilt after the hold", old, ms(time.Second), true},
		{"rebuilt just before the hold", ms(2 * time.Second), ms(2 * time.Second), true},
		{"rebuilt a window ago", ms(orders.LimitCountWindow), ms(orders.LimitCountWindow), false},
		{"map written before markers", "0", "0", true},
		{"no marker from the hold", "", old, true},
		{"map gone now", old, "", true},
		{"garbage", "x", "x", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := orders.NeedsLimitCount(c.hold, c.cur, now); got != c.want {
				t.Errorf("needsLimitCount(%q, %q) = %v, want %v", c.hold, c.cur, got, c.want)
			}
		})
	}
}

// TestUsersMark_RebuildsMoveIt: loading a map marks its per-user counts with Redis's
// clock, the hold reports that marker, and a reload from MySQL (the counts missing)
// moves it, so an order held before the reload counts in MySQL.
func TestUsersMark_RebuildsMoveIt(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	o, err := e.Create(e.User(1), e.SeatIDs("A1")...)
	if err != nil {
		t.Fatal(err)
	}
	mark, now, err := e.Seats.UsersMark(ctx, e.Show.ID)
	if err != nil || o.HoldMark == "" || o.HoldMark != mark {
		t.Fatalf("hold saw %q, marker now %q (%v)", o.HoldMark, mark, err)
	}
	if ms, _ := strconv.ParseInt(mark, 10, 64); now.Sub(time.UnixMilli(ms)) > time.Minute || ms <= 0 {
		t.Fatalf("marker %q is not Redis's recent clock (%v)", mark, now)
	}
	time.Sleep(5 * time.Millisecond)
	if err := e.RDB.Del(ctx, e.Seats.Keys(e.Show.ID)[2]).Err(); err != nil {
		t.Fatal(err)
	}
	if err := e.Seats.Load(ctx, e.Show.ID); err != nil {
		t.Fatal(err)
	}
	again, redisNow, err := e.Seats.UsersMark(ctx, e.Show.ID)
	if err != nil || again == mark || again == "" {
		t.Fatalf("marker after the counts were rebuilt: %q (was %q, %v)", again, mark, err)
	}
	if !orders.NeedsLimitCount(o.HoldMark, again, redisNow) {
		t.Errorf("an order held before the rebuild skips the MySQL count")
	}
}
