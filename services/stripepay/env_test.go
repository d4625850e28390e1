package stripepay_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v82/webhook"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
	"seatflow/services/stripepay"
)

// The tests reach stripe-mock (SEATFLOW_TEST_STRIPE_MOCK, host:port of its HTTP side;
// make test starts one with .ci/stripe-mock) through a recording proxy. stripe-mock
// keeps no state and answers fixtures: it proves the requests are ones Stripe takes
// (paths, parameter names and types) and that the library parses its answers; what
// the requests carry (amounts, metadata, Idempotency-Keys) is read from the proxy's
// record, and the business rules from MySQL.

const webhookSecret = "whsec_test_seatflow"

// call is one request the proxy passed on: its path, Idempotency-Key and form.
type call struct {
	Path, Key string
	Form      url.Values
}

// recorder is an HTTP server in front of an API base that records every request.
type recorder struct {
	mu    sync.Mutex
	calls []call
	srv   *httptest.Server
}

func (r *recorder) record(req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	req.Body = io.NopCloser(strings.NewReader(string(body)))
	form, _ := url.ParseQuery(string(body))
	r.mu.Lock()
	r.calls = append(r.calls, call{Path: req.URL.Path, Key: req.Header.Get("Idempotency-Key"), Form: form})
	r.mu.Unlock()
}

// Calls returns the requests so far to path.
func (r *recorder) Calls(path string) []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []call
	for _, c := range r.calls {
		if c.Path == path {
			out = append(out, c)
		}
	}
	return out
}

// newRecorder proxies to next (a handler that answers itself when target is "").
func newRecorder(t *testing.T, target string, next http.Handler) *recorder {
	r := &recorder{}
	if target != "" {
		u, _ := url.Parse(target)
		next = httputil.NewSingleHostReverseProxy(u)
	}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.record(req)
		next.ServeHTTP(w, req)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// stripeMock is stripe-mock's address as a URL, or the test is skipped.
func stripeMock(t *testing.T) string {
	addr := os.Getenv("SEATFLOW_TEST_STRIPE_MOCK")
	if addr == "" {
		t.Skip("SEATFLOW_TEST_STRIPE_MOCK is not set: start stripe-mock (bash .ci/stripe-mock start DIR prints its address; make test does this) and set it to host:port")
	}
	if !strings.Contains(addr, "://") {
		addr = "http://" + addr
	}
	return addr
}

// stripeEnv is a test environment whose payments have the Stripe provider (the
// default) and the demo one, Stripe's API at base through a recorder.
type stripeEnv struct {
	*testenv.TestEnv
	Pay  *orders.Payments
	API  *recorder
	Prov *stripepay.Provider
}

func newStripeEnv(t *testing.T, api *recorder, cfg stripepay.Config) *stripeEnv {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	cfg.SecretKey, cfg.WebhookSecret, cfg.APIBase, cfg.PublicURL = "sk_test_123", webhookSecret, api.srv.URL, "http://127.0.0.1:8080"
	pr := stripepay.New(cfg)
	return &stripeEnv{TestEnv: e, API: api, Prov: pr,
		Pay: orders.NewPayments(e.DB, e.Orders, e.Clock, []byte("test-secret"), pr, orders.DemoProvider{})}
}

// order creates a pending order of one seat for user 1.
func (e *stripeEnv) order(label string) *services.Order {
	e.T.Helper()
	o, err := e.Create(e.User(1), e.SeatIDs(label)...)
	if err != nil {
		e.T.Fatal(err)
	}
	return o
}

// start begins paying o with Stripe (the default provider).
func (e *stripeEnv) start(o *services.Order) (*orders.Payment, string) {
	e.T.Helper()
	p, u, err := e.Pay.Start(context.Background(), o.UserID, o.OrderNo, "")
	if err != nil {
		e.T.Fatal(err)
	}
	return p, u
}

// event is a Stripe event of type typ about PaymentIntent pi of payment p (its
// metadata naming p), received amount in Stripe's unit, signed now with secret.
func event(t *testing.T, typ, pi string, p *orders.Payment, amount int64, secret string) ([]byte, string) {
	t.Helper()
	obj := map[string]any{"id": pi, "object": "payment_intent", "amount": amount, "amount_received": amount,
		"currency": strings.ToLower(p.Currency), "status": "succeeded",
		"metadata": map[string]string{stripepay.MetaPaymentID: p.PaymentID, stripepay.MetaOrderNo: p.OrderNo}}
	if typ == "payment_intent.payment_failed" {
		obj["amount_received"], obj["status"] = 0, "requires_payment_method"
	}
	raw, err := json.Marshal(map[string]any{"id": "evt_" + pi, "object": "event", "type": typ, "api_version": "2025-06-30.basil",
		"created": time.Now().Unix(), "data": map[string]any{"object": obj}})
	if err != nil {
		t.Fatal(err)
	}
	signed := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: raw, Secret: secret})
	return raw, signed.Header
}

// statuses reads the order's and the payment's status and the payment's provider_ref.
func (e *stripeEnv) statuses(o *services.Order, p *orders.Payment) (order, pay, ref string) {
	e.T.Helper()
	if err := e.DB.Get(&order, "SELECT status FROM orders WHERE id = ?", o.ID); err != nil {
		e.T.Fatal(err)
	}
	row := e.DB.QueryRowx("SELECT status, provider_ref FROM payments WHERE payment_id = ?", p.PaymentID)
	if err := row.Scan(&pay, &ref); err != nil {
		e.T.Fatal(err)
	}
	return order, pay, ref
}
