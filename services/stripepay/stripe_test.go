package stripepay_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/orders"
	"seatflow/services/stripepay"
)

// TestStripe_StartCreatesACheckoutSession: paying with Stripe creates one Checkout
// Session for the order's total in its currency, its PaymentIntent's metadata naming
// the payment and the order, under the Idempotency-Key of the payment, and sends the
// buyer to the session's URL (stripe-mock's fixture); a second Start of the order
// resumes the payment: the same id, the same key.
func TestStripe_StartCreatesACheckoutSession(t *testing.T) {
	e := newStripeEnv(t, newRecorder(t, stripeMock(t), nil), stripepay.Config{})
	o := e.order("A1")
	p, u, err := e.Pay.Start(context.Background(), o.UserID, o.OrderNo, "stripe")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(u, "https://checkout.stripe.com/") {
		t.Fatalf("redirect %q, want stripe-mock's checkout URL", u)
	}
	calls := e.API.Calls("/v1/checkout/sessions")
	if len(calls) != 1 {
		t.Fatalf("%d session requests, want 1", len(calls))
	}
	f := calls[0].Form
	for k, want := range map[string]string{
		"mode":                                      "payment",
		"line_items[0][price_data][unit_amount]":    strconv.FormatInt(o.TotalMinor, 10),
		"line_items[0][price_data][currency]":       strings.ToLower(o.Currency),
		"line_items[0][quantity]":                   "1",
		"payment_intent_data[metadata][payment_id]": p.PaymentID,
		"payment_intent_data[metadata][order_no]":   o.OrderNo,
		"client_reference_id":                       p.PaymentID,
		"success_url":                               "http://127.0.0.1:8080/orders/" + o.OrderNo + "?payment=" + p.PaymentID,
	} {
		if got := f.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if calls[0].Key != stripepay.StartKey(p) || !strings.Contains(calls[0].Key, p.PaymentID) {
		t.Fatalf("Idempotency-Key %q, want %q", calls[0].Key, stripepay.StartKey(p))
	}
	again, _ := e.start(o)
	calls = e.API.Calls("/v1/checkout/sessions")
	if again.PaymentID != p.PaymentID || len(calls) != 2 || calls[1].Key != calls[0].Key {
		t.Fatalf("a second Start: payment %s (first %s), keys %v: want the payment resumed under the same key", again.PaymentID, p.PaymentID, calls)
	}
	if _, _, err := e.Pay.Start(context.Background(), o.UserID, o.OrderNo, "demo"); err != nil {
		t.Fatalf("the demo provider next to Stripe: %v", err)
	}
}

// TestStripe_WebhookPaysOnceAndRefusesBadSignatures: a signed payment_intent.succeeded
// pays the order and records the PaymentIntent; the same event again changes nothing
// (one ticket code, one order_paid e-mail); an event signed with another secret, a
// tampered body, or no signature is INVALID_REQUEST (400) and changes nothing;
// payment_intent.payment_failed declines a started payment; another event type is
// ignored.
func TestStripe_WebhookPaysOnceAndRefusesBadSignatures(t *testing.T) {
	session := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { // a session, as Stripe answers it
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"cs_1","object":"checkout.session","url":"https://checkout.stripe.com/c/pay/cs_1"}`))
	})
	e := newStripeEnv(t, newRecorder(t, "", session), stripepay.Config{})
	ctx := context.Background()
	o := e.order("A1")
	p, _ := e.start(o)
	if h := e.Pay.SignatureHeader("stripe"); h != "Stripe-Signature" {
		t.Fatalf("signature header %q", h)
	}

	raw, sig := event(t, "payment_intent.succeeded", "pi_1", p, o.TotalMinor, "whsec_other")
	_, goodSig := event(t, "payment_intent.succeeded", "pi_1", p, o.TotalMinor, webhookSecret)
	for name, c := range map[string]struct {
		raw []byte
		sig string
	}{
		"another secret": {raw, sig},
		"no signature":   {raw, ""},
		"tampered body":  {[]byte(strings.Replace(string(raw), `"amount":`, `"amount":1`, 1)), goodSig},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := e.Pay.HandleWebhook(ctx, "stripe", c.raw, c.sig); services.ErrorCode(err) != services.CodeInvalidRequest {
				t.Fatalf("err %v, want INVALID_REQUEST", err)
			}
			if ost, pst, _ := e.statuses(o, p); ost != "pending" || pst != "started" {
				t.Fatalf("order %s, payment %s after a bad signature", ost, pst)
			}
		})
	}

	raw, sig = event(t, "payment_intent.succeeded", "pi_1", p, o.TotalMinor, webhookSecret)
	for i := range 2 {
		got, err := e.Pay.HandleWebhook(ctx, "stripe", raw, sig)
		if err != nil || got == nil || got.PaymentID != p.PaymentID {
			t.Fatalf("delivery %d: %v, %v", i+1, got, err)
		}
		if ost, pst, ref := e.statuses(o, p); ost != "paid" || pst != "approved" || ref != "pi_1" {
			t.Fatalf("delivery %d: order %s, payment %s, ref %q", i+1, ost, pst, ref)
		}
	}
	var codes, mails int
	_ = e.DB.Get(&codes, "SELECT COUNT(*) FROM ticket_codes WHERE order_id = ?", o.ID)
	_ = e.DB.Get(&mails, "SELECT COUNT(*) FROM mail_outbox WHERE order_no = ? AND kind = 'order_paid'", o.OrderNo)
	if codes != 1 || mails != 1 {
		t.Fatalf("after a replayed webhook: %d ticket codes, %d order_paid e-mails; want 1 and 1", codes, mails)
	}

	o2 := e.order("A2")
	p2, _ := e.start(o2)
	raw, sig = event(t, "payment_intent.payment_failed", "pi_2", p2, o2.TotalMinor, webhookSecret)
	if _, err := e.Pay.HandleWebhook(ctx, "stripe", raw, sig); err != nil {
		t.Fatal(err)
	}
	if ost, pst, _ := e.statuses(o2, p2); ost != "pending" || pst != "declined" {
		t.Fatalf("after payment_failed: order %s, payment %s", ost, pst)
	}
	raw, sig = event(t, "payment_intent.created", "pi_3", p2, o2.TotalMinor, webhookSecret)
	if got, err := e.Pay.HandleWebhook(ctx, "stripe", raw, sig); err != nil || got != nil {
		t.Fatalf("another event type: %v, %v; want ignored", got, err)
	}
	raw, sig = event(t, "payment_intent.succeeded", "pi_2", p2, o2.TotalMinor-1, webhookSecret)
	if _, err := e.Pay.HandleWebhook(ctx, "stripe", raw, sig); services.ErrorCode(err) != services.CodeInvalidRequest {
		t.Fatalf("a short amount: %v, want INVALID_REQUEST", err)
	}
	e.CheckInvariants()
}

// TestStripe_WebhookForAPaymentNotOursIsAcknowledged: a signed event naming a payment
// this install does not have (another install on the same Stripe account, a restored
// database) is answered as ignored, not NOT_FOUND (Stripe retries errors for days and
// disables the endpoint), and changes nothing; the built-in scheme still says NOT_FOUND.
func TestStripe_WebhookForAPaymentNotOursIsAcknowledged(t *testing.T) {
	e := newStripeEnv(t, newRecorder(t, "", nil), stripepay.Config{})
	ctx := context.Background()
	o := e.order("B1")
	stranger := &orders.Payment{PaymentID: "pay_not_here_1", OrderNo: "SF-NOT-HERE", Currency: o.Currency}
	raw, sig := event(t, "payment_intent.succeeded", "pi_x", stranger, o.TotalMinor, webhookSecret)
	got, err := e.Pay.HandleWebhook(ctx, "stripe", raw, sig)
	if err != nil || got != nil {
		t.Fatalf("an event for another install's payment: %v, %v; want ignored", got, err)
	}
	var paid int
	if err := e.DB.Get(&paid, "SELECT COUNT(*) FROM orders WHERE status = 'paid'"); err != nil || paid != 0 {
		t.Fatalf("%d paid orders after a stranger's event (%v)", paid, err)
	}
	e.CheckInvariants()
}

// TestStripe_Refunds: a refund of a whole payment and one of part of it reach Stripe's
// Refund API (stripe-mock) naming the PaymentIntent, each with its amount and its own
// Idempotency-Key from the refund's ID.
func TestStripe_Refunds(t *testing.T) {
	e := newStripeEnv(t, newRecorder(t, stripeMock(t), nil), stripepay.Config{})
	o := e.order("A1")
	p, _ := e.start(o)
	p.ProviderRef = "pi_1"
	ctx := context.Background()
	whole := orders.WholeRefund(p)
	part := orders.Refund{AmountMinor: o.TotalMinor / 2, ID: p.PaymentID + "-seat-1"}
	for _, r := range []orders.Refund{whole, part} {
		if err := e.Prov.Refund(ctx, p, r); err != nil {
			t.Fatalf("refund %s: %v", r.ID, err)
		}
	}
	calls := e.API.Calls("/v1/refunds")
	if len(calls) != 2 {
		t.Fatalf("%d refund requests, want 2", len(calls))
	}
	for i, r := range []orders.Refund{whole, part} {
		f := calls[i].Form
		if f.Get("payment_intent") != "pi_1" || f.Get("amount") != strconv.FormatInt(r.AmountMinor, 10) ||
			f.Get("metadata[payment_id]") != p.PaymentID || calls[i].Key != stripepay.RefundKey(r) {
			t.Fatalf("refund %s sent %v with key %q", r.ID, f, calls[i].Key)
		}
	}
	p.ProviderRef = ""
	if err := e.Prov.Refund(ctx, p, whole); err == nil {
		t.Fatal("a refund of a payment without a PaymentIntent was sent")
	}
}

// TestStripe_LatePaymentIsRefunded: a payment_intent.succeeded for an order that
// expired in the meantime is recorded and refunded through Stripe (the PaymentIntent
// the event named, the whole amount); the order stays expired, its seats free.
func TestStripe_LatePaymentIsRefunded(t *testing.T) {
	e := newStripeEnv(t, newRecorder(t, stripeMock(t), nil), stripepay.Config{})
	ctx := context.Background()
	o := e.order("A1")
	p, _ := e.start(o)
	e.Clock.Advance(o.ExpiresAt.Sub(e.Clock.Now()) + orders.PaymentGrace + time.Second)
	if _, err := e.Orders.Expire(ctx, o.OrderNo); err != nil {
		t.Fatal(err)
	}
	raw, sig := event(t, "payment_intent.succeeded", "pi_late", p, o.TotalMinor, webhookSecret)
	if _, err := e.Pay.HandleWebhook(ctx, "stripe", raw, sig); err != nil {
		t.Fatal(err)
	}
	if ost, pst, ref := e.statuses(o, p); ost != "expired" || pst != "refunded" || ref != "pi_late" {
		t.Fatalf("order %s, payment %s, ref %q; want expired, refunded, pi_late", ost, pst, ref)
	}
	calls := e.API.Calls("/v1/refunds")
	if len(calls) != 1 || calls[0].Form.Get("payment_intent") != "pi_late" ||
		calls[0].Form.Get("amount") != strconv.FormatInt(o.TotalMinor, 10) || calls[0].Key != stripepay.RefundKey(orders.WholeRefund(p)) {
		t.Fatalf("refund requests %v, want one of the whole payment", calls)
	}
	e.CheckInvariants()
}

// TestStripe_TimeoutLeavesTheOrderPendingAndRetriesUnderOneKey: Stripe's API does not
// answer in time (a server that sleeps past the client's timeout): Start answers
// UNAVAILABLE, the order stays pending, and every attempt (the library's retry, then
// the buyer's second Start, which resumes the payment) carries the same
// Idempotency-Key, so Stripe makes at most one session whatever reached it.
func TestStripe_TimeoutLeavesTheOrderPendingAndRetriesUnderOneKey(t *testing.T) {
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
	})
	e := newStripeEnv(t, newRecorder(t, "", slow), stripepay.Config{Timeout: 150 * time.Millisecond, MaxRetries: 1})
	o := e.order("A1")
	var ids []string
	for range 2 {
		p, _, err := e.Pay.Start(context.Background(), o.UserID, o.OrderNo, "stripe")
		if services.ErrorCode(err) != services.CodeUnavailable {
			t.Fatalf("Start against a silent API: %v, want UNAVAILABLE", err)
		}
		_ = p
		var id string
		if err := e.DB.Get(&id, "SELECT payment_id FROM payments WHERE order_id = ? ORDER BY id DESC LIMIT 1", o.ID); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	var n int
	_ = e.DB.Get(&n, "SELECT COUNT(*) FROM payments WHERE order_id = ?", o.ID)
	calls := e.API.Calls("/v1/checkout/sessions")
	if n != 1 || ids[0] != ids[1] || len(calls) != 4 {
		t.Fatalf("%d payments (%v), %d attempts; want 1 payment and 4 attempts (2 Starts, each retried once)", n, ids, len(calls))
	}
	want := "seatflow-checkout-" + ids[0]
	for i, c := range calls {
		if c.Key != want {
			t.Fatalf("attempt %d sent Idempotency-Key %q, want %q", i+1, c.Key, want)
		}
	}
	if got, err := e.Orders.ByNo(context.Background(), o.OrderNo); err != nil || got.Status != services.OrderPending {
		t.Fatalf("order after the timeouts: %v, %v; want pending", got, err)
	}
	e.CheckInvariants()
}
