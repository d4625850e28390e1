package invariants

import (
	"context"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/seats"
)

// TestInvariant4_StaleReleaseCannotFreeAnotherOrdersSeat proves invariant 4 (release
// and sell are a compare-and-set on the owner): order A holds F5, A is cancelled, order
// B holds F5; then a late or repeated release of A (a direct release, from held or
// sold, a second cancel, an expiry after the deadline) and a stale sell of A must leave
// F5 held by B with every counter unchanged. A release that only checked "held" would
// free B's seat and let a third buyer take it.
//
// Invariant 4 is kept by the scripts. lua/release.lua releases a seat only if the order
// matches, from H (or H and S for a refund). lua/sell.lua turns H of the same order into
// S; a seat found F is taken back for the paid order, which is safe because MySQL's
// unique key says no other live order has it, and a seat of another order is left to
// reconciliation. lua/house.lua only does F to B and B to F. lua/repair.lua
// compare-and-sets on the value it read. Besides this test,
// TestReconcileRepairSkipsSeatsThatMovedMeanwhile
// (services/reconcile/reconciler_test.go) and TestHouseSeats_NeverStealAHold
// (services/staff/house_seats_test.go) prove it.
func TestInvariant4_StaleReleaseCannotFreeAnotherOrdersSeat(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	a, b := e.User(1), e.User(2)
	f5 := e.SeatIDs("F5")
	oa, err := e.Create(a, f5...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Orders.Cancel(ctx, a, oa.OrderNo); err != nil {
		t.Fatal(err)
	}
	if v := e.SeatVal(e.Show.ID, f5[0]); v != "F" {
		t.Fatalf("F5 is %q after the cancel", v)
	}
	ob, err := e.Create(b, f5...)
	if err != nil {
		t.Fatal(err)
	}
	before := e.RedisState()
	refs := []seats.SeatRef{{ID: f5[0], Zone: "standard"}}
	for _, fromSold := range []bool{false, true} {
		n, err := e.Seats.Release(ctx, e.Show.ID, oa.OrderNo, refs, fromSold)
		if err != nil || n != 0 {
			t.Errorf("stale release of A (fromSold %v): freed %d, %v", fromSold, n, err)
		}
	}
	if o, err := e.Orders.Cancel(ctx, a, oa.OrderNo); err != nil || o.Status != services.OrderCancelled {
		t.Errorf("cancelling A again: %v %v, want the cancelled order", o, err)
	}
	if conflicts, err := e.Seats.Sell(ctx, e.Show.ID, oa.OrderNo, a, refs); err != nil || len(conflicts) != 1 || conflicts[0] != f5[0] {
		t.Errorf("stale sell of A: conflicts %v, %v", conflicts, err)
	}
	e.Clock.Advance(16 * time.Minute)
	if ok, err := e.Orders.Expire(ctx, oa.OrderNo); ok || err != nil {
		t.Errorf("expiring the cancelled A: %v %v", ok, err)
	}
	if after := e.RedisState(); after != before {
		t.Errorf("a stale release of A changed Redis:\n%s", testenv.StateDiff(before, after))
	}
	if v := e.SeatVal(e.Show.ID, f5[0]); v != testenv.HeldBy(ob) {
		t.Errorf("F5 is %q, want held by B", v)
	}
	if e.UserCount(e.Show.ID, a) != "0" || e.UserCount(e.Show.ID, b) != "1" {
		t.Errorf("counters: A %q, B %q", e.UserCount(e.Show.ID, a), e.UserCount(e.Show.ID, b))
	}
	if _, err := e.Create(e.User(3), f5...); services.ErrorCode(err) != services.CodeSeatTaken {
		t.Errorf("a third buyer for F5: %v, want SEAT_TAKEN", err)
	}

	// B's deadline passed too: B expires once, then a stale release of B after C
	// bought F5 must not free it either
	if ok, err := e.Orders.Expire(ctx, ob.OrderNo); !ok || err != nil {
		t.Fatalf("expire B: %v %v", ok, err)
	}
	c := e.User(4)
	oc, err := e.Create(c, f5...)
	if err != nil {
		t.Fatal(err)
	}
	pay, _, err := e.Payments.Start(ctx, c, oc.OrderNo, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Payments.DemoDecide(ctx, pay.PaymentID, true); err != nil {
		t.Fatal(err)
	}
	before = e.RedisState()
	if n, err := e.Seats.Release(ctx, e.Show.ID, ob.OrderNo, refs, true); n != 0 || err != nil {
		t.Errorf("stale release of B from held or sold: freed %d, %v", n, err)
	}
	if ok, _ := e.Orders.Expire(ctx, ob.OrderNo); ok {
		t.Error("B expired twice")
	}
	if after := e.RedisState(); after != before {
		t.Errorf("a stale release of B changed Redis:\n%s", testenv.StateDiff(before, after))
	}
	if v := e.SeatVal(e.Show.ID, f5[0]); v != testenv.SoldTo(oc) {
		t.Errorf("F5 is %q, want sold to C", v)
	}
	e.CheckInvariants()
}
