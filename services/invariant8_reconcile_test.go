package services

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// TestInvariant8_ReconciliationEndsEveryHoldWithoutTasks proves that reconciliation is
// the guarantee that every hold ends (invariant 8): with every expiry task lost, holds
// of orders that never committed (a process killed between the hold and the commit),
// and seats whose post-commit Redis step never ran, one reconciliation run after the
// deadlines leaves no pending order, no hold, and a seat cache equal to MySQL.
func TestInvariant8_ReconciliationEndsEveryHoldWithoutTasks(t *testing.T) {
	ctx := context.Background()
	e := newTestEnv(t, unlimited)
	e.quietLogs()
	e.orders.SetExpiry(nil) // every expiry task is lost
	var pending, paid []*Order
	for i := 0; i < 12; i++ {
		o, err := e.create(e.user(i), e.sellable()[i*3:i*3+3]...)
		if err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			e.pay(o)
			paid = append(paid, o)
			// the sell step after the commit was lost: the seats are still only held
			for _, s := range o.Seats {
				e.rdb.HSet(ctx, e.seats.Keys(e.show.ID)[0], strconv.FormatInt(s.SeatID, 10), heldBy(o))
			}
			continue
		}
		pending = append(pending, o)
	}
	// two processes died between the hold and the commit
	for i, seat := range e.sellable()[100:102] {
		if out, err := e.seats.Hold(ctx, e.show.ID, NewOrderNo(e.clock.Now()), e.user(100+i), 4,
			[]SeatRef{{ID: seat, Zone: "standard"}}); err != nil || !out.OK() {
			t.Fatalf("ghost hold: %+v %v", out, err)
		}
	}
	e.clock.Advance(15*time.Minute + 10*time.Second)
	run, err := newReconciler(e, nil).Run(ctx, ReconcileOptions{Trigger: TriggerCron})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(findingsOf(run, FindingOverdueOrder)); n != len(pending) {
		t.Errorf("%d overdue orders expired, want %d", n, len(pending))
	}
	if n := len(findingsOf(run, FindingHoldWithoutOrder)); n != 2 {
		t.Errorf("%d ghost holds released, want 2", n)
	}
	if n := len(findingsOf(run, FindingPaidNotSold)); n != 3*len(paid) {
		t.Errorf("%d paid seats sold, want %d", n, 3*len(paid))
	}
	var left int
	if err := e.db.Get(&left, "SELECT COUNT(*) FROM orders WHERE status = 'pending'"); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d orders still pending after their deadline and one run", left)
	}
	states, err := e.seats.States(ctx, e.show.ID)
	if err != nil {
		t.Fatal(err)
	}
	for id, v := range states {
		if st, _, _ := SeatValue(v); st == StateHeld {
			t.Errorf("seat %d is still held (%s)", id, v)
		}
	}
	e.checkInvariants()
}
