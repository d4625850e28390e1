package testenv

import (
	"encoding/json"
	"strings"
)

// OutboxMail is one row of the mail outbox as tests compare it.
type OutboxMail struct {
	Kind    string            `db:"kind"`
	UserID  int64             `db:"user_id"`
	OrderNo string            `db:"order_no"`
	ShowID  int64             `db:"show_id"`
	Lang    string            `db:"lang"`
	RawData *string           `db:"data"`
	Data    map[string]string `db:"-"`
}

// MailsOf returns the outbox rows about the order, in the order they were written.
func (e *TestEnv) MailsOf(orderNo string) []OutboxMail {
	e.T.Helper()
	var rows []OutboxMail
	if err := e.DB.Select(&rows, `SELECT kind, COALESCE(user_id, 0) AS user_id, COALESCE(order_no, '') AS order_no,
		COALESCE(show_id, 0) AS show_id, lang, data FROM mail_outbox WHERE order_no = ? ORDER BY id`, orderNo); err != nil {
		e.T.Fatal(err)
	}
	for i := range rows {
		if rows[i].RawData != nil {
			if err := json.Unmarshal([]byte(*rows[i].RawData), &rows[i].Data); err != nil {
				e.T.Fatalf("outbox data of %s: %v", orderNo, err)
			}
		}
	}
	return rows
}

// MailKinds returns the kinds of the order's outbox rows, in order, joined by spaces.
func (e *TestEnv) MailKinds(orderNo string) string {
	e.T.Helper()
	var kinds []string
	for _, m := range e.MailsOf(orderNo) {
		kinds = append(kinds, m.Kind)
	}
	return strings.Join(kinds, " ")
}
