// Package stripepay is the Stripe payment provider (orders.PaymentProvider, with its own
// webhook verification, orders.WebhookVerifier) on the official library
// github.com/stripe/stripe-go/v82: Checkout Sessions to pay, the Refund API to refund,
// webhooks verified by the library's webhook package. It keeps no state and no SQL;
// orders.Payments decides what an event does. Imports: the root services and orders.
package stripepay
