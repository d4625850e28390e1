package orders_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// startPayment orders one seat and starts paying it with the demo provider.
func startPayment(t *testing.T, e *testenv.TestEnv, label string) (*services.Order, *orders.Payment) {
	t.Helper()
	o, err := e.Create(e.User(1), e.SeatIDs(label)...)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := e.Payments.Start(context.Background(), o.UserID, o.OrderNo, "demo")
	if err != nil {
		t.Fatal(err)
	}
	return o, p
}

// event is a signed approval of p sent at sentAt ("" leaves sent_at out).
func event(e *testenv.TestEnv, p *orders.Payment, sentAt string) ([]byte, string) {
	ev := map[string]any{"payment_id": p.PaymentID, "status": "approved", "amount_minor": p.AmountMinor}
	if sentAt != "" {
		ev["sent_at"] = sentAt
	}
	body, _ := json.Marshal(ev)
	return body, e.Payments.Sign(body)
}

// statuses reads the order's and the payment's status from MySQL.
func statuses(t *testing.T, e *testenv.TestEnv, o *services.Order, p *orders.Payment) (string, string) {
	t.Helper()
	var ost, pst string
	if err := e.DB.Get(&ost, "SELECT status FROM orders WHERE id = ?", o.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.DB.Get(&pst, "SELECT status FROM payments WHERE id = ?", p.ID); err != nil {
		t.Fatal(err)
	}
	return ost, pst
}

func TestWebhook_RefusesStaleFutureAndUndatedEvents(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	o, p := startPayment(t, e, "A1")
	now := e.Clock.Now()
	for name, sentAt := range map[string]string{
		"older than 5 minutes":      now.Add(-orders.WebhookMaxAge - time.Second).Format(time.RFC3339),
		"more than 1 minute ahead":  now.Add(orders.WebhookMaxSkew + time.Second).Format(time.RFC3339),
		"a day old":                 now.Add(-24 * time.Hour).Format(time.RFC3339),
		"missing sent_at":           "",
		"sent_at is not RFC 3339":   now.Format(time.DateTime),
		"sent_at is a unix seconds": "1764496800",
	} {
		body, sig := event(e, p, sentAt)
		_, err := e.Payments.HandleWebhook(context.Background(), "demo", body, sig)
		if services.ErrorCode(err) != services.CodeUnauthenticated || !strings.Contains(err.Error(), "stale webhook") {
			t.Errorf("%s: %v, want UNAUTHENTICATED stale webhook", name, err)
		}
		if ost, pst := statuses(t, e, o, p); ost != services.OrderPending || pst != "started" {
			t.Fatalf("%s: order %s, payment %s; want pending, started", name, ost, pst)
		}
	}
	// inside the window (just under 5 minutes old, just under 1 minute ahead) it counts
	body, sig := event(e, p, now.Add(orders.WebhookMaxSkew-time.Second).Format(time.RFC3339))
	if _, err := e.Payments.HandleWebhook(context.Background(), "demo", body, sig); err != nil {
		t.Fatalf("fresh event: %v", err)
	}
	if ost, pst := statuses(t, e, o, p); ost != services.OrderPaid || pst != "approved" {
		t.Errorf("after a fresh event: order %s, payment %s; want paid, approved", ost, pst)
	}
	o2, p2 := startPayment(t, e, "A2")
	body, sig = event(e, p2, now.Add(-orders.WebhookMaxAge+time.Second).Format(time.RFC3339))
	if _, err := e.Payments.HandleWebhook(context.Background(), "demo", body, sig); err != nil {
		t.Fatalf("event almost 5 minutes old: %v", err)
	}
	if ost, _ := statuses(t, e, o2, p2); ost != services.OrderPaid {
		t.Errorf("after an event almost 5 minutes old: order %s, want paid", ost)
	}
}

func TestWebhook_RefusesWrongAndMalformedSignatures(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	o, p := startPayment(t, e, "B1")
	body, good := event(e, p, e.Clock.Now().Format(time.RFC3339))
	other := orders.NewPayments(e.DB, e.Orders, e.Clock, []byte("another-secret"), orders.DemoProvider{})
	flipped := []byte(good)
	flipped[0] ^= 1 // still hex, another MAC
	for name, sig := range map[string]string{
		"signed with another secret": other.Sign(body),
		"one digit changed":          string(flipped),
		"empty":                      "",
		"not hex":                    strings.Repeat("zz", 32),
		"odd length":                 good[:len(good)-1],
		"truncated MAC":              good[:32],
		"MAC with a suffix":          good + "00",
		"sha256= prefix":             "sha256=" + good,
		"of another body":            e.Payments.Sign(append([]byte(" "), body...)),
	} {
		_, err := e.Payments.HandleWebhook(context.Background(), "demo", body, sig)
		if services.ErrorCode(err) != services.CodeUnauthenticated {
			t.Errorf("%s: %v, want UNAUTHENTICATED", name, err)
		}
		if ost, pst := statuses(t, e, o, p); ost != services.OrderPending || pst != "started" {
			t.Fatalf("%s: order %s, payment %s; want pending, started", name, ost, pst)
		}
	}
	// the header's hex may be upper case: the bytes are what count
	if _, err := e.Payments.HandleWebhook(context.Background(), "demo", body, strings.ToUpper(good)); err != nil {
		t.Fatalf("upper-case signature: %v", err)
	}
	if ost, _ := statuses(t, e, o, p); ost != services.OrderPaid {
		t.Errorf("order %s, want paid", ost)
	}
}

// TestWebhook_ReplayChangesNothing replays one signed approval inside the window: after
// the order was paid, after it was refunded by staff, and after a decline event.
func TestWebhook_ReplayChangesNothing(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	o, p := startPayment(t, e, "C1")
	body, sig := event(e, p, e.Clock.Now().Format(time.RFC3339))
	if _, err := e.Payments.HandleWebhook(context.Background(), "demo", body, sig); err != nil {
		t.Fatal(err)
	}
	var paidAt time.Time
	e.DB.Get(&paidAt, "SELECT paid_at FROM orders WHERE id = ?", o.ID)
	e.Clock.Advance(time.Minute)
	for i := 0; i < 3; i++ {
		if _, err := e.Payments.HandleWebhook(context.Background(), "demo", body, sig); err != nil {
			t.Fatalf("replay %d: %v", i, err)
		}
	}
	var again time.Time
	e.DB.Get(&again, "SELECT paid_at FROM orders WHERE id = ?", o.ID)
	if ost, pst := statuses(t, e, o, p); ost != services.OrderPaid || pst != "approved" || !again.Equal(paidAt) {
		t.Errorf("after replays: order %s (paid at %v, was %v), payment %s", ost, again, paidAt, pst)
	}
	var n int
	e.DB.Get(&n, "SELECT COUNT(*) FROM payments WHERE order_id = ?", o.ID)
	if n != 1 {
		t.Errorf("%d payments for the order, want 1", n)
	}
	e.CheckInvariants()

	// a declined payment's order, cancelled afterwards: replaying the old approval
	// (still fresh) is recorded and refunded, never "paid", and the seat stays free
	o2, p2 := startPayment(t, e, "C2")
	approve, asig := event(e, p2, e.Clock.Now().Format(time.RFC3339))
	if _, err := e.Payments.DemoDecide(context.Background(), p2.PaymentID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Orders.Cancel(context.Background(), o2.UserID, o2.OrderNo); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Payments.HandleWebhook(context.Background(), "demo", approve, asig); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Payments.HandleWebhook(context.Background(), "demo", approve, asig); err != nil {
		t.Fatal(err)
	}
	if ost, pst := statuses(t, e, o2, p2); ost != services.OrderCancelled || pst != "refunded" {
		t.Errorf("approval after cancel: order %s, payment %s; want cancelled, refunded", ost, pst)
	}
	e.CheckInvariants()
}

// TestPayments_WithoutProviders: no provider configured means paying is UNAVAILABLE,
// the demo decision and its webhook are NOT_FOUND, and nothing becomes paid.
func TestPayments_WithoutProviders(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	o, p := startPayment(t, e, "D1") // started while the demo provider was on
	none := orders.NewPayments(e.DB, e.Orders, e.Clock, []byte("test-secret"))
	for _, provider := range []string{"", "demo"} {
		_, _, err := none.Start(context.Background(), o.UserID, o.OrderNo, provider)
		if services.ErrorCode(err) != services.CodeUnavailable || !strings.Contains(err.Error(), "no payment provider is configured") {
			t.Errorf("Start(%q) without providers: %v, want UNAVAILABLE", provider, err)
		}
	}
	if _, err := none.DemoDecide(context.Background(), p.PaymentID, true); services.ErrorCode(err) != services.CodeNotFound {
		t.Errorf("DemoDecide without the demo provider: %v, want NOT_FOUND", err)
	}
	body, sig := event(e, p, e.Clock.Now().Format(time.RFC3339))
	if _, err := none.HandleWebhook(context.Background(), "demo", body, sig); services.ErrorCode(err) != services.CodeNotFound {
		t.Errorf("demo webhook without the demo provider: %v, want NOT_FOUND", err)
	}
	if ost, pst := statuses(t, e, o, p); ost != services.OrderPending || pst != "started" {
		t.Errorf("order %s, payment %s; want pending, started", ost, pst)
	}
	var n int
	e.DB.Get(&n, "SELECT COUNT(*) FROM payments WHERE order_id = ?", o.ID)
	if n != 1 {
		t.Errorf("%d payments, want only the one started before", n)
	}
	// with the demo provider, "" is the default provider
	if pay, _, err := e.Payments.Start(context.Background(), o.UserID, o.OrderNo, ""); err != nil || pay.Provider != "demo" {
		t.Errorf("Start(\"\") with the demo provider: %v, %v", pay, err)
	}
}

// TestWebhook_UnknownPaymentIsNotFoundOnTheBuiltInScheme: a correctly signed event of the
// built-in scheme naming a payment that does not exist is NOT_FOUND (the demo provider
// is ours: nobody else signs with its secret), and changes nothing.
func TestWebhook_UnknownPaymentIsNotFoundOnTheBuiltInScheme(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	o, p := startPayment(t, e, "E1")
	stranger := *p
	stranger.PaymentID = "pay_not_here_1"
	body, sig := event(e, &stranger, e.Clock.Now().Format(time.RFC3339))
	if _, err := e.Payments.HandleWebhook(context.Background(), "demo", body, sig); services.ErrorCode(err) != services.CodeNotFound {
		t.Fatalf("a signed event for an unknown payment: %v, want NOT_FOUND", err)
	}
	if ost, pst := statuses(t, e, o, p); ost != services.OrderPending || pst != "started" {
		t.Fatalf("order %s, payment %s; want pending, started", ost, pst)
	}
}
