package store_test

import (
	"context"
	"testing"

	"seatflow/services/internal/testenv"
	"seatflow/services/store"
)

// TestResetTables_EmptiesWrittenTablesAndRestartsIDs: a table with rows and a table
// whose rows were deleted (its next id moved on) both come back empty with their next
// id at 1, so a test's ids never depend on the test before it.
func TestResetTables_EmptiesWrittenTablesAndRestartsIDs(t *testing.T) {
	db := testenv.NewTestDB(t)
	ctx := context.Background()
	db.MustExec("INSERT INTO movies (title, runtime_min, synopsis) VALUES ('A', 90, ''), ('B', 100, '')")
	db.MustExec("INSERT INTO users (email, name, password_hash, created_at) VALUES ('r@x.test', '', 'x', NOW())")
	db.MustExec("DELETE FROM users")
	if err := store.ResetTables(ctx, db); err != nil {
		t.Fatal(err)
	}
	for _, tb := range []string{"movies", "users", "cinemas"} {
		t.Run(tb, func(t *testing.T) {
			var n int
			if err := db.Get(&n, "SELECT COUNT(*) FROM "+tb); err != nil || n != 0 {
				t.Fatalf("%d rows left in %s (%v)", n, tb, err)
			}
		})
	}
	res := db.MustExec("INSERT INTO movies (title, runtime_min, synopsis) VALUES ('C', 90, '')")
	if id, _ := res.LastInsertId(); id != 1 {
		t.Fatalf("the first movie after a reset has id %d, want 1", id)
	}
	res = db.MustExec("INSERT INTO users (email, name, password_hash, created_at) VALUES ('s@x.test', '', 'x', NOW())")
	if id, _ := res.LastInsertId(); id != 1 {
		t.Fatalf("the first user after a reset (its rows were deleted before) has id %d, want 1", id)
	}
}
