package stripepay_test

import (
	"context"
	"strconv"
	"testing"

	"seatflow/services/mail"
	"seatflow/services/orders"
	"seatflow/services/store"
	"seatflow/services/stripepay"
)

// TestStripe_RefundOfSomeSeats: a paid order of two seats refunds one, then the rest,
// through Payments.Refund: each refund reaches Stripe's Refund API (stripe-mock) once,
// naming the PaymentIntent, with that refund's amount and an Idempotency-Key from its
// refunds row; the payment keeps what went back and ends refunded with the last seat.
func TestStripe_RefundOfSomeSeats(t *testing.T) {
	e := newStripeEnv(t, newRecorder(t, stripeMock(t), nil), stripepay.Config{})
	ctx := context.Background()
	o, err := e.Create(e.User(1), e.SeatIDs("A1", "A2")...)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := e.start(o)
	raw, sig := event(t, "payment_intent.succeeded", "pi_part", p, o.TotalMinor, webhookSecret)
	if _, err := e.Pay.HandleWebhook(ctx, "stripe", raw, sig); err != nil {
		t.Fatal(err)
	}
	for i, seats := range [][]int64{e.SeatIDs("A1"), nil} {
		paid, err := e.Orders.ByNo(ctx, o.OrderNo)
		if err != nil {
			t.Fatal(err)
		}
		done, won, err := e.Pay.Refund(ctx, paid, orders.RefundRequest{SeatIDs: seats, ActorID: e.User(9), Reason: "test",
			Mail: mail.Message{Kind: mail.OrderRefunded, Data: map[string]string{mail.DataReason: mail.ReasonStaff}}})
		if err != nil || !won {
			t.Fatalf("refund %d: won %v, %v", i+1, won, err)
		}
		calls := e.API.Calls("/v1/refunds")
		if len(calls) != i+1 {
			t.Fatalf("after refund %d: %d refund requests", i+1, len(calls))
		}
		f := calls[i].Form
		key := stripepay.RefundKey(orders.Refund{ID: done.Refund.RefundID})
		if f.Get("payment_intent") != "pi_part" || f.Get("amount") != strconv.FormatInt(done.Refund.AmountMinor, 10) || calls[i].Key != key {
			t.Fatalf("refund %d sent %v with key %q; want %d under %q", i+1, f, calls[i].Key, done.Refund.AmountMinor, key)
		}
	}
	var pay store.Payment
	if err := e.DB.Get(&pay, "SELECT status, refunded_minor, amount_minor FROM payments WHERE id = ?", p.ID); err != nil ||
		pay.Status != "refunded" || pay.RefundedMinor != pay.AmountMinor {
		t.Fatalf("payment %+v (%v), want refunded whole", pay, err)
	}
	e.CheckInvariants()
}
