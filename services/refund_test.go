package services

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
)

// staffOrders returns the staff order service over the env's stores.
func (e *testEnv) staffOrders() *StaffOrders {
	return NewStaffOrders(e.db, e.orders, e.payments, e.shows, NewAudit(e.db, e.clock))
}

// paymentStatuses lists the statuses of an order's payments, oldest first.
func (e *testEnv) paymentStatuses(orderNo string) []string {
	e.t.Helper()
	var out []string
	if err := e.db.Select(&out, "SELECT p.status FROM payments p JOIN orders o ON o.id = p.order_id WHERE o.order_no = ? ORDER BY p.id", orderNo); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// TestRefund_FreesSeatsAndPurchaseLimit: refunding a paid order marks it and its payment
// refunded, frees its seats in MySQL and Redis so anyone can buy them, gives the buyer's
// purchase limit back, and is audited with before and after; a second refund is 409.
func TestRefund_FreesSeatsAndPurchaseLimit(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	so := e.staffOrders()
	staff := e.user(1)
	buyer := e.user(2)
	seats := e.seatIDs("A1", "A2", "A3", "A4")
	o, err := e.create(buyer, seats...)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.payOrder(o); err != nil {
		t.Fatal(err)
	}
	if st := e.orderStatus(o.OrderNo); st != OrderPaid {
		t.Fatalf("order %s, want paid", st)
	}
	if _, err := e.create(buyer, e.seatIDs("B1")...); ErrorCode(err) != CodeLimitExceeded {
		t.Fatalf("a fifth seat before the refund: %v, want LIMIT_EXCEEDED", err)
	}

	got, err := so.Refund(ctx, staff, o.OrderNo, "customer asked")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != OrderRefunded || got.CancelReason == nil || *got.CancelReason != "customer asked" || got.CancelledAt == nil {
		t.Fatalf("refunded order %+v", got)
	}
	if ps := e.paymentStatuses(o.OrderNo); len(ps) != 1 || ps[0] != "refunded" {
		t.Errorf("payments %v, want [refunded]", ps)
	}
	var live int
	if err := e.db.Get(&live, "SELECT COUNT(*) FROM order_seats WHERE order_id = ? AND live IS NOT NULL", o.ID); err != nil {
		t.Fatal(err)
	}
	if live != 0 {
		t.Errorf("%d seats of the refunded order still live in MySQL", live)
	}
	for _, id := range seats {
		if v := e.seatVal(e.show.ID, id); v != "F" {
			t.Errorf("seat %d is %q in Redis after the refund, want F", id, v)
		}
	}
	if n := e.userCount(e.show.ID, buyer); n != "0" && n != "" {
		t.Errorf("buyer's purchase-limit count %q after the refund, want 0", n)
	}
	e.checkInvariants()

	// the buyer may buy 4 seats again, another buyer the refunded seats
	if _, err := e.create(buyer, e.seatIDs("B1", "B2", "B3", "B4")...); err != nil {
		t.Fatalf("buyer buys 4 more after the refund: %v", err)
	}
	if _, err := e.create(e.user(3), seats...); err != nil {
		t.Fatalf("another buyer takes the refunded seats: %v", err)
	}
	e.checkInvariants()

	if _, err := so.Refund(ctx, staff, o.OrderNo, "again"); ErrorCode(err) != CodeOrderState {
		t.Errorf("second refund: %v, want ORDER_STATE", err)
	}
	entries := e.auditOf("order", o.OrderNo)
	if len(entries) != 1 || entries[0].Action != "order.refund" || entries[0].ActorID == nil || *entries[0].ActorID != staff {
		t.Fatalf("audit entries %+v, want one order.refund by the staff member", entries)
	}
	var before, after orderAudit
	if json.Unmarshal(entries[0].Before, &before) != nil || json.Unmarshal(entries[0].After, &after) != nil {
		t.Fatalf("audit before/after not JSON: %s / %s", entries[0].Before, entries[0].After)
	}
	if before.Status != OrderPaid || after.Status != OrderRefunded || len(after.Seats) != 4 || len(after.Payments) != 1 ||
		after.CancelReason == nil || *after.CancelReason != "customer asked" {
		t.Errorf("audit before %+v after %+v", before, after)
	}
}

// TestRefund_OnlyPaidOrders: a pending order cannot be refunded (409, nothing changes),
// an unknown order is 404.
func TestRefund_OnlyPaidOrders(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	so := e.staffOrders()
	staff := e.user(1)
	o, err := e.create(e.user(2), e.seatIDs("C5", "C6")...)
	if err != nil {
		t.Fatal(err)
	}
	before := e.state()
	if _, err := so.Refund(ctx, staff, o.OrderNo, ""); ErrorCode(err) != CodeOrderState {
		t.Errorf("refund of a pending order: %v, want ORDER_STATE", err)
	}
	if d := stateDiff(before, e.state()); d != "" {
		t.Errorf("a refused refund changed the stores:\n%s", d)
	}
	if len(e.auditOf("order", o.OrderNo)) != 0 {
		t.Error("a refused refund was audited")
	}
	for _, no := range []string{"NOSUCHORDER", "", "x" + o.OrderNo} {
		if _, err := so.Refund(ctx, staff, no, ""); ErrorCode(err) != CodeNotFound {
			t.Errorf("refund of %q: %v, want NOT_FOUND", no, err)
		}
	}
	e.checkInvariants()
}

// TestRefund_RaceHasOneWinner: staff refunding the same paid order at once: exactly one
// refund wins, every other gets ORDER_STATE, and the order is refunded once.
func TestRefund_RaceHasOneWinner(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	so := e.staffOrders()
	staff := e.user(1)
	o, err := e.create(e.user(2), e.seatIDs("D1", "D2", "D3")...)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.payOrder(o); err != nil {
		t.Fatal(err)
	}
	const n = 12
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			_, errs[i] = so.Refund(ctx, staff, o.OrderNo, "race")
		}(i)
	}
	close(start)
	wg.Wait()
	wins := 0
	for _, err := range errs {
		switch ErrorCode(err) {
		case "":
			if err != nil {
				t.Errorf("refund: %v", err)
			}
			wins++
		case CodeOrderState:
		default:
			t.Errorf("refund: %v", err)
		}
	}
	if wins != 1 {
		t.Errorf("%d refunds won, want exactly 1", wins)
	}
	if got := len(e.auditOf("order", o.OrderNo)); got != 1 {
		t.Errorf("%d audit entries, want 1", got)
	}
	if st := e.orderStatus(o.OrderNo); st != OrderRefunded {
		t.Errorf("order %s, want refunded", st)
	}
	e.checkInvariants()
}
