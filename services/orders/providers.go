package orders

import (
	"context"
	"time"
)

// PaymentProvider is a payment service: Start returns where to send the buyer to pay
// (absolute, or relative to the site); Refund gives back part or all of an approved
// payment's money. Both may be called again for the same payment or refund (a retry):
// a provider that moves real money makes the repeat a no-op (Stripe: an Idempotency-Key
// derived from the payment id or the refund's ID). Errors: the provider's, unchanged.
type PaymentProvider interface {
	Name() string
	Start(ctx context.Context, p *Payment) (redirectURL string, err error)
	Refund(ctx context.Context, p *Payment, r Refund) error
}

// Refund is one refund of a payment: AmountMinor in minor units of the payment's
// currency (1 up to what is left of it), and ID, this refund's stable name: the same on
// every retry of it, another for each refund of one payment (the provider's
// idempotency is keyed on it).
type Refund struct {
	AmountMinor int64
	ID          string
}

// WholeRefund is the refund of all of payment p: its amount, named after the payment
// (a payment is refunded whole at most once).
func WholeRefund(p *Payment) Refund {
	return Refund{AmountMinor: p.AmountMinor, ID: p.PaymentID + "-whole"}
}

// ProviderEvent is a verified webhook event in seatflow's terms. Status is approved or
// declined, or "" for an event that concerns no payment of ours (answered 200 and
// ignored). AmountMinor is in minor units of Currency ("" when the provider does not
// say: the payment's currency is meant). ProviderRef is the provider's own name of the
// money, kept for refunds ("" when it has none).
type ProviderEvent struct {
	PaymentID   string
	Status      string
	AmountMinor int64
	Currency    string
	ProviderRef string
}

// WebhookVerifier is a provider that signs its webhooks its own way; the others use
// the built-in scheme (HMAC-SHA256 of the body in X-Signature, WebhookEvent).
// SignatureHeader names the HTTP header its signature comes in; VerifyWebhook checks
// the raw body against it at now and reads the event. Errors: INVALID_REQUEST or
// UNAUTHENTICATED, as the provider asks to be answered (a bad, missing or stale
// signature; a signed body that is not an event).
type WebhookVerifier interface {
	SignatureHeader() string
	VerifyWebhook(raw []byte, signature string, now time.Time) (ProviderEvent, error)
}

// ResumingProvider is a provider whose started payments are resumed: a Start of an
// order that has a started payment with it for the same amount, younger than
// ResumeWithin, continues that payment (the same payment id, so the same
// Idempotency-Key and the same page at the provider) instead of opening a second one
// the buyer could pay as well.
type ResumingProvider interface {
	ResumeWithin() time.Duration
}

// DefaultSignatureHeader carries the built-in scheme's signature.
const DefaultSignatureHeader = "X-Signature"

// SignatureHeader names the HTTP header the named provider's webhook signature comes
// in (DefaultSignatureHeader for an unknown provider or the built-in scheme).
func (p *Payments) SignatureHeader(provider string) string {
	if v, ok := p.providers[provider].(WebhookVerifier); ok {
		return v.SignatureHeader()
	}
	return DefaultSignatureHeader
}
