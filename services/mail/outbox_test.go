package mail_test

import (
	"context"
	"testing"

	"seatflow/services/internal/testenv"
	"seatflow/services/mail"
)

// TestQueue_OneRowPerEventInTheEventsTransaction: queued messages copy the user's address
// and language, an event queued twice is one e-mail, and a rolled-back transaction
// leaves none.
func TestQueue_OneRowPerEventInTheEventsTransaction(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	u := e.User(1)
	if _, err := e.DB.Exec("UPDATE users SET lang = 'zh' WHERE id = ?", u); err != nil {
		t.Fatal(err)
	}
	tx := e.DB.MustBegin()
	m := mail.Message{Kind: mail.OrderCreated, UserID: u, OrderNo: "0ABC", ShowID: 3}
	if err := mail.Queue(ctx, tx, e.Clock.Now(), m, mail.Message{Kind: mail.PasswordReset, UserID: u, Data: map[string]string{"token": "t"}, Key: "reset:1"}); err != nil {
		t.Fatal(err)
	}
	if err := mail.Queue(ctx, tx, e.Clock.Now(), m); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx = e.DB.MustBegin()
	if err := mail.Queue(ctx, tx, e.Clock.Now(), mail.Message{Kind: mail.OrderPaid, UserID: u, OrderNo: "0ABC"}); err != nil {
		t.Fatal(err)
	}
	_ = tx.Rollback()
	var rows []struct {
		Kind, Lang, To, Key string
		Data                *string
	}
	if err := e.DB.Select(&rows, "SELECT kind AS kind, lang AS lang, to_addr AS `to`, dedupe_key AS `key`, data AS data FROM mail_outbox ORDER BY id"); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Kind != "order_created" || rows[0].Lang != "zh" || rows[0].To == "" || rows[0].Key != "order_created:0ABC" ||
		rows[1].Key != "reset:1" || rows[1].Data == nil || *rows[1].Data != `{"token":"t"}` {
		t.Fatalf("outbox rows: %+v", rows)
	}
}

// TestQueue_KnownRecipientAndFacts: messages that carry their facts and recipient (a
// batch of created orders knows them) are stored with exactly those, an event queued
// twice is still one e-mail, and a message without a recipient among them sends the
// whole call through the read of users (its address and language copied from there).
func TestQueue_KnownRecipientAndFacts(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	u := e.User(1)
	var addr string
	if err := e.DB.Get(&addr, "SELECT email FROM users WHERE id = ?", u); err != nil {
		t.Fatal(err)
	}
	facts := &mail.Facts{Order: &mail.OrderFacts{No: "K1", ShowID: 3, Status: "pending", TotalMinor: 1200, Currency: "CNY"}}
	for _, tc := range []struct {
		name     string
		no       string
		to       *mail.Recipient
		wantTo   string
		wantLang string
	}{
		{"recipient given", "K1", &mail.Recipient{Addr: "given@example.com", Lang: "zh"}, "given@example.com", "zh"},
		{"recipient read", "K2", nil, addr, "en"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := mail.Message{Kind: mail.OrderCreated, UserID: u, OrderNo: tc.no, ShowID: 3, Facts: facts, To: tc.to}
			for range 2 {
				tx := e.DB.MustBegin()
				if err := mail.Queue(ctx, tx, e.Clock.Now(), m); err != nil {
					t.Fatal(err)
				}
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			var rows []struct {
				To     string `db:"to_addr"`
				Lang   string `db:"lang"`
				Facts  string `db:"facts"`
				Status string `db:"status"`
			}
			if err := e.DB.Select(&rows, "SELECT to_addr, lang, facts, status FROM mail_outbox WHERE order_no = ?", tc.no); err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1 || rows[0].To != tc.wantTo || rows[0].Lang != tc.wantLang || rows[0].Status != "queued" ||
				rows[0].Facts != `{"order":{"no":"K1","show_id":3,"status":"pending","total_minor":1200,"currency":"CNY","expires_at":"0001-01-01T00:00:00Z"}}` {
				t.Fatalf("outbox rows of %s: %+v, want one to %s (%s) with the given facts", tc.no, rows, tc.wantTo, tc.wantLang)
			}
		})
	}
}
