package staff_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/internal/testenv"
	"seatflow/services/staff"
)

// staffOrders returns the staff order service over the env's stores.
func staffOrders(e *testenv.TestEnv) *staff.StaffOrders {
	return staff.NewStaffOrders(e.DB, e.Orders, e.Payments, e.Shows, audit.NewAudit(e.DB, e.Clock))
}

// paymentStatuses lists the statuses of an order's payments, oldest first.
func paymentStatuses(e *testenv.TestEnv, orderNo string) []string {
	e.T.Helper()
	var out []string
	if err := e.DB.Select(&out, "SELECT p.status FROM payments p JOIN orders o ON o.id = p.order_id WHERE o.order_no = ? ORDER BY p.id", orderNo); err != nil {
		e.T.Fatal(err)
	}
	return out
}

// TestRefund_FreesSeatsAndPurchaseLimit: refunding a paid order marks it and its payment
// refunded, frees its seats in MySQL and Redis so anyone can buy them, gives the buyer's
// purchase limit back, and is audited with before and after; a second refund is 409.
func TestRefund_FreesSeatsAndPurchaseLimit(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	so := staffOrders(e)
	staffID := e.User(1)
	buyer := e.User(2)
	seats := e.SeatIDs("A1", "A2", "A3", "A4")
	o, err := e.Create(buyer, seats...)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.PayOrder(o); err != nil {
		t.Fatal(err)
	}
	if st := e.OrderStatus(o.OrderNo); st != services.OrderPaid {
		t.Fatalf("order %s, want paid", st)
	}
	if _, err := e.Create(buyer, e.SeatIDs("B1")...); services.ErrorCode(err) != services.CodeLimitExceeded {
		t.Fatalf("a fifth seat before the refund: %v, want LIMIT_EXCEEDED", err)
	}

	got, err := so.Refund(ctx, staffID, o.OrderNo, "customer asked")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != services.OrderRefunded || got.CancelReason == nil || *got.CancelReason != "customer asked" || got.CancelledAt == nil {
		t.Fatalf("refunded order %+v", got)
	}
	if ps := paymentStatuses(e, o.OrderNo); len(ps) != 1 || ps[0] != "refunded" {
		t.Errorf("payments %v, want [refunded]", ps)
	}
	var live int
	if err := e.DB.Get(&live, "SELECT COUNT(*) FROM order_seats WHERE order_id = ? AND live IS NOT NULL", o.ID); err != nil {
		t.Fatal(err)
	}
	if live != 0 {
		t.Errorf("%d seats of the refunded order still live in MySQL", live)
	}
	for _, id := range seats {
		if v := e.SeatVal(e.Show.ID, id); v != "F" {
			t.Errorf("seat %d is %q in Redis after the refund, want F", id, v)
		}
	}
	if n := e.UserCount(e.Show.ID, buyer); n != "0" && n != "" {
		t.Errorf("buyer's purchase-limit count %q after the refund, want 0", n)
	}
	e.CheckInvariants()

	// the buyer may buy 4 seats again, another buyer the refunded seats
	if _, err := e.Create(buyer, e.SeatIDs("B1", "B2", "B3", "B4")...); err != nil {
		t.Fatalf("buyer buys 4 more after the refund: %v", err)
	}
	if _, err := e.Create(e.User(3), seats...); err != nil {
		t.Fatalf("another buyer takes the refunded seats: %v", err)
	}
	e.CheckInvariants()

	if _, err := so.Refund(ctx, staffID, o.OrderNo, "again"); services.ErrorCode(err) != services.CodeOrderState {
		t.Errorf("second refund: %v, want ORDER_STATE", err)
	}
	entries := e.AuditOf("order", o.OrderNo)
	if len(entries) != 1 || entries[0].Action != "order.refund" || entries[0].ActorID == nil || *entries[0].ActorID != staffID {
		t.Fatalf("audit entries %+v, want one order.refund by the staff member", entries)
	}
	var before, after staff.OrderAudit
	if json.Unmarshal(entries[0].Before, &before) != nil || json.Unmarshal(entries[0].After, &after) != nil {
		t.Fatalf("audit before/after not JSON: %s / %s", entries[0].Before, entries[0].After)
	}
	if before.Status != services.OrderPaid || after.Status != services.OrderRefunded || len(after.Seats) != 4 || len(after.Payments) != 1 ||
		after.CancelReason == nil || *after.CancelReason != "customer asked" {
		t.Errorf("audit before %+v after %+v", before, after)
	}
}

// TestRefund_OnlyPaidOrders: a pending order cannot be refunded (409, nothing changes),
// an unknown order is 404.
func TestRefund_OnlyPaidOrders(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	so := staffOrders(e)
	staff := e.User(1)
	o, err := e.Create(e.User(2), e.SeatIDs("C5", "C6")...)
	if err != nil {
		t.Fatal(err)
	}
	before := e.State()
	if _, err := so.Refund(ctx, staff, o.OrderNo, ""); services.ErrorCode(err) != services.CodeOrderState {
		t.Errorf("refund of a pending order: %v, want ORDER_STATE", err)
	}
	if d := testenv.StateDiff(before, e.State()); d != "" {
		t.Errorf("a refused refund changed the stores:\n%s", d)
	}
	if len(e.AuditOf("order", o.OrderNo)) != 0 {
		t.Error("a refused refund was audited")
	}
	for _, no := range []string{"NOSUCHORDER", "", "x" + o.OrderNo} {
		if _, err := so.Refund(ctx, staff, no, ""); services.ErrorCode(err) != services.CodeNotFound {
			t.Errorf("refund of %q: %v, want NOT_FOUND", no, err)
		}
	}
	e.CheckInvariants()
}

// TestRefund_RaceHasOneWinner: staff refunding the same paid order at once: exactly one
// refund wins, every other gets ORDER_STATE, and the order is refunded once.
func TestRefund_RaceHasOneWinner(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	so := staffOrders(e)
	staff := e.User(1)
	o, err := e.Create(e.User(2), e.SeatIDs("D1", "D2", "D3")...)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.PayOrder(o); err != nil {
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
		switch services.ErrorCode(err) {
		case "":
			if err != nil {
				t.Errorf("refund: %v", err)
			}
			wins++
		case services.CodeOrderState:
		default:
			t.Errorf("refund: %v", err)
		}
	}
	if wins != 1 {
		t.Errorf("%d refunds won, want exactly 1", wins)
	}
	if got := len(e.AuditOf("order", o.OrderNo)); got != 1 {
		t.Errorf("%d audit entries, want 1", got)
	}
	if st := e.OrderStatus(o.OrderNo); st != services.OrderRefunded {
		t.Errorf("order %s, want refunded", st)
	}
	e.CheckInvariants()
}
