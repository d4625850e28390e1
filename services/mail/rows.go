package mail

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/store"
)

// Outbox row statuses (migrations/00024_mail_outbox.sql).
const (
	StatusQueued  = "queued"  // due at next_attempt_at
	StatusSending = "sending" // claimed by one worker until next_attempt_at (its lease)
	StatusSent    = "sent"
	StatusHeld    = "held"   // no SMTP server configured: kept for the development mailbox
	StatusFailed  = "failed" // MaxAttempts attempts failed; last_error says why
)

// Row is one outbox row as stored. Times are UTC. While Status is sending,
// NextAttemptAt is the end of the claim's lease.
type Row struct {
	ID            int64      `db:"id"`
	Kind          Kind       `db:"kind"`
	UserID        *int64     `db:"user_id"`
	To            string     `db:"to_addr"`
	Lang          string     `db:"lang"`
	OrderNo       *string    `db:"order_no"`
	ShowID        *int64     `db:"show_id"`
	Data          *string    `db:"data"`
	Status        string     `db:"status"`
	Attempts      int        `db:"attempts"`
	LastError     *string    `db:"last_error"`
	NextAttemptAt time.Time  `db:"next_attempt_at"`
	CreatedAt     time.Time  `db:"created_at"`
	SentAt        *time.Time `db:"sent_at"`
}

const rowColumns = `id, kind, user_id, to_addr, lang, order_no, show_id, data, status, attempts,
	last_error, next_attempt_at, created_at, sent_at`

// Outbox reads and moves the rows of mail_outbox. Every status change is one
// conditional UPDATE: the row moves only from the status (and, for a claim's outcome,
// the attempt) the caller saw, so two workers never both act on one row.
type Outbox struct {
	db    *sqlx.DB
	clock services.Clock
}

// NewOutbox returns the outbox over db; times come from clock.
func NewOutbox(db *sqlx.DB, clock services.Clock) *Outbox {
	return &Outbox{db: db, clock: clock}
}

// Due returns the ids of at most limit rows to deliver now: queued rows whose
// next_attempt_at has come, and sending rows whose lease ran out (their worker died),
// oldest first. Errors: UNAVAILABLE.
func (o *Outbox) Due(ctx context.Context, limit int) ([]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	var ids []int64
	err := o.db.SelectContext(ctx, &ids, `SELECT id FROM mail_outbox
		WHERE status IN ('queued', 'sending') AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`,
		o.clock.Now().UTC(), limit)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return ids, nil
}

// HoldQueued moves every queued row to held (no SMTP server is configured) and returns
// how many moved. Errors: UNAVAILABLE.
func (o *Outbox) HoldQueued(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	res, err := o.db.ExecContext(ctx, `UPDATE mail_outbox SET status = 'held' WHERE status = 'queued'`)
	if err != nil {
		return 0, store.Unavailable("the database", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// Claim takes row id for one delivery attempt: queued (whenever due: asynq's retry
// may come a little before next_attempt_at), or sending with its lease run out, moves
// to sending with attempts+1 and a lease until now+lease. It returns the claimed row
// (its Attempts is the claim's fencing token) or nil when someone else holds it or it
// is finished. Errors: UNAVAILABLE.
func (o *Outbox) Claim(ctx context.Context, id int64, lease time.Duration) (*Row, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	now := o.clock.Now().UTC()
	res, err := o.db.ExecContext(ctx, `UPDATE mail_outbox SET status = 'sending', attempts = attempts + 1, next_attempt_at = ?
		WHERE id = ? AND (status = 'queued' OR (status = 'sending' AND next_attempt_at <= ?))`, now.Add(lease), id, now)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, nil
	}
	return o.Get(ctx, id)
}

// MarkSent records the claimed attempt of row id as delivered. False when the claim was
// lost (its lease ran out and another worker took the row). Errors: UNAVAILABLE.
func (o *Outbox) MarkSent(ctx context.Context, id int64, attempt int) (bool, error) {
	return o.finish(ctx, `UPDATE mail_outbox SET status = 'sent', sent_at = ?, last_error = NULL
		WHERE id = ? AND status = 'sending' AND attempts = ?`, o.clock.Now().UTC(), id, attempt)
}

// MarkRetry records the claimed attempt of row id as failed with cause and queues the
// row again at retryAt (UTC); MarkFailed ends it as failed. False when the claim was
// lost. Errors: UNAVAILABLE.
func (o *Outbox) MarkRetry(ctx context.Context, id int64, attempt int, cause error, retryAt time.Time) (bool, error) {
	return o.finish(ctx, `UPDATE mail_outbox SET status = 'queued', last_error = ?, next_attempt_at = ?
		WHERE id = ? AND status = 'sending' AND attempts = ?`, errText(cause), retryAt.UTC(), id, attempt)
}

// MarkFailed records the claimed attempt of row id as the last one: the row ends
// failed with cause, for admins to see. False when the claim was lost.
// Errors: UNAVAILABLE.
func (o *Outbox) MarkFailed(ctx context.Context, id int64, attempt int, cause error) (bool, error) {
	return o.finish(ctx, `UPDATE mail_outbox SET status = 'failed', last_error = ?
		WHERE id = ? AND status = 'sending' AND attempts = ?`, errText(cause), id, attempt)
}

func (o *Outbox) finish(ctx context.Context, q string, args ...any) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	res, err := o.db.ExecContext(ctx, q, args...)
	if err != nil {
		return false, store.Unavailable("the database", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// Get reads row id. Errors: NOT_FOUND, UNAVAILABLE.
func (o *Outbox) Get(ctx context.Context, id int64) (*Row, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	r := &Row{}
	if err := o.db.GetContext(ctx, r, "SELECT "+rowColumns+" FROM mail_outbox WHERE id = ?", id); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, services.Errorf(services.CodeNotFound, "there is no e-mail %d", id)
		}
		return nil, store.Unavailable("the database", err)
	}
	return r, nil
}

// ListFilter selects outbox rows for the development mailbox: To, when set, is part
// of the recipient's address; Limit is 1..500 (other values: 100).
type ListFilter struct {
	To    string
	Limit int
}

// List returns the rows matching f, newest first. Errors: UNAVAILABLE.
func (o *Outbox) List(ctx context.Context, f ListFilter) ([]*Row, error) {
	if f.Limit < 1 || f.Limit > 500 {
		f.Limit = 100
	}
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	q, args := "SELECT "+rowColumns+" FROM mail_outbox", []any{}
	if f.To != "" {
		q += " WHERE to_addr LIKE ?"
		args = append(args, "%"+likeEscape(f.To)+"%")
	}
	q += " ORDER BY id DESC LIMIT ?"
	rows := []*Row{}
	if err := o.db.SelectContext(ctx, &rows, q, append(args, f.Limit)...); err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return rows, nil
}

// likeEscape escapes LIKE's wildcards (and its escape character) in s.
func likeEscape(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' || s[i] == '_' || s[i] == '\\' {
			out = append(out, '\\')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// errText is cause as last_error stores it: at most 500 characters.
func errText(cause error) string {
	s := fmt.Sprint(cause)
	if r := []rune(s); len(r) > 500 {
		s = string(r[:500])
	}
	return s
}
