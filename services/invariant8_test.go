package services

import (
	"context"
	"testing"
	"time"
)

// TestInvariant8_ExpiryEndsHolds proves that every hold ends (invariant 8) through the
// expiry path: an expiry task is scheduled at the deadline; Expire before the deadline
// does nothing; after it Expire frees the seats and marks the order expired, once (a
// second Expire is a no-op and the counters move once); a payment started before the
// deadline and approved after the expiry is recorded as refunded and does not take the
// seats back from the buyer who bought them meanwhile.
func TestInvariant8_ExpiryEndsHolds(t *testing.T) {
	e := newTestEnv(t, unlimited)
	e.quietLogs()
	ctx := context.Background()
	a, b := e.user(1), e.user(2)
	ids := e.seatIDs("F5", "F6")
	oa, err := e.create(a, ids...)
	if err != nil {
		t.Fatal(err)
	}
	if at, ok := e.expiry.scheduled[oa.OrderNo]; !ok || !at.Equal(oa.ExpiresAt) {
		t.Errorf("expiry task at %v (%v), want %v", at, ok, oa.ExpiresAt)
	}
	if d := oa.ExpiresAt.Sub(e.clock.Now()); d > 15*time.Minute || d < 15*time.Minute-time.Second {
		t.Errorf("deadline %v after creation", d)
	}
	payA, _, err := e.payments.Start(ctx, a, oa.OrderNo, "demo")
	if err != nil {
		t.Fatal(err)
	}

	e.clock.Advance(15*time.Minute - 2*time.Second)
	before := e.state()
	if ok, err := e.orders.Expire(ctx, oa.OrderNo); ok || err != nil {
		t.Errorf("expire before the deadline: %v %v", ok, err)
	}
	if after := e.state(); after != before {
		t.Errorf("expire before the deadline changed something:\n%s", stateDiff(before, after))
	}

	e.clock.Advance(2 * time.Second)
	if ok, err := e.orders.Expire(ctx, oa.OrderNo); !ok || err != nil {
		t.Fatalf("expire at the deadline: %v %v", ok, err)
	}
	if s := e.orderStatus(oa.OrderNo); s != OrderExpired {
		t.Errorf("order is %s", s)
	}
	for _, id := range ids {
		if v := e.seatVal(e.show.ID, id); v != "F" {
			t.Errorf("seat %d is %q after expiry", id, v)
		}
	}
	if e.userCount(e.show.ID, a) != "0" || e.zoneFree(e.show.ID, "standard") != "140" {
		t.Errorf("after expiry: user counter %q, standard free %q", e.userCount(e.show.ID, a), e.zoneFree(e.show.ID, "standard"))
	}
	before = e.state()
	if ok, err := e.orders.Expire(ctx, oa.OrderNo); ok || err != nil {
		t.Errorf("expire again: %v %v", ok, err)
	}
	if after := e.state(); after != before {
		t.Errorf("a second expire changed something:\n%s", stateDiff(before, after))
	}
	if _, _, err := e.payments.Start(ctx, a, oa.OrderNo, "demo"); ErrorCode(err) != CodeOrderState {
		t.Errorf("starting a payment of an expired order: %v, want ORDER_STATE", err)
	}

	// B buys F5 and pays; then A's late approval arrives
	ob, err := e.create(b, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	payB, _, err := e.payments.Start(ctx, b, ob.OrderNo, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.payments.DemoDecide(ctx, payB.PaymentID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := e.payments.DemoDecide(ctx, payA.PaymentID, true); err != nil {
		t.Fatalf("late approval: %v", err)
	}
	if p, _ := e.payments.Payment(ctx, payA.PaymentID); p == nil || p.Status != "refunded" {
		t.Errorf("the late payment is %+v, want refunded", p)
	}
	if s := e.orderStatus(oa.OrderNo); s != OrderExpired {
		t.Errorf("A's order is %s after the late payment", s)
	}
	if v := e.seatVal(e.show.ID, ids[0]); v != soldTo(ob) {
		t.Errorf("F5 is %q, want sold to B", v)
	}
	if v := e.seatVal(e.show.ID, ids[1]); v != "F" {
		t.Errorf("F6 is %q, want free", v)
	}
	if e.userCount(e.show.ID, a) != "0" || e.userCount(e.show.ID, b) != "1" {
		t.Errorf("counters: A %q, B %q", e.userCount(e.show.ID, a), e.userCount(e.show.ID, b))
	}

	// Get of a pending order past its deadline expires it on the spot
	oc, err := e.create(a, e.seatIDs("G1")...)
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(16 * time.Minute)
	got, err := e.orders.Get(ctx, a, oc.OrderNo)
	if err != nil || got.Status != OrderExpired {
		t.Errorf("reading an order past its deadline: %v %v, want expired", got, err)
	}
	e.checkInvariants()
}
