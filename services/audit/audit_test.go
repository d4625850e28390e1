package audit_test

import (
	"context"
	"encoding/json"
	"testing"

	"seatflow/services/audit"
	"seatflow/services/internal/testenv"
)

// TestInvariant11_AuditRecordsWhoWhenWhatBeforeAfter: an audited write inside a
// transaction is recorded with its actor, time, action and both states, and a rolled
// back write leaves no entry.
func TestInvariant11_AuditRecordsWhoWhenWhatBeforeAfter(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	a := audit.NewAudit(e.DB, e.Clock)
	staff := e.User(1)
	tx := e.DB.MustBegin()
	if err := a.Record(ctx, tx, staff, "show.update", "show", "7", map[string]int{"purchase_limit": 4}, map[string]int{"purchase_limit": 6}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx = e.DB.MustBegin()
	if err := a.Record(ctx, tx, staff, "show.update", "show", "8", nil, map[string]int{"x": 1}); err != nil {
		t.Fatal(err)
	}
	_ = tx.Rollback()
	if err := a.Record(ctx, e.DB, 0, "movie.create", "movie", "3", nil, map[string]string{"title": "X"}); err != nil {
		t.Fatal(err)
	}
	created, err := a.List(ctx, audit.AuditFilter{Entity: "movie"})
	if err != nil || len(created) != 1 || created[0].Before != nil || created[0].ActorID != nil {
		t.Fatalf("a create by the system: %+v %v (before must be NULL, no actor)", created, err)
	}
	got, err := a.List(ctx, audit.AuditFilter{Entity: "show"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d entries, want 1 (the rolled-back write must leave none)", len(got))
	}
	en := got[0]
	var before, after map[string]int
	_ = json.Unmarshal(en.Before, &before)
	_ = json.Unmarshal(en.After, &after)
	if en.ActorID == nil || *en.ActorID != staff || en.ActorEmail == "" || en.Action != "show.update" || en.EntityID != "7" ||
		!en.CreatedAt.Equal(e.Clock.Now()) || before["purchase_limit"] != 4 || after["purchase_limit"] != 6 {
		t.Errorf("entry %+v (before %v after %v)", en, before, after)
	}
}
