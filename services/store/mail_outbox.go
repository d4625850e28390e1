package store

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// MailKind names what an e-mail tells of (mail.Kind lists them).
type MailKind string

// MailRow is one mail_outbox row as stored. Times are UTC. While Status is sending,
// NextAttemptAt is the end of the claim's lease.
type MailRow struct {
	ID            int64      `db:"id"`
	Kind          MailKind   `db:"kind"`
	UserID        *int64     `db:"user_id"`
	To            string     `db:"to_addr"`
	Lang          string     `db:"lang"`
	OrderNo       *string    `db:"order_no"`
	ShowID        *int64     `db:"show_id"`
	Data          *string    `db:"data"`
	Facts         *string    `db:"facts"`
	MessageKey    *string    `db:"message_key"`
	Status        string     `db:"status"`
	Attempts      int        `db:"attempts"`
	LastError     *string    `db:"last_error"`
	NextAttemptAt time.Time  `db:"next_attempt_at"`
	CreatedAt     time.Time  `db:"created_at"`
	SentAt        *time.Time `db:"sent_at"`
}

const mailColumns = `id, kind, user_id, to_addr, lang, order_no, show_id, data, facts, message_key, status, attempts,
	last_error, next_attempt_at, created_at, sent_at`

// MailQueued is one e-mail to queue: OrderNo, ShowID, Data and Facts are nil for NULL; MessageKey is its Message-ID's random part; At (UTC) is its creation and first due time.
type MailQueued struct {
	Kind       string
	DedupeKey  string
	UserID     int64
	OrderNo    any
	ShowID     any
	Data       any
	Facts      any
	MessageKey string
	At         time.Time
	// To and Lang, when set, are the address and language the e-mail goes to instead
	// of the user's (a walk-in's tickets: UserID 0, no account); nil for the user's.
	To   any
	Lang any
}

// QueueMail inserts ms queued, copying each user's address and language (or its own To and Lang), skips one with neither user nor To, and skips a dedupe key already queued.
// When every one carries its To and Lang it is a plain multi-row INSERT, reading no users row (a third of the copying form's MariaDB time for 8 rows, BENCHMARKS.md).
func QueueMail(ctx context.Context, ex sqlx.ExecerContext, ms []MailQueued) error {
	if len(ms) > 0 && !slices.ContainsFunc(ms, func(m MailQueued) bool { return m.To == nil || m.Lang == nil }) {
		return queueMailAddressed(ctx, ex, ms)
	}
	var q strings.Builder
	q.WriteString(`INSERT INTO mail_outbox (kind, dedupe_key, user_id, to_addr, lang, order_no, show_id, data, facts, message_key, status, next_attempt_at, created_at)
		SELECT m.kind, m.dedupe_key, u.id, COALESCE(m.to_addr, u.email), COALESCE(m.lang, u.lang), m.order_no, m.show_id, m.data, m.facts, m.message_key, 'queued', m.at, m.at FROM (`)
	args := make([]any, 0, len(ms)*12)
	for i, m := range ms {
		if i > 0 {
			q.WriteString(" UNION ALL ")
		}
		q.WriteString("SELECT ? AS seq, ? AS kind, ? AS dedupe_key, ? AS user_id, ? AS order_no, ? AS show_id, ? AS data, ? AS facts, ? AS message_key, ? AS at, ? AS to_addr, ? AS lang")
		args = append(args, i, m.Kind, m.DedupeKey, m.UserID, m.OrderNo, m.ShowID, m.Data, m.Facts, m.MessageKey, m.At, m.To, m.Lang)
	}
	q.WriteString(`) m LEFT JOIN users u ON u.id = m.user_id WHERE COALESCE(m.to_addr, u.email) IS NOT NULL
		ORDER BY m.seq ON DUPLICATE KEY UPDATE id = mail_outbox.id`)
	_, err := ex.ExecContext(ctx, q.String(), args...)
	return err
}

// queueMailAddressed is QueueMail of ms that all carry To and Lang: one multi-row INSERT … VALUES.
func queueMailAddressed(ctx context.Context, ex sqlx.ExecerContext, ms []MailQueued) error {
	var q strings.Builder
	q.WriteString(`INSERT INTO mail_outbox (kind, dedupe_key, user_id, to_addr, lang, order_no, show_id, data, facts, message_key, status, next_attempt_at, created_at) VALUES `)
	args := make([]any, 0, len(ms)*12)
	for i, m := range ms {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?)")
		var user any
		if m.UserID != 0 {
			user = m.UserID
		}
		args = append(args, m.Kind, m.DedupeKey, user, m.To, m.Lang, m.OrderNo, m.ShowID, m.Data, m.Facts, m.MessageKey, m.At, m.At)
	}
	q.WriteString(" ON DUPLICATE KEY UPDATE id = mail_outbox.id")
	_, err := ex.ExecContext(ctx, q.String(), args...)
	return err
}

// DueMailIDs returns at most limit ids of queued rows due at now and sending rows whose lease ran out, oldest first.
func DueMailIDs(ctx context.Context, q Querier, now time.Time, limit int) ([]int64, error) {
	var ids []int64
	err := q.SelectContext(ctx, &ids, `SELECT id FROM mail_outbox
		WHERE status IN ('queued', 'sending') AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`,
		now, limit)
	return ids, err
}

// HoldQueuedMail moves every queued row to held and returns how many moved.
func HoldQueuedMail(ctx context.Context, q Querier) (int64, error) {
	return mailRowsChanged(q.ExecContext(ctx, `UPDATE mail_outbox SET status = 'held' WHERE status = 'queued'`))
}

// ClaimMail moves row id, queued or sending with its lease run out at now, to sending with attempts+1 until leaseEnd; it returns the rows changed.
func ClaimMail(ctx context.Context, q Querier, id int64, now, leaseEnd time.Time) (int64, error) {
	return mailRowsChanged(q.ExecContext(ctx, `UPDATE mail_outbox SET status = 'sending', attempts = attempts + 1, next_attempt_at = ?
		WHERE id = ? AND (status = 'queued' OR (status = 'sending' AND next_attempt_at <= ?))`, leaseEnd, id, now))
}

// MarkMailSent records attempt of row id, still sending, as sent at now; it returns the rows changed.
func MarkMailSent(ctx context.Context, q Querier, id int64, attempt int, now time.Time) (int64, error) {
	return mailRowsChanged(q.ExecContext(ctx, `UPDATE mail_outbox SET status = 'sent', sent_at = ?, last_error = NULL
		WHERE id = ? AND status = 'sending' AND attempts = ?`, now, id, attempt))
}

// MarkMailRetry queues row id, still sending attempt, again at retryAt with lastError; it returns the rows changed.
func MarkMailRetry(ctx context.Context, q Querier, id int64, attempt int, lastError string, retryAt time.Time) (int64, error) {
	return mailRowsChanged(q.ExecContext(ctx, `UPDATE mail_outbox SET status = 'queued', last_error = ?, next_attempt_at = ?
		WHERE id = ? AND status = 'sending' AND attempts = ?`, lastError, retryAt, id, attempt))
}

// MarkMailFailed ends row id, still sending attempt, as failed with lastError; it returns the rows changed.
func MarkMailFailed(ctx context.Context, q Querier, id int64, attempt int, lastError string) (int64, error) {
	return mailRowsChanged(q.ExecContext(ctx, `UPDATE mail_outbox SET status = 'failed', last_error = ?
		WHERE id = ? AND status = 'sending' AND attempts = ?`, lastError, id, attempt))
}

// mailRowsChanged is the rows an UPDATE changed (0 when the driver cannot tell).
func mailRowsChanged(res sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// MailByID returns row id (sql.ErrNoRows when there is none).
func MailByID(ctx context.Context, q Querier, id int64) (*MailRow, error) {
	r := &MailRow{}
	if err := q.GetContext(ctx, r, "SELECT "+mailColumns+" FROM mail_outbox WHERE id = ?", id); err != nil {
		return nil, err
	}
	return r, nil
}

// MailByRecipient returns at most limit rows newest first, those whose address contains to when it is not empty.
func MailByRecipient(ctx context.Context, q Querier, to string, limit int) ([]*MailRow, error) {
	query, args := "SELECT "+mailColumns+" FROM mail_outbox", []any{}
	if to != "" {
		query += " WHERE to_addr LIKE ?"
		args = append(args, "%"+mailLikeEscape(to)+"%")
	}
	query += " ORDER BY id DESC LIMIT ?"
	rows := []*MailRow{}
	if err := q.SelectContext(ctx, &rows, query, append(args, limit)...); err != nil {
		return nil, err
	}
	return rows, nil
}

// mailLikeEscape escapes LIKE's wildcards (and its escape character) in s.
func mailLikeEscape(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' || s[i] == '_' || s[i] == '\\' {
			out = append(out, '\\')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// MailOrderFact is an order as its e-mail tells of it: the order row with its show's
// movie title, hall name and start (UTC), its ticket code ("" when it has none), and one of its seats (label, zone code and
// name; NULL for an order without seats).
type MailOrderFact struct {
	OrderNo    string    `db:"order_no"`
	ShowID     int64     `db:"show_id"`
	Status     string    `db:"status"`
	TotalMinor int64     `db:"total_minor"`
	Currency   string    `db:"currency"`
	ExpiresAt  time.Time `db:"expires_at"`
	Title      string    `db:"title"`
	HallName   string    `db:"hall_name"`
	CinemaName string    `db:"cinema_name"`
	TimeZone   string    `db:"time_zone"`
	StartsAt   time.Time `db:"starts_at"`
	// SelfRefundUntilH is the show's self-refund cut-off in hours before the start (nil: none)
	SelfRefundUntilH *int   `db:"self_refund_until_h"`
	TicketCode       string `db:"ticket_code"`
	// Voucher is the code the order used ("" none), DiscountMinor its saving
	Voucher       string         `db:"voucher"`
	DiscountMinor int64          `db:"discount_minor"`
	Label         sql.NullString `db:"label"`
	ZoneCode      sql.NullString `db:"zone_code"`
	ZoneName      sql.NullString `db:"zone_name"`
	// TicketType is the seat's ticket type, TicketName and TicketNameZh its names (empty
	// for adult, which has no row)
	TicketType   sql.NullString `db:"ticket_type"`
	TicketName   sql.NullString `db:"ticket_name"`
	TicketNameZh sql.NullString `db:"ticket_name_zh"`
}

// MailOrderFacts returns the orders numbered nos (at least one) with their show's title, hall name, cinema (name, zone) and start, their ticket codes, and their seats (a paid order's kept ones, not those refunded) with their zones' names (in row and column order), as q sees them: one row per seat, the order's columns repeated (an order without seats: one row, no seat), so one statement reads every fact of the batch's e-mails.
func MailOrderFacts(ctx context.Context, q Querier, nos []string) ([]MailOrderFact, error) {
	query, args, err := sqlx.In(`SELECT o.order_no, o.show_id, o.status, o.total_minor, o.currency, o.expires_at,
		m.title, h.name AS hall_name, c.name AS cinema_name, c.time_zone, sh.starts_at, sh.self_refund_until_h, COALESCE(tc.code, '') AS ticket_code,
		COALESCE(v.code, '') AS voucher, o.discount_minor, s.label, os.zone_code, COALESCE(z.name, os.zone_code) AS zone_name,
		os.ticket_type, tt.name_en AS ticket_name, tt.name_zh AS ticket_name_zh
		FROM orders o JOIN shows sh ON sh.id = o.show_id JOIN movies m ON m.id = sh.movie_id JOIN halls h ON h.id = sh.hall_id
		JOIN cinemas c ON c.id = h.cinema_id
		LEFT JOIN ticket_codes tc ON tc.order_id = o.id LEFT JOIN vouchers v ON v.id = o.voucher_id
		LEFT JOIN order_seats os ON os.order_id = o.id AND os.exchanged_at IS NULL
			AND (o.status <> 'paid' OR os.live = 1) LEFT JOIN seats s ON s.id = os.seat_id
		LEFT JOIN zones z ON z.hall_id = s.hall_id AND z.code = os.zone_code
		LEFT JOIN ticket_types tt ON tt.code = os.ticket_type
		WHERE o.order_no IN (?) ORDER BY o.order_no, s.row_no, s.col_no`, nos)
	if err != nil {
		return nil, err
	}
	var rows []MailOrderFact
	err = q.SelectContext(ctx, &rows, q.Rebind(query), args...)
	return rows, err
}

// MailShowFact is a show as an e-mail without an order tells of it: its movie title, hall name, cinema (name, IANA zone) and start (UTC).
type MailShowFact struct {
	ID         int64     `db:"id"`
	Title      string    `db:"title"`
	HallName   string    `db:"hall_name"`
	CinemaName string    `db:"cinema_name"`
	TimeZone   string    `db:"time_zone"`
	StartsAt   time.Time `db:"starts_at"`
}

// MailShowFacts returns the shows with ids (at least one) with their movie title, hall name, cinema and start.
func MailShowFacts(ctx context.Context, q Querier, ids []int64) ([]MailShowFact, error) {
	query, args, err := sqlx.In(`SELECT sh.id, m.title, h.name AS hall_name, c.name AS cinema_name, c.time_zone, sh.starts_at
		FROM shows sh JOIN movies m ON m.id = sh.movie_id JOIN halls h ON h.id = sh.hall_id
		JOIN cinemas c ON c.id = h.cinema_id WHERE sh.id IN (?)`, ids)
	if err != nil {
		return nil, err
	}
	var rows []MailShowFact
	err = q.SelectContext(ctx, &rows, q.Rebind(query), args...)
	return rows, err
}
