package orders_test

import (
	"context"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/store"
)

// TestSelfRefund_UntilTheCutoff: a buyer cancels a paid order of a show that lets buyers
// refund themselves until 24 hours before the start: before the cut-off the order ends
// refunded (end reason refunded_by_buyer) with a refund row without an actor for all its
// money, its payment refunded, its seats free and the e-mail queued, and asking again
// answers the same order; after the cut-off, or at a show without one, the cancel is
// ORDER_STATE and changes nothing; another user's order is NOT_FOUND.
func TestSelfRefund_UntilTheCutoff(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	buyer := e.User(1)
	paid := func(labels ...string) *services.Order {
		o, err := e.Create(buyer, e.SeatIDs(labels...)...)
		if err != nil {
			t.Fatal(err)
		}
		e.Pay(o)
		return o
	}
	none := paid("A1")
	before := e.State()
	if _, err := e.Payments.Cancel(ctx, buyer, none.OrderNo); services.ErrorCode(err) != services.CodeOrderState {
		t.Fatalf("cancel of a paid order of a show without self-refund: %v, want ORDER_STATE", err)
	}
	if e.State() != before {
		t.Error("a refused cancel changed the stores")
	}

	e.Exec("UPDATE shows SET self_refund_until_h = 24 WHERE id = ?", e.Show.ID) // the show starts in 48 hours
	o := paid("A2", "A3")
	if _, err := e.Payments.Cancel(ctx, e.User(2), o.OrderNo); services.ErrorCode(err) != services.CodeNotFound {
		t.Fatalf("another user's cancel: %v, want NOT_FOUND", err)
	}
	got, err := e.Payments.Cancel(ctx, buyer, o.OrderNo)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != services.OrderRefunded || got.End == nil || got.End.Code != services.EndRefundedByBuyer || got.RefundedMinor != 9000 {
		t.Fatalf("self-refunded order: %s, end %+v, refunded %d", got.Status, got.End, got.RefundedMinor)
	}
	refunds, err := store.RefundsOf(ctx, e.DB, o.ID)
	if err != nil || len(refunds) != 1 || refunds[0].ActorID != nil || refunds[0].AmountMinor != 9000 {
		t.Fatalf("refunds %+v (%v), want one of 9000 without an actor", refunds, err)
	}
	for _, id := range e.SeatIDs("A2", "A3") {
		if v := e.SeatVal(e.Show.ID, id); v != "F" {
			t.Errorf("seat %d is %q after the self-refund, want F", id, v)
		}
	}
	if kinds := e.MailKinds(o.OrderNo); kinds != "order_created order_paid order_refunded" {
		t.Errorf("e-mails %s", kinds)
	}
	if again, err := e.Payments.Cancel(ctx, buyer, o.OrderNo); err != nil || again.Status != services.OrderRefunded {
		t.Errorf("cancelling again: %v, %v; want the refunded order", again, err)
	}
	e.CheckInvariants()

	late := paid("A4")
	e.Clock.Advance(24*time.Hour + time.Second)
	before = e.State()
	if _, err := e.Payments.Cancel(ctx, buyer, late.OrderNo); services.ErrorCode(err) != services.CodeOrderState {
		t.Fatalf("cancel after the cut-off: %v, want ORDER_STATE", err)
	}
	if e.State() != before {
		t.Error("a cancel after the cut-off changed the stores")
	}
	e.CheckInvariants()
}
