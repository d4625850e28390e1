package orders

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"seatflow/services"
)

// FuzzWebhookSignature: for any body and any signature text, the check accepts exactly
// the hex MAC of that body (either case) and nothing else: no panic, no prefix, no
// other encoding, no signature of a different body.
func FuzzWebhookSignature(f *testing.F) {
	p := &Payments{secret: []byte("fuzz-secret")}
	f.Add([]byte(`{"payment_id":"pay_1","status":"approved","amount_minor":9000,"sent_at":"2026-11-30T10:00:00Z"}`), "")
	f.Add([]byte(`{}`), "00")
	f.Add([]byte(""), strings.Repeat("a", 64))
	f.Add([]byte("x"), "zz")
	f.Fuzz(func(t *testing.T, body []byte, sig string) {
		good := p.Sign(body)
		if !p.signedBy(body, good) || !p.signedBy(body, strings.ToUpper(good)) {
			t.Fatal("the body's own signature is refused")
		}
		want := false
		if b, err := hex.DecodeString(sig); err == nil {
			want = bytes.Equal(b, p.mac(body))
		}
		if got := p.signedBy(body, sig); got != want {
			t.Fatalf("signedBy(%q, %q) = %v, want %v", body, sig, got, want)
		}
		if len(good) > 1 && p.signedBy(body, good[:len(good)-2]) {
			t.Fatal("a truncated signature is accepted")
		}
		if p.signedBy(append(append([]byte{}, body...), ' '), good) {
			t.Fatal("the signature of another body is accepted")
		}
	})
}

// FuzzWebhookEvent: any signed body either parses into an event with a payment id and
// a sent_at inside the freshness window, or is refused with INVALID_REQUEST or
// UNAUTHENTICATED; nothing else, and never a panic.
func FuzzWebhookEvent(f *testing.F) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	f.Add([]byte(`{"payment_id":"pay_1","status":"approved","amount_minor":9000,"sent_at":"2026-11-30T10:00:00Z"}`))
	f.Add([]byte(`{"payment_id":"pay_1","status":"approved","amount_minor":9000,"sent_at":"2026-11-30T09:54:59Z"}`))
	f.Add([]byte(`{"payment_id":"pay_1","sent_at":"2026-11-30T10:01:01+00:00"}`))
	f.Add([]byte(`{"payment_id":"","sent_at":"2026-11-30T10:00:00Z"}`))
	f.Add([]byte(`[1]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		ev, err := parseWebhookEvent(raw, now)
		if err != nil {
			if c := services.ErrorCode(err); c != services.CodeInvalidRequest && c != services.CodeUnauthenticated {
				t.Fatalf("refused with %s", c)
			}
			return
		}
		sent, perr := time.Parse(time.RFC3339, ev.SentAt)
		if ev.PaymentID == "" || perr != nil || sent.Before(now.Add(-WebhookMaxAge)) || sent.After(now.Add(WebhookMaxSkew)) {
			t.Fatalf("accepted %q as %+v", raw, ev)
		}
	})
}
