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
type Row = store.MailRow

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
	ids, err := store.DueMailIDs(ctx, o.db, o.clock.Now().UTC(), limit)
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
	n, err := store.HoldQueuedMail(ctx, o.db)
	if err != nil {
		return 0, store.Unavailable("the database", err)
	}
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
	n, err := store.ClaimMail(ctx, o.db, id, now, now.Add(lease))
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	if n == 0 {
		return nil, nil
	}
	return o.Get(ctx, id)
}

// MarkSent records the claimed attempt of row id as delivered. False when the claim was
// lost (its lease ran out and another worker took the row). Errors: UNAVAILABLE.
func (o *Outbox) MarkSent(ctx context.Context, id int64, attempt int) (bool, error) {
	return o.finish(ctx, func(ctx context.Context) (int64, error) {
		return store.MarkMailSent(ctx, o.db, id, attempt, o.clock.Now().UTC())
	})
}

// MarkRetry records the claimed attempt of row id as failed with cause and queues the
// row again at retryAt (UTC); MarkFailed ends it as failed. False when the claim was
// lost. Errors: UNAVAILABLE.
func (o *Outbox) MarkRetry(ctx context.Context, id int64, attempt int, cause error, retryAt time.Time) (bool, error) {
	return o.finish(ctx, func(ctx context.Context) (int64, error) {
		return store.MarkMailRetry(ctx, o.db, id, attempt, errText(cause), retryAt.UTC())
	})
}

// MarkFailed records the claimed attempt of row id as the last one: the row ends
// failed with cause, for admins to see. False when the claim was lost.
// Errors: UNAVAILABLE.
func (o *Outbox) MarkFailed(ctx context.Context, id int64, attempt int, cause error) (bool, error) {
	return o.finish(ctx, func(ctx context.Context) (int64, error) {
		return store.MarkMailFailed(ctx, o.db, id, attempt, errText(cause))
	})
}

// finish runs one outcome of a claim (update returns the rows it changed) and reports
// whether the claim still held.
func (o *Outbox) finish(ctx context.Context, update func(ctx context.Context) (int64, error)) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	n, err := update(ctx)
	if err != nil {
		return false, store.Unavailable("the database", err)
	}
	return n == 1, nil
}

// Get reads row id. Errors: NOT_FOUND, UNAVAILABLE.
func (o *Outbox) Get(ctx context.Context, id int64) (*Row, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	r, err := store.MailByID(ctx, o.db, id)
	if err != nil {
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
	rows, err := store.MailByRecipient(ctx, o.db, f.To, f.Limit)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return rows, nil
}

// errText is cause as last_error stores it: at most 500 characters.
func errText(cause error) string {
	s := fmt.Sprint(cause)
	if r := []rune(s); len(r) > 500 {
		s = string(r[:500])
	}
	return s
}
