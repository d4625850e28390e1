package services

import (
	"context"
	"strconv"
	"testing"
)

// TestInvariant3_FlushedRedisReloadsFromMySQL proves invariant 3 (MySQL is the truth;
// a missing map or field in Redis means "not loaded", never "free"): after FLUSHDB the
// seat map shows held seats held and sold seats sold, a new order for a held or sold
// seat is SEAT_TAKEN and the purchase-limit counters come back; a release while the
// map is missing is harmless; and a single deleted seat field is reloaded before the
// hold decides, so the seat is never sold to someone else. If a missing value were read
// as free, the flushed seats would be sold twice.
func TestInvariant3_FlushedRedisReloadsFromMySQL(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	a, b, c, d := e.user(1), e.user(2), e.user(3), e.user(4)
	oa, err := e.create(a, e.seatIDs("E5", "E6")...)
	if err != nil {
		t.Fatal(err)
	}
	ob, err := e.create(b, e.seatIDs("H3")...)
	if err != nil {
		t.Fatal(err)
	}
	pay, _, err := e.payments.Start(ctx, b, ob.OrderNo, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.payments.DemoDecide(ctx, pay.PaymentID, true); err != nil {
		t.Fatal(err)
	}
	oc, err := e.create(c, e.seatIDs("F1")...)
	if err != nil {
		t.Fatal(err)
	}
	flush := func() {
		t.Helper()
		if err := e.rdb.FlushDB(ctx).Err(); err != nil {
			t.Fatal(err)
		}
	}

	flush()
	m, err := e.shows.SeatMap(ctx, e.show.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"E5": StateHeld, "E6": StateHeld, "F1": StateHeld, "H3": StateSold, "J1": StateBlocked, "E7": StateFree, "A1": StateFree}
	for l, st := range want {
		if got := m.States[e.seatIDs(l)[0]]; got != st {
			t.Errorf("after FLUSHDB the seat map shows %s %s, want %s", l, got, st)
		}
	}
	if m.Owners[e.seatIDs("E5")[0]] != a || m.Owners[e.seatIDs("H3")[0]] != b {
		t.Errorf("owners after reload: %v", m.Owners)
	}
	e.checkInvariants()

	flush()
	for _, l := range []string{"E6", "H3"} {
		if _, err := e.create(d, e.seatIDs(l)...); ErrorCode(err) != CodeSeatTaken {
			t.Errorf("after FLUSHDB, ordering %s: %v, want SEAT_TAKEN", l, err)
		}
	}
	flush()
	if _, err := e.create(a, e.seatIDs("A1", "A2", "A3")...); ErrorCode(err) != CodeLimitExceeded {
		t.Errorf("after FLUSHDB, a holder of 2 asking 3 more: %v, want LIMIT_EXCEEDED", err)
	}
	if _, err := e.create(d, e.seatIDs("E7")...); err != nil {
		t.Errorf("after FLUSHDB, a free seat: %v", err)
	}
	e.checkInvariants()

	// a cancel while the map is missing: the reload reads MySQL, where F1 is free
	flush()
	if _, err := e.orders.Cancel(ctx, c, oc.OrderNo); err != nil {
		t.Fatal(err)
	}
	if m, err = e.shows.SeatMap(ctx, e.show.ID); err != nil {
		t.Fatal(err)
	}
	if st := m.States[e.seatIDs("F1")[0]]; st != StateFree {
		t.Errorf("F1 of a cancelled order is %s after reload", st)
	}
	e.checkInvariants()

	// one missing seat field: not loaded, not free
	keys := e.seats.Keys(e.show.ID)
	e5, g1 := e.seatIDs("E5")[0], e.seatIDs("G1")[0]
	e.rdb.HDel(ctx, keys[0], strconv.FormatInt(e5, 10), strconv.FormatInt(g1, 10))
	if m, err = e.shows.SeatMap(ctx, e.show.ID); err != nil {
		t.Fatal(err)
	}
	if st := m.States[e5]; st == StateFree {
		t.Error("the seat map shows a held seat whose field is missing as free")
	}
	if _, err := e.create(d, e5); ErrorCode(err) != CodeSeatTaken {
		t.Errorf("ordering a held seat whose field was deleted: %v, want SEAT_TAKEN", err)
	}
	if v := e.seatVal(e.show.ID, e5); v != heldBy(oa) {
		t.Errorf("E5 is %q after the reload, want held by %s", v, oa.OrderNo)
	}
	og, err := e.create(d, g1)
	if err != nil {
		t.Fatalf("ordering a free seat whose field was deleted: %v", err)
	}
	if v := e.seatVal(e.show.ID, g1); v != heldBy(og) {
		t.Errorf("G1 is %q, want held by %s", v, og.OrderNo)
	}
	e.checkInvariants()
}

// TestInvariant3_MissingZoneCountIsReloaded proves invariant 3 for the zone counters:
// a missing field of the zones hash means "not loaded", so the hold must load it from
// MySQL and then decide. A loader that only fills missing seat fields leaves the
// counter missing, and every order of that zone fails with UNAVAILABLE until someone
// rebuilds the map by hand.
func TestInvariant3_MissingZoneCountIsReloaded(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	if _, err := e.create(e.user(1), e.seatIDs("H1", "A1")...); err != nil {
		t.Fatal(err)
	}
	e.rdb.HDel(ctx, e.seats.Keys(e.show.ID)[1], "premium")
	o, err := e.create(e.user(2), e.seatIDs("H5")...)
	if err != nil {
		t.Fatalf("ordering a premium seat with the premium counter missing: %v, want the counter reloaded and the order made", err)
	}
	if v := e.seatVal(e.show.ID, o.Seats[0].SeatID); v != heldBy(o) {
		t.Errorf("H5 is %q", v)
	}
	e.checkInvariants()
}

// TestInvariant3_LostUserCountersDoNotLiftTheLimit proves invariant 3 for the
// purchase-limit counters: Redis evicts keys one by one (all three keys of a show carry
// the same TTL, so a volatile-* maxmemory policy may drop just the users hash), and a
// lost counter must mean "not loaded", not "0 seats". Otherwise a user holding 4 seats
// can hold a 5th, and MySQL, which has no limit of its own, accepts it.
func TestInvariant3_LostUserCountersDoNotLiftTheLimit(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	u := e.user(1)
	if _, err := e.create(u, e.seatIDs("B1", "B2", "B3", "B4")...); err != nil {
		t.Fatal(err)
	}
	e.rdb.Del(ctx, e.seats.Keys(e.show.ID)[2]) // the users hash alone is evicted
	if o, err := e.create(u, e.seatIDs("B5")...); ErrorCode(err) != CodeLimitExceeded {
		t.Errorf("a user holding 4 seats, with the users hash lost, asked one more: order %v, err %v; want LIMIT_EXCEEDED", o != nil, err)
	}
	var n int
	if err := e.db.Get(&n, `SELECT COUNT(*) FROM order_seats os JOIN orders o ON o.id = os.order_id WHERE o.user_id = ? AND os.live = 1`, u); err != nil {
		t.Fatal(err)
	}
	if n > 4 {
		t.Errorf("the user holds %d seats in MySQL, over the limit of 4", n)
	}
}
