package invariants

import (
	"context"
	"strconv"
	"testing"

	"seatflow/services"
	"seatflow/services/internal/testenv"
)

// TestInvariant3_FlushedRedisReloadsFromMySQL proves invariant 3 (MySQL is the truth;
// a missing map or field in Redis means "not loaded", never "free"): after FLUSHDB the
// seat map shows held seats held and sold seats sold, a new order for a held or sold
// seat is SEAT_TAKEN and the purchase-limit counters come back; a release while the
// map is missing is harmless; and a single deleted seat field is reloaded before the
// hold decides, so the seat is never sold to someone else. If a missing value were read
// as free, the flushed seats would be sold twice.
//
// Invariant 3 is kept by SeatStore (services/seats/seatstore.go): Load rebuilds a map
// from MySQL, single-flight per show per process, and a script that answers NOT_LOADED
// is asked again after the load, at most 3 times; SnapshotFromDB gives the truth (live
// seats H/S, house seats and seats not sellable B, the rest F). lua/load.lua only fills
// what is missing on an existing map, never overwriting live holds, and sets each hash's
// lifetime on Redis's clock (SeatMapKeepAfterStart, SeatMapMinTTL). Each hash carries a
// "_" marker field, so an existing key is never empty; the users hash's marker is the
// Redis time of its last rebuild, and a commit counts the buyer's seats in MySQL when it
// moved since the hold (NeedsLimitCount). CompareSeatCache (services/seats/compare.go)
// is the one definition of agreement, for reconciliation (lua/repair.lua) and the tests
// alike. Besides this file, the invariant is proven by
// TestSeatMapLifetimeIsCountedOnRedisClock (services/seats/seatstore_clock_test.go) and
// by TestNeedsLimitCount and TestUsersMark_RebuildsMoveIt
// (services/orders/limit_check_test.go).
func TestInvariant3_FlushedRedisReloadsFromMySQL(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	a, b, c, d := e.User(1), e.User(2), e.User(3), e.User(4)
	oa, err := e.Create(a, e.SeatIDs("E5", "E6")...)
	if err != nil {
		t.Fatal(err)
	}
	ob, err := e.Create(b, e.SeatIDs("H3")...)
	if err != nil {
		t.Fatal(err)
	}
	pay, _, err := e.Payments.Start(ctx, b, ob.OrderNo, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Payments.DemoDecide(ctx, pay.PaymentID, true); err != nil {
		t.Fatal(err)
	}
	oc, err := e.Create(c, e.SeatIDs("F1")...)
	if err != nil {
		t.Fatal(err)
	}
	flush := func() {
		t.Helper()
		if err := e.RDB.FlushDB(ctx).Err(); err != nil {
			t.Fatal(err)
		}
	}

	flush()
	m, err := e.Shows.SeatMap(ctx, e.Show.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"E5": services.StateHeld, "E6": services.StateHeld, "F1": services.StateHeld, "H3": services.StateSold, "J1": services.StateBlocked, "E7": services.StateFree, "A1": services.StateFree}
	for l, st := range want {
		if got := m.States[e.SeatIDs(l)[0]]; got != st {
			t.Errorf("after FLUSHDB the seat map shows %s %s, want %s", l, got, st)
		}
	}
	if m.Owners[e.SeatIDs("E5")[0]] != a || m.Owners[e.SeatIDs("H3")[0]] != b {
		t.Errorf("owners after reload: %v", m.Owners)
	}
	e.CheckInvariants()

	flush()
	for _, l := range []string{"E6", "H3"} {
		if _, err := e.Create(d, e.SeatIDs(l)...); services.ErrorCode(err) != services.CodeSeatTaken {
			t.Errorf("after FLUSHDB, ordering %s: %v, want SEAT_TAKEN", l, err)
		}
	}
	flush()
	if _, err := e.Create(a, e.SeatIDs("A1", "A2", "A3")...); services.ErrorCode(err) != services.CodeLimitExceeded {
		t.Errorf("after FLUSHDB, a holder of 2 asking 3 more: %v, want LIMIT_EXCEEDED", err)
	}
	if _, err := e.Create(d, e.SeatIDs("E7")...); err != nil {
		t.Errorf("after FLUSHDB, a free seat: %v", err)
	}
	e.CheckInvariants()

	// a cancel while the map is missing: the reload reads MySQL, where F1 is free
	flush()
	if _, err := e.Orders.Cancel(ctx, c, oc.OrderNo); err != nil {
		t.Fatal(err)
	}
	if m, err = e.Shows.SeatMap(ctx, e.Show.ID); err != nil {
		t.Fatal(err)
	}
	if st := m.States[e.SeatIDs("F1")[0]]; st != services.StateFree {
		t.Errorf("F1 of a cancelled order is %s after reload", st)
	}
	e.CheckInvariants()

	// one missing seat field: not loaded, not free
	keys := e.Seats.Keys(e.Show.ID)
	e5, g1 := e.SeatIDs("E5")[0], e.SeatIDs("G1")[0]
	e.RDB.HDel(ctx, keys[0], strconv.FormatInt(e5, 10), strconv.FormatInt(g1, 10))
	if m, err = e.Shows.SeatMap(ctx, e.Show.ID); err != nil {
		t.Fatal(err)
	}
	if st := m.States[e5]; st == services.StateFree {
		t.Error("the seat map shows a held seat whose field is missing as free")
	}
	if _, err := e.Create(d, e5); services.ErrorCode(err) != services.CodeSeatTaken {
		t.Errorf("ordering a held seat whose field was deleted: %v, want SEAT_TAKEN", err)
	}
	if v := e.SeatVal(e.Show.ID, e5); v != testenv.HeldBy(oa) {
		t.Errorf("E5 is %q after the reload, want held by %s", v, oa.OrderNo)
	}
	og, err := e.Create(d, g1)
	if err != nil {
		t.Fatalf("ordering a free seat whose field was deleted: %v", err)
	}
	if v := e.SeatVal(e.Show.ID, g1); v != testenv.HeldBy(og) {
		t.Errorf("G1 is %q, want held by %s", v, og.OrderNo)
	}
	e.CheckInvariants()
}

// TestInvariant3_MissingZoneCountIsReloaded proves invariant 3 for the zone counters:
// a missing field of the zones hash means "not loaded", so the hold must load it from
// MySQL and then decide. A loader that only fills missing seat fields leaves the
// counter missing, and every order of that zone fails with UNAVAILABLE until someone
// rebuilds the map by hand.
func TestInvariant3_MissingZoneCountIsReloaded(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	if _, err := e.Create(e.User(1), e.SeatIDs("H1", "A1")...); err != nil {
		t.Fatal(err)
	}
	e.RDB.HDel(ctx, e.Seats.Keys(e.Show.ID)[1], "premium")
	o, err := e.Create(e.User(2), e.SeatIDs("H5")...)
	if err != nil {
		t.Fatalf("ordering a premium seat with the premium counter missing: %v, want the counter reloaded and the order made", err)
	}
	if v := e.SeatVal(e.Show.ID, o.Seats[0].SeatID); v != testenv.HeldBy(o) {
		t.Errorf("H5 is %q", v)
	}
	e.CheckInvariants()
}

// TestInvariant3_LostUserCountersDoNotLiftTheLimit proves invariant 3 for the
// purchase-limit counters: Redis evicts keys one by one (all three keys of a show carry
// the same TTL, so a volatile-* maxmemory policy may drop just the users hash), and a
// lost counter must mean "not loaded", not "0 seats". Otherwise a user holding 4 seats
// can hold a 5th, and MySQL, which has no limit of its own, accepts it.
func TestInvariant3_LostUserCountersDoNotLiftTheLimit(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	u := e.User(1)
	if _, err := e.Create(u, e.SeatIDs("B1", "B2", "B3", "B4")...); err != nil {
		t.Fatal(err)
	}
	e.RDB.Del(ctx, e.Seats.Keys(e.Show.ID)[2]) // the users hash alone is evicted
	if o, err := e.Create(u, e.SeatIDs("B5")...); services.ErrorCode(err) != services.CodeLimitExceeded {
		t.Errorf("a user holding 4 seats, with the users hash lost, asked one more: order %v, err %v; want LIMIT_EXCEEDED", o != nil, err)
	}
	var n int
	if err := e.DB.Get(&n, `SELECT COUNT(*) FROM order_seats os JOIN orders o ON o.id = os.order_id WHERE o.user_id = ? AND os.live = 1`, u); err != nil {
		t.Fatal(err)
	}
	if n > 4 {
		t.Errorf("the user holds %d seats in MySQL, over the limit of 4", n)
	}
}
