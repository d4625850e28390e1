package stripepay

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/webhook"

	"seatflow/services"
	"seatflow/services/orders"
)

// Name is the provider's name: POST /api/v1/payments/stripe/webhook.
const Name = "stripe"

// Metadata keys on the PaymentIntent (and the Checkout Session) naming our payment.
const (
	MetaPaymentID = "payment_id"
	MetaOrderNo   = "order_no"
)

// Config is how to reach Stripe. SecretKey is the API key (sk_...); WebhookSecret the
// endpoint's signing secret (whsec_...); APIBase replaces Stripe's API address (""
// for api.stripe.com; stripe-mock in tests); PublicURL is the site's address the
// buyer comes back to. Timeout bounds one HTTP attempt (0: 10 s); MaxRetries is how
// many times the library retries a failed attempt, with the same Idempotency-Key
// (negative: 0; 0: the library's 2).
type Config struct {
	SecretKey     string
	WebhookSecret string
	APIBase       string
	PublicURL     string
	Timeout       time.Duration
	MaxRetries    int
}

// Provider pays orders with Stripe Checkout Sessions rather than PaymentIntents with
// Stripe.js: Start answers a URL the buyer is sent to (the shape the demo provider's
// page has), Stripe's page takes the card and any 3-D Secure step, and no Stripe.js or
// card field is on our pages. The session's PaymentIntent carries our payment id and
// order number as metadata, so its payment_intent.succeeded and
// payment_intent.payment_failed events name the payment. Every call sends an
// Idempotency-Key derived from the payment id (or the refund's ID): a retried Start
// of the same payment gets the same session back and charges once.
type Provider struct {
	client *stripe.Client
	secret string
	public string
}

// New returns the provider for cfg (cfg.SecretKey and cfg.WebhookSecret set).
func New(cfg Config) *Provider {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	bc := &stripe.BackendConfig{HTTPClient: &http.Client{Timeout: cfg.Timeout},
		LeveledLogger: &stripe.LeveledLogger{Level: stripe.LevelNull}}
	if cfg.MaxRetries != 0 {
		bc.MaxNetworkRetries = stripe.Int64(int64(max(cfg.MaxRetries, 0)))
	}
	if cfg.APIBase != "" {
		bc.URL = stripe.String(strings.TrimRight(cfg.APIBase, "/"))
	}
	backends := stripe.NewBackendsWithConfig(bc)
	return &Provider{client: stripe.NewClient(cfg.SecretKey, stripe.WithBackends(backends)),
		secret: cfg.WebhookSecret, public: strings.TrimRight(cfg.PublicURL, "/")}
}

// Name returns "stripe".
func (*Provider) Name() string { return Name }

// ResumeWithin is 23 hours: Stripe keeps an Idempotency-Key 24 hours, so a started
// payment younger than that is continued, its session returned again.
func (*Provider) ResumeWithin() time.Duration { return 23 * time.Hour }

// SignatureHeader is Stripe's: Stripe-Signature.
func (*Provider) SignatureHeader() string { return "Stripe-Signature" }

// StartKey and RefundKey are the Idempotency-Keys of a payment's Checkout Session and
// of one of its refunds.
func StartKey(p *orders.Payment) string      { return "seatflow-checkout-" + p.PaymentID }
func RefundKey(r orders.Refund) string       { return "seatflow-refund-" + r.ID }
func orderURL(public, orderNo string) string { return public + "/orders/" + orderNo }
func lower(currency string) *string          { return stripe.String(strings.ToLower(currency)) }

// Start creates the payment's Checkout Session: one line of the order's total in its
// currency (Stripe's unit, ToStripe), metadata naming the payment and the order on the
// session and its PaymentIntent, and the order page to come back to. It returns the
// session's URL. Errors: INVALID_REQUEST (an amount Stripe cannot charge), Stripe's
// (*stripe.Error) or the network's.
func (pr *Provider) Start(ctx context.Context, p *orders.Payment) (string, error) {
	amount, err := ToStripe(p.AmountMinor, p.Currency)
	if err != nil {
		return "", err
	}
	meta := map[string]string{MetaPaymentID: p.PaymentID, MetaOrderNo: p.OrderNo}
	back := orderURL(pr.public, p.OrderNo) + "?payment=" + p.PaymentID
	params := &stripe.CheckoutSessionCreateParams{
		Mode:              stripe.String(string(stripe.CheckoutSessionModePayment)),
		ClientReferenceID: stripe.String(p.PaymentID),
		LineItems: []*stripe.CheckoutSessionCreateLineItemParams{{
			Quantity: stripe.Int64(1),
			PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{Currency: lower(p.Currency), UnitAmount: stripe.Int64(amount),
				ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{Name: stripe.String("Order " + p.OrderNo)}},
		}},
		PaymentIntentData: &stripe.CheckoutSessionCreatePaymentIntentDataParams{Metadata: meta},
		Metadata:          meta,
		SuccessURL:        stripe.String(back),
		CancelURL:         stripe.String(back),
	}
	params.SetIdempotencyKey(StartKey(p))
	s, err := pr.client.V1CheckoutSessions.Create(ctx, params)
	if err != nil {
		return "", err
	}
	if s.URL == "" {
		return "", errors.New("stripe: the checkout session has no url")
	}
	return s.URL, nil
}

// Refund refunds r.AmountMinor of p (Stripe's unit, ToStripe) from its PaymentIntent
// (p.ProviderRef, recorded by the approving webhook), with the Idempotency-Key
// RefundKey(r). Errors: a payment without a PaymentIntent, INVALID_REQUEST (an amount
// Stripe cannot refund), Stripe's (*stripe.Error) or the network's.
func (pr *Provider) Refund(ctx context.Context, p *orders.Payment, r orders.Refund) error {
	if p.ProviderRef == "" {
		return errors.New("stripe: payment " + p.PaymentID + " has no PaymentIntent recorded")
	}
	amount, err := ToStripe(r.AmountMinor, p.Currency)
	if err != nil {
		return err
	}
	params := &stripe.RefundCreateParams{PaymentIntent: stripe.String(p.ProviderRef), Amount: stripe.Int64(amount),
		Metadata: map[string]string{MetaPaymentID: p.PaymentID, MetaOrderNo: p.OrderNo, "refund_id": r.ID}}
	params.SetIdempotencyKey(RefundKey(r))
	_, err = pr.client.V1Refunds.Create(ctx, params)
	return err
}

// VerifyWebhook checks a Stripe event's Stripe-Signature against the endpoint secret
// with the library (webhook.ConstructEventWithOptions, its default tolerance of 5
// minutes; an event of another API version than the library's is read all the same,
// as only the PaymentIntent's id, amount_received, currency and metadata are used,
// which every version has) and maps it: payment_intent.succeeded is approved (the
// amount received, in seatflow's minor units), payment_intent.payment_failed declined,
// and any other event, or a PaymentIntent without our payment id, is ignored (Status
// ""). now is unused: the library reads the clock itself. Errors: INVALID_REQUEST (400,
// as Stripe asks of an endpoint: a bad, missing or stale signature, or a signed body
// that is not an event).
func (pr *Provider) VerifyWebhook(raw []byte, signature string, _ time.Time) (orders.ProviderEvent, error) {
	ev, err := webhook.ConstructEventWithOptions(raw, signature, pr.secret, webhook.ConstructEventOptions{
		Tolerance: webhook.DefaultTolerance, IgnoreAPIVersionMismatch: true})
	if err != nil {
		if errors.Is(err, webhook.ErrInvalidHeader) || errors.Is(err, webhook.ErrNoValidSignature) ||
			errors.Is(err, webhook.ErrNotSigned) || errors.Is(err, webhook.ErrTooOld) {
			return orders.ProviderEvent{}, services.Errorf(services.CodeInvalidRequest, "bad Stripe-Signature: %v", err)
		}
		return orders.ProviderEvent{}, services.Errorf(services.CodeInvalidRequest, "webhook body is not a Stripe event")
	}
	var status string
	switch ev.Type {
	case stripe.EventTypePaymentIntentSucceeded:
		status = "approved"
	case stripe.EventTypePaymentIntentPaymentFailed:
		status = "declined"
	default:
		return orders.ProviderEvent{}, nil
	}
	var pi stripe.PaymentIntent
	if ev.Data == nil || json.Unmarshal(ev.Data.Raw, &pi) != nil {
		return orders.ProviderEvent{}, services.Errorf(services.CodeInvalidRequest, "the event holds no PaymentIntent")
	}
	out := orders.ProviderEvent{PaymentID: pi.Metadata[MetaPaymentID], Status: status,
		Currency: strings.ToUpper(string(pi.Currency)), ProviderRef: pi.ID}
	if out.PaymentID == "" {
		return orders.ProviderEvent{}, nil // a PaymentIntent made by something else on the account
	}
	if status == "approved" {
		var ok bool
		if out.AmountMinor, ok = FromStripe(pi.AmountReceived, string(pi.Currency)); !ok {
			return orders.ProviderEvent{}, services.Errorf(services.CodeInvalidRequest, "amount %d %s is not a whole minor unit", pi.AmountReceived, pi.Currency)
		}
	}
	return out, nil
}
