package services

import (
	"context"
	"testing"
	"time"
)

// TestInvariant4_StaleReleaseCannotFreeAnotherOrdersSeat proves invariant 4 (release
// and sell are a compare-and-set on the owner): order A holds F5, A is cancelled, order
// B holds F5; then a late or repeated release of A (a direct release, from held or
// sold, a second cancel, an expiry after the deadline) and a stale sell of A must leave
// F5 held by B with every counter unchanged. A release that only checked "held" would
// free B's seat and let a third buyer take it.
func TestInvariant4_StaleReleaseCannotFreeAnotherOrdersSeat(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	a, b := e.user(1), e.user(2)
	f5 := e.seatIDs("F5")
	oa, err := e.create(a, f5...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.orders.Cancel(ctx, a, oa.OrderNo); err != nil {
		t.Fatal(err)
	}
	if v := e.seatVal(e.show.ID, f5[0]); v != "F" {
		t.Fatalf("F5 is %q after the cancel", v)
	}
	ob, err := e.create(b, f5...)
	if err != nil {
		t.Fatal(err)
	}
	before := e.redisState()
	refs := []SeatRef{{ID: f5[0], Zone: "standard"}}
	for _, fromSold := range []bool{false, true} {
		n, err := e.seats.Release(ctx, e.show.ID, oa.OrderNo, refs, fromSold)
		if err != nil || n != 0 {
			t.Errorf("stale release of A (fromSold %v): freed %d, %v", fromSold, n, err)
		}
	}
	if o, err := e.orders.Cancel(ctx, a, oa.OrderNo); err != nil || o.Status != OrderCancelled {
		t.Errorf("cancelling A again: %v %v, want the cancelled order", o, err)
	}
	if conflicts, err := e.seats.Sell(ctx, e.show.ID, oa.OrderNo, a, refs); err != nil || len(conflicts) != 1 || conflicts[0] != f5[0] {
		t.Errorf("stale sell of A: conflicts %v, %v", conflicts, err)
	}
	e.clock.Advance(16 * time.Minute)
	if ok, err := e.orders.Expire(ctx, oa.OrderNo); ok || err != nil {
		t.Errorf("expiring the cancelled A: %v %v", ok, err)
	}
	if after := e.redisState(); after != before {
		t.Errorf("a stale release of A changed Redis:\n%s", stateDiff(before, after))
	}
	if v := e.seatVal(e.show.ID, f5[0]); v != heldBy(ob) {
		t.Errorf("F5 is %q, want held by B", v)
	}
	if e.userCount(e.show.ID, a) != "0" || e.userCount(e.show.ID, b) != "1" {
		t.Errorf("counters: A %q, B %q", e.userCount(e.show.ID, a), e.userCount(e.show.ID, b))
	}
	if _, err := e.create(e.user(3), f5...); ErrorCode(err) != CodeSeatTaken {
		t.Errorf("a third buyer for F5: %v, want SEAT_TAKEN", err)
	}

	// B's deadline passed too: B expires once, then a stale release of B after C
	// bought F5 must not free it either
	if ok, err := e.orders.Expire(ctx, ob.OrderNo); !ok || err != nil {
		t.Fatalf("expire B: %v %v", ok, err)
	}
	c := e.user(4)
	oc, err := e.create(c, f5...)
	if err != nil {
		t.Fatal(err)
	}
	pay, _, err := e.payments.Start(ctx, c, oc.OrderNo, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.payments.DemoDecide(ctx, pay.PaymentID, true); err != nil {
		t.Fatal(err)
	}
	before = e.redisState()
	if n, err := e.seats.Release(ctx, e.show.ID, ob.OrderNo, refs, true); n != 0 || err != nil {
		t.Errorf("stale release of B from held or sold: freed %d, %v", n, err)
	}
	if ok, _ := e.orders.Expire(ctx, ob.OrderNo); ok {
		t.Error("B expired twice")
	}
	if after := e.redisState(); after != before {
		t.Errorf("a stale release of B changed Redis:\n%s", stateDiff(before, after))
	}
	if v := e.seatVal(e.show.ID, f5[0]); v != soldTo(oc) {
		t.Errorf("F5 is %q, want sold to C", v)
	}
	e.checkInvariants()
}
