package orders

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/mail"
	"seatflow/services/store"
)

// Payment is one attempt to pay an order with a provider (store.Payment). AmountMinor
// is in minor units of Currency; Status is started, approved, declined or refunded.
type Payment = store.Payment

// WebhookEvent is the body a provider posts to /api/v1/payments/{provider}/webhook,
// signed with HMAC-SHA256 (hex) in the X-Signature header. Status is approved or
// declined; AmountMinor must match the payment. SentAt (RFC 3339, UTC) is when the
// provider signed the event: an event outside WebhookMaxAge / WebhookMaxSkew of now is
// refused, so a captured event cannot be replayed later.
type WebhookEvent struct {
	PaymentID   string `json:"payment_id"`
	Status      string `json:"status"`
	AmountMinor int64  `json:"amount_minor"`
	SentAt      string `json:"sent_at"`
}

// WebhookMaxAge is how old a webhook event's sent_at may be; WebhookMaxSkew is how far
// in the future it may be (clock drift between the provider and us).
const (
	WebhookMaxAge  = 5 * time.Minute
	WebhookMaxSkew = time.Minute
)

// Payments starts payments of orders and applies provider webhooks.
type Payments struct {
	db        *sqlx.DB
	orders    *Orders
	clock     services.Clock
	providers map[string]PaymentProvider
	order     []string // provider names as registered; the first is the default
	secret    []byte
	log       *slog.Logger
}

// NewPayments returns the payment service; secret signs and checks webhooks. Only the
// providers given are offered (the first is the default); with none, paying answers
// UNAVAILABLE.
func NewPayments(db *sqlx.DB, orders *Orders, clock services.Clock, secret []byte, providers ...PaymentProvider) *Payments {
	p := &Payments{db: db, orders: orders, clock: clock, secret: secret, providers: map[string]PaymentProvider{}, log: orders.log}
	for _, pr := range providers {
		if _, dup := p.providers[pr.Name()]; !dup {
			p.order = append(p.order, pr.Name())
		}
		p.providers[pr.Name()] = pr
	}
	return p
}

// provider returns the named provider, or the default one for "". Errors: UNAVAILABLE
// when no provider is configured, INVALID_REQUEST for an unknown name.
func (p *Payments) provider(name string) (PaymentProvider, error) {
	if len(p.order) == 0 {
		return nil, services.Errorf(services.CodeUnavailable, "no payment provider is configured")
	}
	if name == "" {
		name = p.order[0]
	}
	pr, ok := p.providers[name]
	if !ok {
		return nil, services.Errorf(services.CodeInvalidRequest, "unknown payment provider %q", name)
	}
	return pr, nil
}

// Sign returns the hex HMAC-SHA256 of body with the webhook secret.
func (p *Payments) Sign(body []byte) string {
	return hex.EncodeToString(p.mac(body))
}

func (p *Payments) mac(body []byte) []byte {
	m := hmac.New(sha256.New, p.secret)
	m.Write(body)
	return m.Sum(nil)
}

// signedBy reports whether signature (hex, either case) is the body's MAC, compared in
// constant time on the raw bytes; a signature that is not hex is not.
func (p *Payments) signedBy(body []byte, signature string) bool {
	got, err := hex.DecodeString(signature)
	return err == nil && hmac.Equal(got, p.mac(body))
}

// Start begins paying the user's pending order with the named provider ("" for the
// default one) and returns the payment and the URL to send the buyer to. A pending
// order past its deadline is expired on the spot. An order whose total is 0 (a voucher
// took everything off) is paid at once without a provider (PayFree): the payment is
// nil and the URL the order's page. Errors: NOT_FOUND, ORDER_STATE (also
// for an order of a cancelled show), INVALID_REQUEST (unknown provider, or an amount the provider cannot charge), UNAVAILABLE
// (also when no provider is configured, for an order that costs something).
func (p *Payments) Start(ctx context.Context, userID int64, orderNo, provider string) (*Payment, string, error) {
	pr, err := p.provider(provider)
	if err != nil && services.ErrorCode(err) != services.CodeUnavailable {
		return nil, "", err
	}
	order, err2 := p.orders.Get(ctx, userID, orderNo)
	if err2 != nil {
		return nil, "", err2
	}
	if order.Status != services.OrderPending {
		return nil, "", services.Errorf(services.CodeOrderState, "the order is %s and cannot be paid", order.Status)
	}
	if order.TotalMinor == 0 {
		if err := p.PayFree(ctx, order); err != nil {
			return nil, "", err
		}
		return nil, "/orders/" + order.OrderNo, nil
	}
	if err != nil {
		return nil, "", err // no provider is configured
	}
	show, err := p.orders.catalog.Show(ctx, order.ShowID) // read afresh: a cancel is final at once
	if err != nil {
		return nil, "", err
	}
	if show.Status == services.ShowCancelled {
		return nil, "", services.Errorf(services.CodeOrderState, "the show was cancelled; the order cannot be paid")
	}
	pay, err := p.startPayment(ctx, pr, order)
	if err != nil {
		return nil, "", err
	}
	url, err := pr.Start(ctx, pay)
	if services.ErrorCode(err) != "" {
		return nil, "", err // the provider's refusal (an amount it cannot charge)
	}
	if err != nil {
		return nil, "", store.Unavailable("the payment provider", err)
	}
	return pay, url, nil
}

// PayFree pays a pending order whose total is 0 at once, without a provider and without
// a payment (nothing was charged: captured and refunded stay 0, the sum of its paid
// seats): the transition to paid in one transaction with its order_paid e-mail, then
// its seats sold in Redis. Errors: ORDER_STATE (the total is not 0, the order is no
// longer pending or past its deadline, the show was cancelled), UNAVAILABLE.
func (p *Payments) PayFree(ctx context.Context, order *services.Order) error {
	if order.TotalMinor != 0 {
		return services.Errorf(services.CodeOrderState, "the order costs %d and must be paid with a provider", order.TotalMinor)
	}
	show, err := p.orders.catalog.Show(ctx, order.ShowID) // read afresh: a cancel is final at once
	if err != nil {
		return err
	}
	if show.Status == services.ShowCancelled {
		return services.Errorf(services.CodeOrderState, "the show was cancelled; the order cannot be paid")
	}
	now := p.clock.Now()
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), store.DBTimeout)
	defer cancel()
	var paid bool
	err = store.InTx(tctx, p.db, func(tx *sqlx.Tx) error {
		pending := &services.Order{ID: order.ID, OrderNo: order.OrderNo, UserID: order.UserID, ShowID: order.ShowID, Status: services.OrderPending}
		var err error
		paid, err = p.orders.Transition(tctx, tx, pending, Change{To: services.OrderPaid, At: now, PaidAfter: now,
			Mail: &mail.Message{Kind: mail.OrderPaid}})
		return err
	})
	if err != nil {
		if services.ErrorCode(err) != "" {
			return err
		}
		return store.Unavailable("the database", err)
	}
	if !paid {
		return services.Errorf(services.CodeOrderState, "the order is no longer pending and cannot be paid")
	}
	sold, err := p.orders.orderByID(ctx, order.ID)
	if err != nil {
		return err
	}
	p.orders.sold(ctx, sold)
	return nil
}

// startPayment inserts a started payment of order with provider pr, or returns the one
// to resume (ResumingProvider). Errors: UNAVAILABLE.
func (p *Payments) startPayment(ctx context.Context, pr PaymentProvider, order *services.Order) (*Payment, error) {
	now := p.clock.Now()
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	if r, ok := pr.(ResumingProvider); ok {
		pay, err := store.LatestStartedPayment(ctx, p.db, order.ID, pr.Name(), order.TotalMinor, now.Add(-r.ResumeWithin()))
		if err == nil {
			return pay, nil
		}
		if !store.IsNoRows(err) {
			return nil, store.Unavailable("the database", err)
		}
	}
	pay := &Payment{PaymentID: newPaymentID(), OrderID: order.ID, Provider: pr.Name(), AmountMinor: order.TotalMinor,
		Currency: order.Currency, Status: "started", CreatedAt: now, OrderNo: order.OrderNo}
	var err error
	if pay.ID, err = store.InsertPayment(ctx, p.db, pay, now); err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return pay, nil
}

func newPaymentID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "pay_" + hex.EncodeToString(b)
}

// Payment returns a payment with its order number. Errors: NOT_FOUND, UNAVAILABLE.
func (p *Payments) Payment(ctx context.Context, paymentID string) (*Payment, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	pay, err := store.PaymentByPaymentID(ctx, p.db, paymentID)
	if store.IsNoRows(err) {
		return nil, services.Errorf(services.CodeNotFound, "payment not found")
	}
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return pay, nil
}

// HandleWebhook applies a provider's signed event (raw body, and the signature from
// the provider's SignatureHeader: the built-in HMAC scheme, or the provider's own
// WebhookVerifier). It is idempotent: an event for a payment already decided changes
// nothing. An approval of a pending order marks it paid (one conditional update,
// invariant 5), draws its ticket code and queues the ticket e-mail in that transaction,
// then marks its seats sold; an approval that arrives after the order was cancelled or
// expired (or paid by another payment) is recorded and refunded, and the seats are not
// taken back from anyone. A replay of a signed event inside the freshness window
// therefore changes nothing, and one outside it is refused. An event that concerns no
// payment of ours returns a nil payment and no error, and so does a provider's own
// signed event (WebhookVerifier) naming a payment unknown here.
// Errors: UNAUTHENTICATED (bad signature, stale or future sent_at), INVALID_REQUEST
// (also an amount or currency that does not match the payment), NOT_FOUND, UNAVAILABLE.
func (p *Payments) HandleWebhook(ctx context.Context, provider string, raw []byte, signature string) (*Payment, error) {
	pr, ok := p.providers[provider]
	if !ok {
		return nil, services.Errorf(services.CodeNotFound, "unknown payment provider %q", provider)
	}
	ev, err := p.verify(pr, raw, signature)
	if err != nil || ev.Status == "" {
		return nil, err
	}
	pay, err := p.Payment(ctx, ev.PaymentID)
	if err == nil && pay.Provider != provider {
		err = services.Errorf(services.CodeNotFound, "payment not found")
	}
	if err != nil {
		if _, own := pr.(WebhookVerifier); own && services.ErrorCode(err) == services.CodeNotFound {
			// a provider account may serve other installs (a staging copy, a restored
			// database): its signed event for a payment that is not ours is acknowledged,
			// since an error answer is retried for days and gets the endpoint disabled
			p.log.Warn("signed webhook for a payment unknown here; ignored", "provider", provider, "payment_id", ev.PaymentID)
			return nil, nil
		}
		return nil, err
	}
	switch ev.Status {
	case "declined":
		return pay, p.setStatus(ctx, pay, "started", "declined")
	case "approved":
	default:
		return nil, services.Errorf(services.CodeInvalidRequest, "unknown payment status %q", ev.Status)
	}
	if ev.AmountMinor != pay.AmountMinor || (ev.Currency != "" && !strings.EqualFold(ev.Currency, pay.Currency)) {
		return nil, services.Errorf(services.CodeInvalidRequest, "amount %d %s does not match the payment's %d %s",
			ev.AmountMinor, ev.Currency, pay.AmountMinor, pay.Currency)
	}
	if ev.ProviderRef != "" {
		pay.ProviderRef = ev.ProviderRef
	}
	return pay, p.approve(ctx, pr, pay)
}

// verify checks a webhook's signature with the provider's own scheme, or the built-in
// one, and reads its event. Errors: as HandleWebhook's.
func (p *Payments) verify(pr PaymentProvider, raw []byte, signature string) (ProviderEvent, error) {
	if v, ok := pr.(WebhookVerifier); ok {
		return v.VerifyWebhook(raw, signature, p.clock.Now())
	}
	if !p.signedBy(raw, signature) {
		return ProviderEvent{}, services.Errorf(services.CodeUnauthenticated, "bad webhook signature")
	}
	ev, err := parseWebhookEvent(raw, p.clock.Now())
	if err != nil {
		return ProviderEvent{}, err
	}
	return ProviderEvent{PaymentID: ev.PaymentID, Status: ev.Status, AmountMinor: ev.AmountMinor}, nil
}

// parseWebhookEvent reads a signed webhook body: a payment event with a payment id and
// a sent_at (RFC 3339) no older than WebhookMaxAge and no further ahead than
// WebhookMaxSkew of now. Errors: INVALID_REQUEST (not a payment event),
// UNAUTHENTICATED (stale or future sent_at).
func parseWebhookEvent(raw []byte, now time.Time) (WebhookEvent, error) {
	var ev WebhookEvent
	if err := json.Unmarshal(raw, &ev); err != nil || ev.PaymentID == "" {
		return ev, services.Errorf(services.CodeInvalidRequest, "webhook body is not a payment event")
	}
	sent, err := time.Parse(time.RFC3339, ev.SentAt)
	if err != nil || sent.Before(now.Add(-WebhookMaxAge)) || sent.After(now.Add(WebhookMaxSkew)) {
		return ev, services.Errorf(services.CodeUnauthenticated, "stale webhook")
	}
	return ev, nil
}

func (p *Payments) setStatus(ctx context.Context, pay *Payment, from, to string) error {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	if err := store.SetPaymentStatus(ctx, p.db, pay.ID, from, to, p.clock.Now()); err != nil {
		return store.Unavailable("the database", err)
	}
	return nil
}

// approve records an approved payment and pays its order, or refunds it when the order
// is no longer pending or its show was cancelled (invariant 10). Paying draws the
// ticket code in the same transaction (Transition), before queuePaymentMail freezes the
// ticket e-mail's facts, so the e-mail carries the code the ticket page shows.
func (p *Payments) approve(ctx context.Context, pr PaymentProvider, pay *Payment) error {
	now := p.clock.Now()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), store.DBTimeout)
	defer cancel()
	var decided, paid bool
	err := store.InTx(ctx, p.db, func(tx *sqlx.Tx) error {
		approved, err := store.ApprovePayment(ctx, tx, pay.ID, now)
		if err != nil {
			return err
		}
		if !approved {
			decided = true // decided before: a repeated webhook
			return nil
		}
		if pay.ProviderRef != "" { // what a refund names at the provider
			if err = store.SetPaymentProviderRef(ctx, tx, pay.ID, pay.ProviderRef); err != nil {
				return err
			}
		}
		decided = false
		// the join reads the show with a lock: a show cancelled before this commits is
		// seen, and one cancelled after finds the order paid and refunds it
		// the approval pays only a pending order: the status is the update's guard, the
		// order is not read first
		pending := &services.Order{ID: pay.OrderID, OrderNo: pay.OrderNo, Status: services.OrderPending}
		if paid, err = p.orders.Transition(ctx, tx, pending, Change{To: services.OrderPaid, At: now,
			PaidAfter: now.Add(-PaymentGrace)}); err != nil {
			return err
		}
		if !paid {
			if err = store.RefundPayment(ctx, tx, pay.ID, now); err != nil {
				return err
			}
		}
		return queuePaymentMail(ctx, tx, now, pay, paid)
	})
	if err != nil {
		return store.Unavailable("the database", err)
	}
	if decided {
		return nil
	}
	if !paid {
		if _, err := p.orders.Expire(ctx, pay.OrderNo); err != nil { // pending past the grace: end it now
			p.log.Warn("order past its deadline not expired yet", "order_no", pay.OrderNo, "err", err)
		}
		p.orders.metrics.PaymentsLate.Inc()
		p.log.Warn("payment arrived after its order ended; refunded", "payment_id", pay.PaymentID, "order_no", pay.OrderNo)
		if err := pr.Refund(ctx, pay, WholeRefund(pay)); err != nil {
			p.log.Error("refund failed at the provider", "payment_id", pay.PaymentID, "err", err)
		}
		return nil
	}
	order, err := p.orders.orderByID(ctx, pay.OrderID)
	if err != nil {
		return err
	}
	p.orders.sold(ctx, order)
	return nil
}

// queuePaymentMail queues, in the approval's transaction, the buyer's e-mail of it: order_paid
// when this approval paid the order, else order_refunded (one per payment: its key names
// the payment) with reason late_payment (the order had ended or its show was cancelled)
// or already_paid (another payment had paid it). Invariant 16. Errors: the database's.
func queuePaymentMail(ctx context.Context, tx *sqlx.Tx, now time.Time, pay *Payment, paid bool) error {
	o, err := store.OrderBuyerAndStatus(ctx, tx, pay.OrderID)
	if err != nil {
		return err
	}
	m := mail.Message{Kind: mail.OrderPaid, UserID: o.UserID, OrderNo: pay.OrderNo, ShowID: o.ShowID}
	if !paid {
		reason := mail.ReasonLatePayment
		if o.Status == services.OrderPaid {
			reason = mail.ReasonAlreadyPaid
		}
		m.Kind, m.Key = mail.OrderRefunded, string(mail.OrderRefunded)+":"+pay.PaymentID
		m.Data = map[string]string{mail.DataReason: reason}
	}
	return mail.Queue(ctx, tx, now, m)
}

// PaymentGrace is how long after an order's deadline an approval that the buyer started
// in time is still accepted, as long as the order has not expired yet (its seats are
// still held by it). Later approvals are refunded.
const PaymentGrace = 2 * time.Minute

// DemoProvider is the built-in payment provider: its page (/pay/demo/{payment_id})
// lets the buyer approve or decline, and approving sends the signed webhook.
type DemoProvider struct{}

// Name returns "demo".
func (DemoProvider) Name() string { return "demo" }

// Start returns the demo page of the payment (a relative URL).
func (DemoProvider) Start(_ context.Context, p *Payment) (string, error) {
	return "/pay/demo/" + p.PaymentID, nil
}

// Refund does nothing: no real money moved.
func (DemoProvider) Refund(context.Context, *Payment, Refund) error { return nil }

// DemoDecide is what the demo provider's page does when the buyer approves (approve
// true) or declines: it builds the provider's event, signs it and delivers it through
// HandleWebhook exactly as the HTTP webhook endpoint would. Without the demo provider
// (or for another provider's payment) it is NOT_FOUND.
func (p *Payments) DemoDecide(ctx context.Context, paymentID string, approve bool) (*Payment, error) {
	pay, err := p.Payment(ctx, paymentID)
	if err != nil {
		return nil, err
	}
	if _, ok := p.providers[DemoProvider{}.Name()]; !ok || pay.Provider != (DemoProvider{}).Name() {
		return nil, services.Errorf(services.CodeNotFound, "payment not found")
	}
	ev := WebhookEvent{PaymentID: pay.PaymentID, Status: "declined", AmountMinor: pay.AmountMinor,
		SentAt: p.clock.Now().UTC().Format(time.RFC3339)}
	if approve {
		ev.Status = "approved"
	}
	body, _ := json.Marshal(ev)
	return p.HandleWebhook(ctx, "demo", body, p.Sign(body))
}

// ProviderNamed returns the registered payment provider of that name, or false; the
// box office's (BoxOfficeProvider) is always known, and never offered to buyers.
func (p *Payments) ProviderNamed(name string) (PaymentProvider, bool) {
	if name == BoxOfficeProvider {
		return counterProvider{}, true
	}
	pr, ok := p.providers[name]
	return pr, ok
}

// counterProvider is the box office as a payment provider: its money changed hands at
// the counter, so it starts nothing, and a refund is given back there (the shift's
// cash-up counts it from the refunds table).
type counterProvider struct{}

func (counterProvider) Name() string { return BoxOfficeProvider }

func (counterProvider) Start(context.Context, *Payment) (string, error) {
	return "", services.Errorf(services.CodeInvalidRequest, "counter sales are paid at the counter")
}

func (counterProvider) Refund(context.Context, *Payment, Refund) error { return nil }

// SetLogger replaces the logger of the payments service (tests quieten or capture it).
func (p *Payments) SetLogger(l *slog.Logger) { p.log = l }
