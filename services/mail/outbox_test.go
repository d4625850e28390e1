package mail_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

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

// TestQueue_AddressedMessagesAsTheUsersRowWouldGive: a message that carries its user's
// address and language (an order's e-mail, from the buyer's session) is queued by the
// plain insert, and its row is the row the users-copying insert writes for the same
// message without them; its dedupe key is still queued once, a walk-in's (no user) has
// no user_id, and a batch that mixes both kinds is queued whole.
func TestQueue_AddressedMessagesAsTheUsersRowWouldGive(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	u := e.User(1)
	if _, err := e.DB.Exec("UPDATE users SET lang = 'zh-Hans' WHERE id = ?", u); err != nil {
		t.Fatal(err)
	}
	var email string
	if err := e.DB.Get(&email, "SELECT email FROM users WHERE id = ?", u); err != nil {
		t.Fatal(err)
	}
	copied := mail.Message{Kind: mail.OrderCreated, UserID: u, OrderNo: "0COPIED", ShowID: 3, Key: "k:copied"}
	addressed := mail.Message{Kind: mail.OrderCreated, UserID: u, OrderNo: "0ADDRESSED", ShowID: 3, Key: "k:addressed", To: email, Lang: "zh-Hans"}
	walkIn := mail.Message{Kind: mail.OrderPaid, OrderNo: "0WALKIN", ShowID: 3, Key: "k:walkin", To: "walk-in@example.test", Lang: "en"}
	mixedA := mail.Message{Kind: mail.OrderCreated, UserID: u, OrderNo: "0MIXEDA", ShowID: 3, Key: "k:mixed-a", To: email, Lang: "zh-Hans"}
	mixedB := mail.Message{Kind: mail.OrderCreated, UserID: u, OrderNo: "0MIXEDB", ShowID: 3, Key: "k:mixed-b"}
	for _, batch := range [][]mail.Message{{copied}, {addressed}, {addressed}, {walkIn}, {mixedA, mixedB}} {
		tx := e.DB.MustBegin()
		if err := mail.Queue(ctx, tx, e.Clock.Now(), batch...); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	type row struct {
		Key, Kind, To, Lang, Status string
		UserID                      sql.NullInt64
		OrderNo                     string
		ShowID                      int64
		Due, Created                time.Time
	}
	var rows []row
	if err := e.DB.Select(&rows, "SELECT dedupe_key AS `key`, kind AS kind, to_addr AS `to`, lang AS lang, status AS status, user_id AS userid, order_no AS orderno, show_id AS showid, next_attempt_at AS due, created_at AS created FROM mail_outbox ORDER BY id"); err != nil {
		t.Fatal(err)
	}
	byKey := map[string]row{}
	for _, r := range rows {
		byKey[r.Key] = r
	}
	if len(rows) != 5 || len(byKey) != 5 {
		t.Fatalf("want 5 rows, one per dedupe key: %+v", rows)
	}
	c, a := byKey["k:copied"], byKey["k:addressed"]
	c.Key, c.OrderNo, a.Key, a.OrderNo = "", "", "", ""
	if c != a || a.To != email || a.Lang != "zh-Hans" || a.UserID != (sql.NullInt64{Int64: u, Valid: true}) || a.Status != "queued" {
		t.Fatalf("addressed row %+v, want the copying insert's %+v", a, c)
	}
	if w := byKey["k:walkin"]; w.UserID.Valid || w.To != "walk-in@example.test" || w.Lang != "en" {
		t.Fatalf("walk-in row %+v", w)
	}
	if m := byKey["k:mixed-b"]; m.To != email || m.Lang != "zh-Hans" {
		t.Fatalf("mixed batch's copied row %+v", m)
	}
}
