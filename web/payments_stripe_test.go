package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v82/webhook"
)

// TestStripe_PayAndWebhookOverHTTP: with SEATFLOW_STRIPE_* set (the API at a stand-in
// that answers a Checkout Session), paying an order answers the session's URL; at POST
// /api/v1/payments/stripe/webhook a bad Stripe-Signature is 400 and changes nothing, a
// signed payment_intent.succeeded is 200 and pays the order, its replay is 200 and
// changes nothing, and another event type is 200 and ignored. The demo provider is
// still there by name.
func TestStripe_PayAndWebhookOverHTTP(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"cs_1","object":"checkout.session","url":"https://checkout.stripe.com/c/pay/cs_1"}`))
	}))
	defer api.Close()
	const secret = "whsec_web_test"
	a := newTestApp(t, func(c *Config) {
		c.StripeSecretKey, c.StripeWebhookSecret, c.StripeAPIBase = "sk_test_1", secret, api.URL
	})
	buyer := a.newUser()
	show, seats := a.onSaleShow(1)
	no := a.orderSeats(buyer, show, seats[:1])
	pr := a.do("POST", "/api/v1/orders/"+no+"/pay", buyer, nil, nil)
	if pr.status != 200 || pr.json(t)["redirect_url"] != "https://checkout.stripe.com/c/pay/cs_1" {
		t.Fatalf("pay: %d %s", pr.status, pr.body)
	}
	pid := pr.json(t)["payment_id"].(string)
	var total int64
	var currency string
	if err := a.DB.QueryRow("SELECT amount_minor, currency FROM payments WHERE payment_id = ?", pid).Scan(&total, &currency); err != nil {
		t.Fatal(err)
	}
	send := func(typ, key string) apiResp {
		raw, _ := json.Marshal(map[string]any{"id": "evt_1", "object": "event", "type": typ, "created": time.Now().Unix(),
			"data": map[string]any{"object": map[string]any{"id": "pi_1", "object": "payment_intent", "amount_received": total,
				"currency": strings.ToLower(currency), "metadata": map[string]string{"payment_id": pid, "order_no": no}}}})
		sig := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: raw, Secret: key}).Header
		return a.do("POST", "/api/v1/payments/stripe/webhook", "", raw, map[string]string{"Stripe-Signature": sig})
	}
	if r := send("payment_intent.succeeded", "whsec_other"); r.status != 400 {
		t.Fatalf("bad signature: %d %s, want 400", r.status, r.body)
	}
	if st, _ := a.orderStatus(no); st != "pending" {
		t.Fatalf("after a bad signature the order is %s", st)
	}
	for i := range 2 {
		if r := send("payment_intent.succeeded", secret); r.status != 200 || r.json(t)["payment_id"] != pid {
			t.Fatalf("delivery %d: %d %s", i+1, r.status, r.body)
		}
		if st, pays := a.orderStatus(no); st != "paid" || len(pays) != 1 || pays[0] != "approved" {
			t.Fatalf("delivery %d: order %s, payments %v", i+1, st, pays)
		}
	}
	if r := send("charge.updated", secret); r.status != 200 || r.json(t)["ignored"] != true {
		t.Fatalf("another event type: %d %s, want 200 ignored", r.status, r.body)
	}
	no2 := a.orderSeats(buyer, show, a.freeSeats(show, 1))
	if r := a.do("POST", "/api/v1/orders/"+no2+"/pay", buyer, map[string]string{"provider": "demo"}, nil); r.status != 200 ||
		!strings.HasPrefix(r.json(t)["redirect_url"].(string), "/pay/demo/") {
		t.Fatalf("the demo provider by name: %d %s", r.status, r.body)
	}
}
