package store

import (
	"context"

	"seatflow/services"
)

// TicketTypeIndex is the primary key of ticket_types (a code in use is a CONFLICT).
const TicketTypeIndex = "PRIMARY"

// TicketTypes lists the ticket types staff added (adult is built in, not stored), by code.
func TicketTypes(ctx context.Context, q Querier) ([]services.TicketType, error) {
	var ts []services.TicketType
	err := q.SelectContext(ctx, &ts, "SELECT code, name_en, name_zh, note_en, note_zh, created_at FROM ticket_types ORDER BY code")
	return ts, err
}

// InsertTicketType stores a ticket type (created_at UTC); a code in use fails with MySQL error 1062.
func InsertTicketType(ctx context.Context, q Querier, t services.TicketType) error {
	_, err := q.ExecContext(ctx, "INSERT INTO ticket_types (code, name_en, name_zh, note_en, note_zh, created_at) VALUES (?, ?, ?, ?, ?, ?)",
		t.Code, t.NameEn, t.NameZh, t.NoteEn, t.NoteZh, t.CreatedAt)
	return err
}
