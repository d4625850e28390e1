package staff_test

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"testing"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/staff"
)

// TestCancelShow_EndsEveryOrder: cancelling a show cancels its pending orders (seats
// released), refunds its paid ones, counts both, and audits it; a payment started
// before the cancel and approved after it is recorded and refunded and its order is not
// paid (invariant 10); no payment starts afterwards; a second cancel changes nothing
// and counts zero.
func TestCancelShow_EndsEveryOrder(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	so := staffOrders(e)
	staffID := e.User(1)
	pending, err := e.Create(e.User(2), e.SeatIDs("A1", "A2")...)
	if err != nil {
		t.Fatal(err)
	}
	paid, err := e.Create(e.User(3), e.SeatIDs("B1", "B2", "B3")...)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.PayOrder(paid); err != nil {
		t.Fatal(err)
	}
	paying, err := e.Create(e.User(4), e.SeatIDs("C1")...)
	if err != nil {
		t.Fatal(err)
	}
	pay, _, err := e.Payments.Start(ctx, paying.UserID, paying.OrderNo, "demo")
	if err != nil {
		t.Fatal(err)
	}
	ended, err := e.Create(e.User(5), e.SeatIDs("D1")...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Orders.Cancel(ctx, ended.UserID, ended.OrderNo); err != nil {
		t.Fatal(err)
	}

	res, err := so.CancelShow(ctx, staffID, e.Show.ID, "projector broken")
	if err != nil {
		t.Fatal(err)
	}
	if res.Show.Status != services.ShowCancelled || res.CancelledOrders != 2 || res.RefundedOrders != 1 {
		t.Fatalf("cancel: show %s, cancelled %d, refunded %d; want cancelled, 2, 1", res.Show.Status, res.CancelledOrders, res.RefundedOrders)
	}
	for no, want := range map[string]string{pending.OrderNo: services.OrderCancelled, paying.OrderNo: services.OrderCancelled,
		paid.OrderNo: services.OrderRefunded, ended.OrderNo: services.OrderCancelled} {
		if st := e.OrderStatus(no); st != want {
			t.Errorf("order %s is %s, want %s", no, st, want)
		}
	}
	if ps := paymentStatuses(e, paid.OrderNo); len(ps) != 1 || ps[0] != "refunded" {
		t.Errorf("payments of the paid order %v, want [refunded]", ps)
	}
	for _, o := range []*services.Order{pending, paid, paying} {
		for _, s := range o.Seats {
			if v := e.SeatVal(e.Show.ID, s.SeatID); v != "F" {
				t.Errorf("seat %s of order %s is %q in Redis, want F", s.Label, o.OrderNo, v)
			}
		}
	}
	e.CheckInvariants()

	// the payment started before the cancel is approved now: recorded, refunded, not paid
	if _, err := e.Payments.DemoDecide(ctx, pay.PaymentID, true); err != nil {
		t.Fatal(err)
	}
	if st := e.OrderStatus(paying.OrderNo); st == services.OrderPaid {
		t.Errorf("an approval after the show was cancelled paid the order")
	}
	if ps := paymentStatuses(e, paying.OrderNo); len(ps) != 1 || ps[0] != "refunded" {
		t.Errorf("late payment %v, want [refunded]", ps)
	}
	if _, _, err := e.Payments.Start(ctx, paying.UserID, paying.OrderNo, "demo"); services.ErrorCode(err) != services.CodeOrderState {
		t.Errorf("pay after the cancel: %v, want ORDER_STATE", err)
	}
	if _, err := e.Create(e.User(6), e.SeatIDs("E1")...); services.ErrorCode(err) != services.CodeNotOnSale {
		t.Errorf("order after the cancel: %v, want NOT_ON_SALE", err)
	}
	e.CheckInvariants()

	again, err := so.CancelShow(ctx, staffID, e.Show.ID, "twice")
	if err != nil {
		t.Fatal(err)
	}
	if again.Show.Status != services.ShowCancelled || again.CancelledOrders != 0 || again.RefundedOrders != 0 {
		t.Errorf("second cancel: %s, %d, %d; want cancelled, 0, 0", again.Show.Status, again.CancelledOrders, again.RefundedOrders)
	}
	entries := e.AuditOf("show", strconv.FormatInt(e.Show.ID, 10))
	if len(entries) != 1 || entries[0].Action != "show.cancel" || entries[0].ActorID == nil || *entries[0].ActorID != staffID {
		t.Fatalf("show audit %+v, want one show.cancel by the staff member", entries)
	}
	var before, after staff.ShowAudit
	_ = json.Unmarshal(entries[0].Before, &before)
	_ = json.Unmarshal(entries[0].After, &after)
	if before.Status != services.ShowOnSale || after.Status != services.ShowCancelled || after.Reason != "projector broken" {
		t.Errorf("show audit before %+v after %+v", before, after)
	}
	if got := e.AuditOf("order", paid.OrderNo); len(got) != 1 || got[0].Action != "order.refund" {
		t.Errorf("refund of the paid order not audited: %+v", got)
	}
	if got := e.AuditOf("order", pending.OrderNo); len(got) != 1 || got[0].Action != "order.cancel" || got[0].ActorID == nil || *got[0].ActorID != staffID {
		t.Errorf("cancel of the pending order not audited: %+v", got)
	}
	if _, err := so.CancelShow(ctx, staffID, e.Show.ID+1000, ""); services.ErrorCode(err) != services.CodeNotFound {
		t.Errorf("cancel of an unknown show: %v, want NOT_FOUND", err)
	}
	e.CheckInvariants()
}

// TestInvariant10_PendingOrderOfCancelledShowCannotBePaid: an order that is somehow still
// pending when its show is cancelled cannot start a payment, and an approval of a
// payment started before is recorded and refunded, never paid (invariant 10): the
// paying update itself checks the show.
func TestInvariant10_PendingOrderOfCancelledShowCannotBePaid(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	o, err := e.Create(e.User(2), e.SeatIDs("F1", "F2")...)
	if err != nil {
		t.Fatal(err)
	}
	pay, _, err := e.Payments.Start(ctx, o.UserID, o.OrderNo, "demo")
	if err != nil {
		t.Fatal(err)
	}
	// the show is cancelled while the order stays pending (an order created from a show
	// read just before the cancel)
	e.Exec("UPDATE shows SET status = 'cancelled' WHERE id = ?", e.Show.ID)
	e.Catalog.ForgetShow(e.Show.ID)
	if _, _, err := e.Payments.Start(ctx, o.UserID, o.OrderNo, "demo"); services.ErrorCode(err) != services.CodeOrderState && services.ErrorCode(err) != services.CodeNotOnSale {
		t.Errorf("pay for an order of a cancelled show: %v, want ORDER_STATE or NOT_ON_SALE", err)
	}
	if _, err := e.Payments.DemoDecide(ctx, pay.PaymentID, true); err != nil {
		t.Fatal(err)
	}
	if st := e.OrderStatus(o.OrderNo); st == services.OrderPaid {
		t.Fatal("an approval for an order of a cancelled show paid it")
	}
	if ps := paymentStatuses(e, o.OrderNo); len(ps) != 1 || ps[0] != "refunded" {
		t.Errorf("payment %v, want [refunded]", ps)
	}
	// cancelling the show (again) ends the order left pending
	res, err := staffOrders(e).CancelShow(ctx, e.User(1), e.Show.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.CancelledOrders != 1 || e.OrderStatus(o.OrderNo) != services.OrderCancelled {
		t.Errorf("cancel of the cancelled show ended %d orders, order %s", res.CancelledOrders, e.OrderStatus(o.OrderNo))
	}
	e.CheckInvariants()
}

// TestInvariant10_ApprovalsRacingAShowCancelAreRefunded: approvals of started payments race the cancel of their
// show. Whichever wins each race, afterwards no order of the show is paid, no payment is
// left approved (each approved one was refunded, invariant 10), every order is counted
// once, and the stores agree.
func TestInvariant10_ApprovalsRacingAShowCancelAreRefunded(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.QuietLogs()
	ctx := context.Background()
	so := staffOrders(e)
	const n = 12
	rows := []string{"A", "B", "C", "D", "E", "F"}
	var pays []string
	var orders []*services.Order
	for i := 0; i < n; i++ {
		label := rows[i%len(rows)] + strconv.Itoa(1+i/len(rows))
		o, err := e.Create(e.User(10+i), e.SeatIDs(label)...)
		if err != nil {
			t.Fatal(err)
		}
		p, _, err := e.Payments.Start(ctx, o.UserID, o.OrderNo, "demo")
		if err != nil {
			t.Fatal(err)
		}
		orders = append(orders, o)
		pays = append(pays, p.PaymentID)
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, p := range pays {
		wg.Add(1)
		go func(p string) {
			defer wg.Done()
			<-start
			if _, err := e.Payments.DemoDecide(ctx, p, true); err != nil {
				t.Errorf("approve %s: %v", p, err)
			}
		}(p)
	}
	var res *staff.ShowCancellation
	var cancelErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-start
		res, cancelErr = so.CancelShow(ctx, e.User(1), e.Show.ID, "")
	}()
	close(start)
	wg.Wait()
	if cancelErr != nil {
		t.Fatal(cancelErr)
	}
	t.Logf("the cancel found %d orders pending and %d paid", res.CancelledOrders, res.RefundedOrders)
	if res.CancelledOrders+res.RefundedOrders != n {
		t.Errorf("cancelled %d + refunded %d orders, want %d in all", res.CancelledOrders, res.RefundedOrders, n)
	}
	for _, o := range orders {
		if st := e.OrderStatus(o.OrderNo); st != services.OrderCancelled && st != services.OrderRefunded {
			t.Errorf("order %s is %s after its show was cancelled", o.OrderNo, st)
		}
		if ps := paymentStatuses(e, o.OrderNo); len(ps) != 1 || ps[0] != "refunded" {
			t.Errorf("payments of order %s: %v, want [refunded]", o.OrderNo, ps)
		}
	}
	e.CheckInvariants()
}
