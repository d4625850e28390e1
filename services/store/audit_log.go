package store

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// AuditEntry is one audited staff or admin write (DESIGN.md invariant 11): who (ActorID,
// nil for the system), when (UTC), what (Action such as "show.create" on Entity "show"
// with EntityID "42"), and the entity before and after as JSON (nil when it did not
// exist before or no longer exists after).
type AuditEntry struct {
	ID         int64     `db:"id"`
	ActorID    *int64    `db:"actor_user_id"`
	ActorEmail string    `db:"actor_email"`
	Action     string    `db:"action"`
	Entity     string    `db:"entity"`
	EntityID   string    `db:"entity_id"`
	CinemaID   *int64    `db:"cinema_id"`   // nil: of no one cinema
	Before     []byte    `db:"before_json"` // JSON, nil when NULL
	After      []byte    `db:"after_json"`  // JSON, nil when NULL
	CreatedAt  time.Time `db:"created_at"`
}

// AuditLogFilter narrows AuditLogEntries: by Entity and EntityID, by ActorID or ActorEmail (the
// account's email in any case or width), by Action, by CinemaID (entries naming that cinema),
// to Scope (entries naming one of those cinemas or none; empty: every entry), to entries created at or after From
// and before To (UTC instants; zero means open), to entries older than BeforeID (the
// paging cursor: the last id of the previous page), and at most Limit entries (1..500,
// default 100), newest first.
type AuditLogFilter struct {
	Entity     string
	EntityID   string
	ActorID    int64
	ActorEmail string
	Action     string
	CinemaID   int64
	Scope      []int64
	From, To   time.Time
	BeforeID   int64
	Limit      int
}

// auditCinemaSQL is the cinema an entry is about, from its entity (the first parameter)
// and entity id (the next seven): a hall's, a show's (or a show seat's "show:seat"), an
// order's (by number) show's, a cinema itself, a voucher's (by code) or a
// voucher batch's (by name); NULL for anything else.
const auditCinemaSQL = `CASE ?
	WHEN 'hall' THEN (SELECT h.cinema_id FROM halls h WHERE h.id = ?)
	WHEN 'show' THEN (SELECT h.cinema_id FROM shows sh JOIN halls h ON h.id = sh.hall_id WHERE sh.id = ?)
	WHEN 'show_seat' THEN (SELECT h.cinema_id FROM shows sh JOIN halls h ON h.id = sh.hall_id WHERE sh.id = SUBSTRING_INDEX(?, ':', 1))
	WHEN 'order' THEN (SELECT h.cinema_id FROM orders o JOIN shows sh ON sh.id = o.show_id JOIN halls h ON h.id = sh.hall_id WHERE o.order_no = ?)
	WHEN 'cinema' THEN (SELECT c.id FROM cinemas c WHERE c.id = ?)
	WHEN 'voucher' THEN (SELECT v.cinema_id FROM vouchers v WHERE v.code = ?)
	WHEN 'voucher_batch' THEN (SELECT MIN(v.cinema_id) FROM vouchers v WHERE v.batch = ?)
	END`

// InsertAuditEntry writes one audit_log row through ex (the audited write's transaction), naming the entity's cinema; actorID 0 is stored as NULL.
func InsertAuditEntry(ctx context.Context, ex sqlx.ExecerContext, actorID int64, action, entity, entityID string, before, after sql.NullString, at time.Time) error {
	_, err := ex.ExecContext(ctx, `INSERT INTO audit_log (actor_user_id, action, entity, entity_id, cinema_id, before_json, after_json, created_at)
		VALUES (?, ?, ?, ?, `+auditCinemaSQL+`, ?, ?, ?)`, NullID(actorID), action, entity, entityID,
		entity, entityID, entityID, entityID, entityID, entityID, entityID, entityID, before, after, at)
	return err
}

// AuditLogEntries returns the entries matching f (its Limit already checked) newest first, with each actor's email.
func AuditLogEntries(ctx context.Context, q Querier, f AuditLogFilter) ([]*AuditEntry, error) {
	query := `SELECT l.id, l.actor_user_id, COALESCE(u.email, '') AS actor_email, l.action, l.entity, l.entity_id,
		l.cinema_id, l.before_json, l.after_json, l.created_at FROM audit_log l LEFT JOIN users u ON u.id = l.actor_user_id WHERE 1 = 1`
	var args []any
	if f.Entity != "" {
		query += " AND l.entity = ?"
		args = append(args, f.Entity)
	}
	if f.EntityID != "" {
		query += " AND l.entity_id = ?"
		args = append(args, f.EntityID)
	}
	if f.ActorID != 0 {
		query += " AND l.actor_user_id = ?"
		args = append(args, f.ActorID)
	}
	if f.ActorEmail != "" {
		query += " AND u.email = ?"
		args = append(args, f.ActorEmail)
	}
	if f.Action != "" {
		query += " AND l.action = ?"
		args = append(args, f.Action)
	}
	if f.CinemaID != 0 {
		query += " AND l.cinema_id = ?"
		args = append(args, f.CinemaID)
	}
	if in, inArgs := cinemaInClause("l.cinema_id", f.Scope); in != "" {
		query += " AND (l.cinema_id IS NULL" + strings.Replace(in, " AND ", " OR ", 1) + ")"
		args = append(args, inArgs...)
	}
	if !f.From.IsZero() {
		query += " AND l.created_at >= ?"
		args = append(args, f.From.UTC())
	}
	if !f.To.IsZero() {
		query += " AND l.created_at < ?"
		args = append(args, f.To.UTC())
	}
	if f.BeforeID > 0 {
		query += " AND l.id < ?"
		args = append(args, f.BeforeID)
	}
	query += " ORDER BY l.id DESC LIMIT ?"
	args = append(args, f.Limit)
	var out []*AuditEntry
	if err := q.SelectContext(ctx, &out, query, args...); err != nil {
		return nil, err
	}
	return out, nil
}

// AuditLogActions returns the distinct actions of the audit log, sorted.
func AuditLogActions(ctx context.Context, q Querier) ([]string, error) {
	var actions []string
	err := q.SelectContext(ctx, &actions, "SELECT DISTINCT action FROM audit_log ORDER BY action")
	return actions, err
}

// AuditLogEntities returns the distinct entity types of the audit log, sorted.
func AuditLogEntities(ctx context.Context, q Querier) ([]string, error) {
	var entities []string
	err := q.SelectContext(ctx, &entities, "SELECT DISTINCT entity FROM audit_log ORDER BY entity")
	return entities, err
}
