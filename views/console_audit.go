package views

import "time"

// AuditEntry is one entry of the audit log: who (ActorID nil for the system, ActorEmail
// "" then), what (Action on Entity EntityID), the entity's JSON before and after (nil
// when absent) and when.
type AuditEntry struct {
	ID         int64
	ActorID    *int64
	ActorEmail string
	Action     string
	Entity     string
	EntityID   string
	Before     []byte
	After      []byte
	CreatedAt  time.Time
}

// EntryZone is the zone e's times are told in: its show's cinema's when it is about a
// show or an order of a chain, else the page's.
func (p AuditPageProps) EntryZone(e *AuditEntry) *time.Location {
	if loc, ok := p.EntryZones[e.ID]; ok {
		return loc
	}
	return p.Zone
}
