package invariants

import (
	"context"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
)

// TestInvariant8_ExpiryEndsHolds proves that every hold ends (invariant 8) through the
// expiry path: an expiry task is scheduled at the deadline; Expire before the deadline
// does nothing; after it Expire frees the seats and marks the order expired, once (a
// second Expire is a no-op and the counters move once); a payment started before the
// deadline and approved after the expiry is recorded as refunded and does not take the
// seats back from the buyer who bought them meanwhile.
//
// Invariant 8 is kept by four mechanisms: the asynq task order:expire at the deadline
// (jobs/expiry.go, calling Orders.Expire); reads that expire an overdue order on the
// spot (Orders.Get, List, Cancel, the staff search, a late approval); the seat-sync
// outbox, which retries failed Redis steps; and reconciliation, which expires overdue
// orders, releases holds without an order after the grace and re-creates lost tasks.
// Besides this test, TestInvariant8_ReconciliationEndsEveryHoldWithoutTasks
// (invariant8_reconcile_test.go), TestFault_ExpiryTasks (fault_test.go) and
// TestSoak_FaultsUnderLoad (soak_test.go) prove it.
func TestInvariant8_ExpiryEndsHolds(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.QuietLogs()
	ctx := context.Background()
	a, b := e.User(1), e.User(2)
	ids := e.SeatIDs("F5", "F6")
	oa, err := e.Create(a, ids...)
	if err != nil {
		t.Fatal(err)
	}
	if at, ok := e.Expiry.Scheduled[oa.OrderNo]; !ok || !at.Equal(oa.ExpiresAt) {
		t.Errorf("expiry task at %v (%v), want %v", at, ok, oa.ExpiresAt)
	}
	if d := oa.ExpiresAt.Sub(e.Clock.Now()); d > 15*time.Minute || d < 15*time.Minute-time.Second {
		t.Errorf("deadline %v after creation", d)
	}
	payA, _, err := e.Payments.Start(ctx, a, oa.OrderNo, "demo")
	if err != nil {
		t.Fatal(err)
	}

	e.Clock.Advance(15*time.Minute - 2*time.Second)
	before := e.State()
	if ok, err := e.Orders.Expire(ctx, oa.OrderNo); ok || err != nil {
		t.Errorf("expire before the deadline: %v %v", ok, err)
	}
	if after := e.State(); after != before {
		t.Errorf("expire before the deadline changed something:\n%s", testenv.StateDiff(before, after))
	}

	e.Clock.Advance(2 * time.Second)
	if ok, err := e.Orders.Expire(ctx, oa.OrderNo); !ok || err != nil {
		t.Fatalf("expire at the deadline: %v %v", ok, err)
	}
	if s := e.OrderStatus(oa.OrderNo); s != services.OrderExpired {
		t.Errorf("order is %s", s)
	}
	for _, id := range ids {
		if v := e.SeatVal(e.Show.ID, id); v != "F" {
			t.Errorf("seat %d is %q after expiry", id, v)
		}
	}
	if e.UserCount(e.Show.ID, a) != "0" || e.ZoneFree(e.Show.ID, "standard") != "140" {
		t.Errorf("after expiry: user counter %q, standard free %q", e.UserCount(e.Show.ID, a), e.ZoneFree(e.Show.ID, "standard"))
	}
	before = e.State()
	if ok, err := e.Orders.Expire(ctx, oa.OrderNo); ok || err != nil {
		t.Errorf("expire again: %v %v", ok, err)
	}
	if after := e.State(); after != before {
		t.Errorf("a second expire changed something:\n%s", testenv.StateDiff(before, after))
	}
	if _, _, err := e.Payments.Start(ctx, a, oa.OrderNo, "demo"); services.ErrorCode(err) != services.CodeOrderState {
		t.Errorf("starting a payment of an expired order: %v, want ORDER_STATE", err)
	}

	// B buys F5 and pays; then A's late approval arrives
	ob, err := e.Create(b, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	payB, _, err := e.Payments.Start(ctx, b, ob.OrderNo, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Payments.DemoDecide(ctx, payB.PaymentID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Payments.DemoDecide(ctx, payA.PaymentID, true); err != nil {
		t.Fatalf("late approval: %v", err)
	}
	if p, _ := e.Payments.Payment(ctx, payA.PaymentID); p == nil || p.Status != "refunded" {
		t.Errorf("the late payment is %+v, want refunded", p)
	}
	if s := e.OrderStatus(oa.OrderNo); s != services.OrderExpired {
		t.Errorf("A's order is %s after the late payment", s)
	}
	if v := e.SeatVal(e.Show.ID, ids[0]); v != testenv.SoldTo(ob) {
		t.Errorf("F5 is %q, want sold to B", v)
	}
	if v := e.SeatVal(e.Show.ID, ids[1]); v != "F" {
		t.Errorf("F6 is %q, want free", v)
	}
	if e.UserCount(e.Show.ID, a) != "0" || e.UserCount(e.Show.ID, b) != "1" {
		t.Errorf("counters: A %q, B %q", e.UserCount(e.Show.ID, a), e.UserCount(e.Show.ID, b))
	}

	// Get of a pending order past its deadline expires it on the spot
	oc, err := e.Create(a, e.SeatIDs("G1")...)
	if err != nil {
		t.Fatal(err)
	}
	e.Clock.Advance(16 * time.Minute)
	got, err := e.Orders.Get(ctx, a, oc.OrderNo)
	if err != nil || got.Status != services.OrderExpired {
		t.Errorf("reading an order past its deadline: %v %v, want expired", got, err)
	}
	e.CheckInvariants()
}
