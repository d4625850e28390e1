package audit

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/store"
)

// AuditEntry is one audited staff or admin write (DESIGN.md invariant 11): who (ActorID,
// nil for the system), when (UTC), what (Action such as "show.create" on Entity "show"
// with EntityID "42"), and the entity before and after as JSON (nil when it did not
// exist before or no longer exists after).
type AuditEntry = store.AuditEntry

// Audit records staff and admin writes and lists them.
type Audit struct {
	db    *sqlx.DB
	clock services.Clock
}

// NewAudit returns the audit log over MySQL.
func NewAudit(db *sqlx.DB, clock services.Clock) *Audit { return &Audit{db: db, clock: clock} }

// execer is what Record needs: the database or an open transaction, so a write and its
// audit entry commit together.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Record writes one entry through ex (pass the write's transaction so both commit or
// neither). actorID 0 means the system; before and after are marshalled to JSON (nil
// stays NULL). Errors: UNAVAILABLE.
func (a *Audit) Record(ctx context.Context, ex execer, actorID int64, action, entity, entityID string, before, after any) error {
	b, err := auditJSON(before)
	if err != nil {
		return err
	}
	af, err := auditJSON(after)
	if err != nil {
		return err
	}
	err = store.InsertAuditEntry(ctx, ex, actorID, action, entity, entityID, b, af, a.clock.Now())
	if err != nil {
		return store.Unavailable("the database", err)
	}
	return nil
}

func auditJSON(v any) (sql.NullString, error) {
	if v == nil {
		return sql.NullString{}, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return sql.NullString{}, err
	}
	return sql.NullString{String: string(b), Valid: true}, nil
}

// AuditFilter narrows List: by Entity and EntityID, by ActorID or ActorEmail (the
// account's email in any case or width), by Action, by CinemaID (entries naming that
// cinema), to entries created at or after From
// and before To (UTC instants; zero means open), to entries older than BeforeID (the
// paging cursor: the last id of the previous page), and at most Limit entries (1..500,
// default 100), newest first.
type AuditFilter = store.AuditLogFilter

// List returns audit entries newest first (by id): of ctx's scope's cinemas
// (services.CinemaScopeOf) or of no one cinema. Errors: INVALID_REQUEST (an actor
// email that is not a usable address), FORBIDDEN (f.CinemaID outside the scope),
// UNAVAILABLE.
func (a *Audit) List(ctx context.Context, f AuditFilter) ([]*AuditEntry, error) {
	if f.Limit < 1 || f.Limit > 500 {
		f.Limit = 100
	}
	scope := services.CinemaScopeOf(ctx)
	if f.CinemaID != 0 {
		if err := scope.Check(f.CinemaID); err != nil {
			return nil, err
		}
	}
	f.Scope = scope.IDs
	if f.ActorEmail != "" {
		email, err := services.CanonicalEmail(f.ActorEmail)
		if err != nil {
			return nil, err
		}
		f.ActorEmail = email
	}
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	out, err := store.AuditLogEntries(ctx, a.db, f)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return out, nil
}

// Kinds returns the actions and the entity types the log holds, each sorted, for the
// audit page's filter choices. Errors: UNAVAILABLE.
func (a *Audit) Kinds(ctx context.Context) (actions, entities []string, err error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	if actions, err = store.AuditLogActions(ctx, a.db); err != nil {
		return nil, nil, store.Unavailable("the database", err)
	}
	if entities, err = store.AuditLogEntities(ctx, a.db); err != nil {
		return nil, nil, store.Unavailable("the database", err)
	}
	return actions, entities, nil
}
