package handlers

import (
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"seatflow/services/audit"
)

// auditActorJSON is who made an audited write; null for the system.
type auditActorJSON struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

// auditEntryJSON is one audit entry: before and after are the JSON the write recorded
// (null when the entity did not exist before or no longer exists after).
type auditEntryJSON struct {
	ID        string          `json:"id"`
	Actor     *auditActorJSON `json:"actor"`
	Action    string          `json:"action"`
	Entity    string          `json:"entity"`
	EntityID  string          `json:"entity_id"`
	CinemaID  *string         `json:"cinema_id"` // null: of no one cinema
	Before    json.RawMessage `json:"before"`
	After     json.RawMessage `json:"after"`
	CreatedAt string          `json:"created_at"`
}

func auditOut(e *audit.AuditEntry) auditEntryJSON {
	out := auditEntryJSON{ID: id(e.ID), Action: e.Action, Entity: e.Entity, EntityID: e.EntityID,
		Before: rawOrNull(e.Before), After: rawOrNull(e.After), CreatedAt: rfc(e.CreatedAt)}
	if e.CinemaID != nil {
		cid := id(*e.CinemaID)
		out.CinemaID = &cid
	}
	if e.ActorID != nil {
		out.Actor = &auditActorJSON{ID: id(*e.ActorID), Email: e.ActorEmail}
	}
	return out
}

func rawOrNull(b []byte) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return json.RawMessage(b)
}

// apiAdminAudit lists the audit log newest first:
// ?actor=&action=&entity=&entity_id=&cinema_id=&from=&to=&limit=&before_id= (from and to are the
// cinema's local dates YYYY-MM-DD, both included; limit 1..200, default 50; before_id
// the next_before_id of the previous page) -> {"entries":[...],"next_before_id"} where
// next_before_id is set only when older entries exist; each entry's cinema_id names the
// cinema it is about (null: none). Staff limited to cinemas see their cinemas' entries
// and those of no one cinema.
// Errors: 400 INVALID_REQUEST (bad date, limit, cursor, cinema_id or actor email; an
// empty date, limit, cursor or cinema_id), 403 (cinema_id of another cinema than a
// limited staff member's), 503.
func (d *Deps) apiAdminAudit(c *fiber.Ctx) error {
	if err := refuseBlankQuery(c, "from", "to", "limit", "before_id", "cinema_id"); err != nil {
		return err
	}
	q, err := parseAuditQuery(c, d.Shows.Zone())
	if err != nil {
		return err
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	entries, err := d.Audit.List(ctx, q.Filter)
	if err != nil {
		return err
	}
	entries, older := q.page(entries)
	out := struct {
		Entries      []auditEntryJSON `json:"entries"`
		NextBeforeID string           `json:"next_before_id,omitempty"`
	}{Entries: make([]auditEntryJSON, len(entries))}
	for i, e := range entries {
		out.Entries[i] = auditOut(e)
	}
	if older > 0 {
		out.NextBeforeID = id(older)
	}
	return c.JSON(out)
}
