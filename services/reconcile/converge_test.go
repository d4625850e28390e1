package reconcile_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/reconcile"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// convergeBudget is how long after a fault the seat cache must agree with MySQL again.
const convergeBudget = 10 * time.Second

// TestReconcile_DecidedRepairsSkipTheGrace: repairs MySQL already decides happen in the
// first run, with the clock standing still and every order younger than the 60 s grace:
// a hold of an order that ended (its release was lost), and a paid seat that the cache
// gives to a young order MySQL does not know. Before, both waited for the grace.
func TestReconcile_DecidedRepairsSkipTheGrace(t *testing.T) {
	ctx := context.Background()
	t.Run("hold of an ended order", func(t *testing.T) {
		e := testenv.NewTestEnv(t, testenv.Unlimited)
		o, err := e.Create(e.User(1), e.SeatIDs("A1", "A2")...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Orders.Cancel(ctx, o.UserID, o.OrderNo); err != nil {
			t.Fatal(err)
		}
		key := e.Seats.Keys(e.Show.ID)[0]
		for _, s := range o.Seats { // the release step lost: the seats stay held
			e.RDB.HSet(ctx, key, strconv.FormatInt(s.SeatID, 10), testenv.HeldBy(o))
		}
		run, err := testenv.NewReconciler(e, nil).Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerManual, ShowID: e.Show.ID})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range o.Seats {
			if v := e.SeatVal(e.Show.ID, s.SeatID); v != seats.SeatFree {
				t.Errorf("seat %d of the cancelled order is %q after the first run, want free", s.SeatID, v)
			}
		}
		if run.Fixed == 0 {
			t.Errorf("the run fixed nothing: %+v", run.Findings)
		}
		e.CheckInvariants()
	})
	t.Run("paid seat held by a young unknown order", func(t *testing.T) {
		e := testenv.NewTestEnv(t, testenv.Unlimited)
		o, err := e.Create(e.User(1), e.SeatIDs("B1", "B2")...)
		if err != nil {
			t.Fatal(err)
		}
		e.Pay(o)
		ghost := services.NewOrderNo(e.Clock.Now())
		seat := o.Seats[0].SeatID
		e.RDB.HSet(ctx, e.Seats.Keys(e.Show.ID)[0], strconv.FormatInt(seat, 10), "H|"+ghost+"|"+strconv.FormatInt(e.User(2), 10))
		if _, err := testenv.NewReconciler(e, nil).Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerManual, ShowID: e.Show.ID}); err != nil {
			t.Fatal(err)
		}
		if v := e.SeatVal(e.Show.ID, seat); v != testenv.SoldTo(o) {
			t.Errorf("the paid seat is %q after the first run, want %q", v, testenv.SoldTo(o))
		}
		e.CheckInvariants()
	})
}

// TestReconcile_HoldsOfADeadInstanceConvergeInSeconds: two instances beat in the
// registry; instance B holds a seat for a create still in flight (no order in MySQL, the
// order number younger than the grace, the test clock standing still). While B beats,
// runs leave the hold alone (it may still commit); once B stops beating (killed), runs
// release it within convergeBudget of the kill, long before the 60 s grace. A hold of a
// create in flight on the live instance A is likewise kept while A counts it and released
// by the first run after A's create ended.
func TestReconcile_HoldsOfADeadInstanceConvergeInSeconds(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	inA, inB := store.NewInFlight(), store.NewInFlight()
	a := store.NewInstances(e.RDB, "sf", inA)
	b := store.NewInstances(e.RDB, "sf", inB)
	actx, stopA := context.WithCancel(ctx)
	defer stopA()
	bctx, killB := context.WithCancel(ctx)
	defer killB()
	go a.Run(actx, nil)
	go b.Run(bctx, nil)
	rec := reconcile.NewReconciler(e.DB, e.Catalog, e.Seats, e.Orders, e.Clock, reconcile.ReconcileConfig{Instances: a})
	hold := func(label string, user int64) (int64, string) {
		no := services.NewOrderNo(e.Clock.Now())
		id := e.SeatIDs(label)[0]
		if out, err := e.Seats.Hold(ctx, e.Show.ID, no, e.User(int(user)), 4, []seats.SeatRef{{ID: id, Zone: "standard"}}); err != nil || !out.OK() {
			t.Fatalf("hold %s: %+v %v", label, out, err)
		}
		return id, no
	}
	runOnce := func() {
		t.Helper()
		if _, err := rec.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerManual, ShowID: e.Show.ID}); err != nil {
			t.Fatal(err)
		}
	}
	endA := inA.Begin(e.Clock.Now().UnixMilli())
	seatA, _ := hold("C2", 3)
	e.Clock.Advance(time.Second) // B's create is younger than A's
	endB := inB.Begin(e.Clock.Now().UnixMilli())
	defer endB()
	seatB, _ := hold("C1", 2)
	time.Sleep(store.InstanceLapse + time.Second) // the registry lists every live instance

	runOnce()
	if v := e.SeatVal(e.Show.ID, seatB); v == seats.SeatFree {
		t.Fatal("a run released the hold of a create in flight on a live instance")
	}
	if v := e.SeatVal(e.Show.ID, seatA); v == seats.SeatFree {
		t.Fatal("a run released the hold of a create in flight on the reconciling instance")
	}

	endA() // A's create ended without committing (its release lost)
	runOnce()
	if v := e.SeatVal(e.Show.ID, seatA); v != seats.SeatFree {
		t.Errorf("the hold of a create that ended on a live instance is %q after the next run, want free", v)
	}

	killB()
	killed := time.Now()
	for {
		runOnce()
		if e.SeatVal(e.Show.ID, seatB) == seats.SeatFree {
			break
		}
		if time.Since(killed) > convergeBudget {
			t.Fatalf("the dead instance's hold is still %q %s after the kill (grace %s)", e.SeatVal(e.Show.ID, seatB),
				time.Since(killed).Round(time.Millisecond), 60*time.Second)
		}
		time.Sleep(200 * time.Millisecond)
	}
	took := time.Since(killed)
	if fs, err := rec.Inspect(ctx, e.Show.ID, 0); err != nil || len(fs) != 0 {
		t.Errorf("drift after convergence: %+v %v", fs, err)
	}
	t.Logf("the dead instance's hold released %s after the kill (heartbeat lapse %s)", took.Round(time.Millisecond), store.InstanceLapse)
}
