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
