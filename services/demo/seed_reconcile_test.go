package demo_test

import (
	"context"
	"testing"
	"time"

	"seatflow/services/demo"
	"seatflow/services/internal/testenv"
	"seatflow/services/reconcile"
)

// TestSeedDemo_FirstReconciliationFindsNothing seeds the demo cinema as `seatflow seed`
// does (with the seat cache at hand), then runs reconciliation at the seed's instant:
// the seed leaves no drift, so the run finds and fixes nothing. Before the seed loaded
// the nearly sold-out show's seat map, the run found that show's map missing.
func TestSeedDemo_FirstReconciliationFindsNothing(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	zone := demoTestZone(t)
	now := time.Date(2030, 3, 10, 10, 0, 0, 0, zone).UTC()
	e.Clock.Advance(now.Sub(e.Clock.Now()))
	rep, err := demo.SeedDemo(ctx, e.DB, e.Users, demo.DemoOptions{Now: now, Zone: zone, Currency: "CNY", PurchaseLimit: 4,
		SeatMaps: e.Seats})
	if err != nil {
		t.Fatal(err)
	}
	if rep.OrdersCreated == 0 {
		t.Fatalf("the seed filled no show: %+v", rep)
	}
	run, err := testenv.NewReconciler(e, nil).Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerCLI})
	if err != nil {
		t.Fatal(err)
	}
	if run.ShowsChecked == 0 {
		t.Fatal("reconciliation checked no show")
	}
	for _, f := range run.Findings {
		t.Errorf("finding after a fresh seed: %s show %d seat %d order %q: %s", f.Kind, f.ShowID, f.SeatID, f.OrderNo, f.Detail)
	}
}
