package mail

import (
	"context"
	"encoding/json"
	"time"

	"seatflow/services/store"
)

// Kind names what an e-mail tells of.
type Kind = store.MailKind

// The e-mails seatflow sends (DESIGN.md "E-mail"). Every committed order event queues
// exactly one, in its own transaction (invariant 16); reasons.go lists Data's codes.
const (
	OrderCreated   Kind = "order_created"   // a pending order: seats held, pay by the deadline
	OrderPaid      Kind = "order_paid"      // paid: the ticket, with its QR code
	OrderCancelled Kind = "order_cancelled" // cancelled by the buyer or by staff
	OrderExpired   Kind = "order_expired"   // the payment deadline passed
	OrderRefunded  Kind = "order_refunded"  // a paid order refunded by staff (or by its buyer, where the show allows it)
	// OrderPartRefunded: some seats of a paid order were refunded; the order stays paid.
	// Its Key names the refund (one e-mail per refund, not per order).
	OrderPartRefunded Kind = "order_part_refunded"
	ShowCancelled     Kind = "show_cancelled"  // the show was cancelled; the order ended with it
	WaitlistOffer     Kind = "waitlist_offer"  // a waiting-list place became a held order
	OrderExchanged    Kind = "order_exchanged" // the buyer moved the order to other seats (a paid one: new tickets)
	PasswordReset     Kind = "password_reset"  // a single-use link to choose a new password
)

// Message is one e-mail to queue: who receives it (the user's address and language are
// read from users when it is queued), what it tells of, and the order or show it is
// about. Data holds the kind's own values (a reset link, a cancel reason), stored as
// JSON. Key makes the event written twice one e-mail; empty means kind:order_no (or
// kind:show_id:user_id without an order). Facts, when set, are the facts the caller's
// transaction has just written (a batch of created orders knows its orders, seats and
// show): Queue stores them as they are and reads none.
type Message struct {
	Kind    Kind
	UserID  int64
	OrderNo string
	ShowID  int64
	Data    map[string]string
	Key     string
	Facts   *Facts
	// To and Lang send it to this address in this language (en, zh-Hans) instead of
	// the user's: a counter sale's tickets to a walk-in (UserID 0) who gave an address;
	// or the user's own as the caller already read them (an order's e-mail, from the
	// buyer's session), so that no users row is read. A message with neither a user nor
	// To is not queued.
	To   string
	Lang string
}

// key returns the message's dedupe key.
func (m Message) key() string {
	if m.Key != "" {
		return m.Key
	}
	if m.OrderNo != "" {
		return string(m.Kind) + ":" + m.OrderNo
	}
	return string(m.Kind) + ":" + itoa(m.ShowID) + ":" + itoa(m.UserID)
}

// Queue writes ms to the outbox inside tx, the transaction that records the event they
// tell of: the e-mails exist exactly when the event committed. Each row copies the
// user's e-mail address and language, stores the facts it will be written from (the
// order and show as tx sees them, after the event's own writes: Facts), and draws the
// random part of its Message-ID; a message whose key is already queued is skipped.
// Delivery (Deliverer) reads the outbox after the commit. It runs at most three
// statements whatever len(ms), and one when every message carries its Facts. Errors are the database's, for the caller's transaction
// to roll back on.
func Queue(ctx context.Context, tx store.Querier, now time.Time, ms ...Message) error {
	if len(ms) == 0 {
		return nil
	}
	facts, err := gatherFacts(ctx, tx, ms)
	if err != nil {
		return err
	}
	rows := make([]store.MailQueued, 0, len(ms))
	for i, m := range ms {
		var data any
		if len(m.Data) > 0 {
			b, err := json.Marshal(m.Data)
			if err != nil {
				return err
			}
			data = string(b)
		}
		f, err := encodeFacts(facts[i])
		if err != nil {
			return err
		}
		key, err := newMessageKey()
		if err != nil {
			return err
		}
		rows = append(rows, store.MailQueued{
			Kind: string(m.Kind), DedupeKey: m.key(), UserID: m.UserID,
			OrderNo: nullString(m.OrderNo), ShowID: nullInt(m.ShowID), Data: data, Facts: f, MessageKey: key, At: now.UTC(),
			To: nullString(m.To), Lang: nullString(m.Lang),
		})
	}
	return store.QueueMail(ctx, tx, rows)
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullInt(n int64) any {
	if n == 0 {
		return nil
	}
	return n
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
