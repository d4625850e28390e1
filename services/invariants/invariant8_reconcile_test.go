package invariants

import (
	"context"
	"strconv"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/reconcile"
	"seatflow/services/seats"
)

// TestInvariant8_ReconciliationEndsEveryHoldWithoutTasks proves that reconciliation is
// the guarantee that every hold ends (invariant 8): with every expiry task lost, holds
// of orders that never committed (a process killed between the hold and the commit),
// and seats whose post-commit Redis step never ran, one reconciliation run after the
// deadlines leaves no pending order, no hold, and a seat cache equal to MySQL.
func TestInvariant8_ReconciliationEndsEveryHoldWithoutTasks(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.QuietLogs()
	e.Orders.SetExpiry(nil) // every expiry task is lost
	var pending, paid []*services.Order
	for i := 0; i < 12; i++ {
		o, err := e.Create(e.User(i), e.Sellable()[i*3:i*3+3]...)
		if err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			e.Pay(o)
			paid = append(paid, o)
			// the sell step after the commit was lost: the seats are still only held
			for _, s := range o.Seats {
				e.RDB.HSet(ctx, e.Seats.Keys(e.Show.ID)[0], strconv.FormatInt(s.SeatID, 10), testenv.HeldBy(o))
			}
			continue
		}
		pending = append(pending, o)
	}
	// two processes died between the hold and the commit
	for i, seat := range e.Sellable()[100:102] {
		if out, err := e.Seats.Hold(ctx, e.Show.ID, services.NewOrderNo(e.Clock.Now()), e.User(100+i), 4,
			[]seats.SeatRef{{ID: seat, Zone: "standard"}}); err != nil || !out.OK() {
			t.Fatalf("ghost hold: %+v %v", out, err)
		}
	}
	e.Clock.Advance(15*time.Minute + 10*time.Second)
	run, err := testenv.NewReconciler(e, nil).Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerCron})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(testenv.FindingsOf(run, seats.FindingOverdueOrder)); n != len(pending) {
		t.Errorf("%d overdue orders expired, want %d", n, len(pending))
	}
	if n := len(testenv.FindingsOf(run, seats.FindingHoldWithoutOrder)); n != 2 {
		t.Errorf("%d ghost holds released, want 2", n)
	}
	if n := len(testenv.FindingsOf(run, seats.FindingPaidNotSold)); n != 3*len(paid) {
		t.Errorf("%d paid seats sold, want %d", n, 3*len(paid))
	}
	var left int
	if err := e.DB.Get(&left, "SELECT COUNT(*) FROM orders WHERE status = 'pending'"); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d orders still pending after their deadline and one run", left)
	}
	states, err := e.Seats.States(ctx, e.Show.ID)
	if err != nil {
		t.Fatal(err)
	}
	for id, v := range states {
		if st, _, _ := seats.SeatValue(v); st == services.StateHeld {
			t.Errorf("seat %d is still held (%s)", id, v)
		}
	}
	e.CheckInvariants()
}
