package reconcile_test

import (
	"context"
	"strings"
	"testing"

	"seatflow/services/internal/testenv"
	"seatflow/services/reconcile"
	"seatflow/services/seats"
)

// TestReconcileReportsSeatIdentityDamage: a live order on a seat that left its show's
// hall, and a second seat of the hall with the same label sold to another order (one
// physical seat sold twice, the damage of a hall edit racing an order), are reported
// (action "report", never fixed: staff choose), on every run, with the orders named.
func TestReconcileReportsSeatIdentityDamage(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	first, err := e.Create(e.User(1), e.SeatIDs("D1")...)
	if err != nil {
		t.Fatal(err)
	}
	old := e.SeatIDs("D1")[0]
	// the damage, written as a broken hall edit would leave it: D1 retired with its live
	// order, a new D1 in its place
	e.Exec("UPDATE seats SET hall_id = NULL, retired_hall_id = ? WHERE id = ?", e.Hall.ID, old)
	newID := e.Exec("INSERT INTO seats (hall_id, zone_id, row_no, col_no, label, kind) SELECT ?, zone_id, row_no, col_no, label, kind FROM seats WHERE id = ?", e.Hall.ID, old)
	second := e.Exec("INSERT INTO orders (order_no, user_id, show_id, status, total_minor, currency, created_at, expires_at, paid_at) VALUES ('0SECONDD1', ?, ?, 'paid', 4500, 'CNY', ?, ?, ?)",
		e.User(2), e.Show.ID, e.Clock.Now(), e.Clock.Now(), e.Clock.Now())
	e.Exec("INSERT INTO order_seats (order_id, show_id, seat_id, zone_code, price_minor, live) VALUES (?, ?, ?, 'standard', 4500, 1)", second, e.Show.ID, newID)

	rec := testenv.NewReconciler(e, nil)
	for round := 1; round <= 2; round++ {
		run, err := rec.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerManual, ShowID: e.Show.ID})
		if err != nil {
			t.Fatal(err)
		}
		out := testenv.FindingsOf(run, seats.FindingSeatOutsideHall)
		if len(out) != 1 || out[0].SeatID != old || out[0].OrderNo != first.OrderNo || out[0].Fixed || out[0].Action != seats.ActionReport {
			t.Errorf("round %d: seat_outside_hall findings %+v, want one for D1 of %s, reported", round, out, first.OrderNo)
		}
		dup := testenv.FindingsOf(run, seats.FindingDuplicateLabel)
		if len(dup) != 1 || dup[0].Fixed || !strings.Contains(dup[0].Detail, "D1") ||
			!strings.Contains(dup[0].Detail, first.OrderNo) || !strings.Contains(dup[0].Detail, "0SECONDD1") {
			t.Errorf("round %d: duplicate_label findings %+v, want one naming D1 and both orders", round, dup)
		}
		stored, err := rec.RunReport(ctx, run.ID)
		if err != nil || len(testenv.FindingsOf(stored, seats.FindingDuplicateLabel)) != 1 {
			t.Errorf("round %d: the stored run lacks the finding: %v", round, err)
		}
	}
	var live int
	if err := e.DB.Get(&live, "SELECT COUNT(*) FROM order_seats WHERE show_id = ? AND live = 1", e.Show.ID); err != nil || live != 2 {
		t.Errorf("reconciliation changed the orders: %d live seats (%v), want 2", live, err)
	}
}
