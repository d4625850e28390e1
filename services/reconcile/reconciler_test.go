package reconcile_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/reconcile"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// Reconciliation against the real MariaDB and Redis: every kind of drift is found and
// repaired so that the invariant check (the same comparison) is clean afterwards.

// fakeTasks is an ExpiryTasks that knows which orders have an expiry task.
type fakeTasks struct {
	mu      sync.Mutex
	have    map[string]bool
	created []string
}

func (f *fakeTasks) EnsureExpiry(_ context.Context, no string, _ time.Time) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.have[no] {
		return false, nil
	}
	f.have[no] = true
	f.created = append(f.created, no)
	return true, nil
}

func (f *fakeTasks) ExpiryCovered(_ context.Context, nos []string) (map[string]bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]bool{}
	for _, no := range nos {
		out[no] = f.have[no]
	}
	return out, nil
}

func TestReconcileRepairsEachKindOfDrift(t *testing.T) {
	ctx := context.Background()
	seatKey := func(e *testenv.TestEnv) string { return e.Seats.Keys(e.Show.ID)[0] }
	cases := []struct {
		name    string
		kind    string
		advance time.Duration
		drift   func(e *testenv.TestEnv, o *services.Order)
		check   func(e *testenv.TestEnv, o *services.Order)
	}{
		{name: "hold of an order that never committed", kind: seats.FindingHoldWithoutOrder, drift: func(e *testenv.TestEnv, o *services.Order) {
			ghost := services.NewOrderNo(e.Clock.Now())
			b1 := e.SeatIDs("B1")[0]
			if out, err := e.Seats.Hold(ctx, e.Show.ID, ghost, e.User(2), 4, []seats.SeatRef{{ID: b1, Zone: "standard"}}); err != nil || !out.OK() {
				t.Fatalf("ghost hold: %+v %v", out, err)
			}
		}, check: func(e *testenv.TestEnv, o *services.Order) {
			if v := e.SeatVal(e.Show.ID, e.SeatIDs("B1")[0]); v != "F" {
				t.Errorf("B1 is %q after reconciliation, want free", v)
			}
		}},
		{name: "seat field of a pending order lost", kind: seats.FindingLiveNotHeld, drift: func(e *testenv.TestEnv, o *services.Order) {
			e.RDB.HDel(ctx, seatKey(e), strconv.FormatInt(o.Seats[0].SeatID, 10))
		}},
		{name: "seat of a pending order shown free", kind: seats.FindingLiveNotHeld, drift: func(e *testenv.TestEnv, o *services.Order) {
			e.RDB.HSet(ctx, seatKey(e), strconv.FormatInt(o.Seats[0].SeatID, 10), "F")
		}},
		{name: "paid seat left held", kind: seats.FindingPaidNotSold, drift: func(e *testenv.TestEnv, o *services.Order) {
			e.Pay(o)
			e.RDB.HSet(ctx, seatKey(e), strconv.FormatInt(o.Seats[1].SeatID, 10), testenv.HeldBy(o))
		}},
		{name: "sold seat of a pending order", kind: seats.FindingSoldNotPaid, drift: func(e *testenv.TestEnv, o *services.Order) {
			e.RDB.HSet(ctx, seatKey(e), strconv.FormatInt(o.Seats[0].SeatID, 10), testenv.SoldTo(o))
		}},
		{name: "free seat field lost", kind: seats.FindingSeatMismatch, drift: func(e *testenv.TestEnv, o *services.Order) {
			e.RDB.HDel(ctx, seatKey(e), strconv.FormatInt(e.SeatIDs("C5")[0], 10))
		}},
		{name: "field of a seat from no hall of this show", kind: seats.FindingSeatMismatch, drift: func(e *testenv.TestEnv, o *services.Order) {
			e.RDB.HSet(ctx, seatKey(e), "999999", seats.EncodeSeat(false, services.NewOrderNo(e.Clock.Now()), 77))
		}, check: func(e *testenv.TestEnv, o *services.Order) {
			if v := e.SeatVal(e.Show.ID, 999999); v != "" {
				t.Errorf("the foreign field is still %q", v)
			}
		}},
		{name: "zone count off", kind: seats.FindingZoneCount, drift: func(e *testenv.TestEnv, o *services.Order) {
			e.RDB.HIncrBy(ctx, e.Seats.Keys(e.Show.ID)[1], "standard", 3)
		}},
		{name: "purchase-limit count off", kind: seats.FindingUserCount, drift: func(e *testenv.TestEnv, o *services.Order) {
			e.RDB.HSet(ctx, e.Seats.Keys(e.Show.ID)[2], strconv.FormatInt(o.UserID, 10), "0")
		}},
		{name: "seat map flushed", kind: seats.FindingMissingMap, drift: func(e *testenv.TestEnv, o *services.Order) {
			e.RDB.FlushDB(ctx)
		}},
		{name: "pending order past its deadline", kind: seats.FindingOverdueOrder, advance: 16 * time.Minute, check: func(e *testenv.TestEnv, o *services.Order) {
			if s := e.OrderStatus(o.OrderNo); s != services.OrderExpired {
				t.Errorf("order is %s, want expired", s)
			}
			if v := e.SeatVal(e.Show.ID, o.Seats[0].SeatID); v != "F" {
				t.Errorf("seat of the expired order is %q, want free", v)
			}
		}},
		{name: "expiry task lost", kind: seats.FindingMissingExpiryTask},
		{name: "pending order of a cancelled show", kind: seats.FindingCancelledShow, drift: func(e *testenv.TestEnv, o *services.Order) {
			e.Exec("UPDATE shows SET status = 'cancelled' WHERE id = ?", e.Show.ID)
		}, check: func(e *testenv.TestEnv, o *services.Order) {
			if s := e.OrderStatus(o.OrderNo); s != services.OrderCancelled {
				t.Errorf("order of the cancelled show is %s, want cancelled", s)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := testenv.NewTestEnv(t, testenv.Unlimited)
			o, err := e.Create(e.User(1), e.SeatIDs("A1", "A2")...)
			if err != nil {
				t.Fatal(err)
			}
			if c.drift != nil {
				c.drift(e, o)
			}
			e.Clock.Advance(2*time.Minute + c.advance)
			tasks := &fakeTasks{have: map[string]bool{}}
			if c.kind != seats.FindingMissingExpiryTask {
				tasks.have[o.OrderNo] = true
			}
			rec := testenv.NewReconciler(e, tasks)
			run, err := rec.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerCLI})
			if err != nil {
				t.Fatal(err)
			}
			got := testenv.FindingsOf(run, c.kind)
			if len(got) == 0 {
				t.Fatalf("no %s finding; run found %+v", c.kind, run.Findings)
			}
			for _, f := range got {
				if !f.Fixed {
					t.Errorf("%s finding not fixed: %+v", c.kind, f)
				}
			}
			if run.Status != reconcile.RunDone || run.Fixed == 0 {
				t.Errorf("run status %s fixed %d", run.Status, run.Fixed)
			}
			if c.check != nil {
				c.check(e, o)
			}
			e.CheckInvariants()
			again, err := rec.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerCLI})
			if err != nil {
				t.Fatal(err)
			}
			if len(again.Findings) != 0 {
				t.Errorf("a second run still finds %+v", again.Findings)
			}
		})
	}
}

// A dry run reports the drift and changes nothing in Redis or MySQL but its own record.
func TestReconcileDryRunChangesNothing(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	o, err := e.Create(e.User(1), e.SeatIDs("A1", "A2")...)
	if err != nil {
		t.Fatal(err)
	}
	e.RDB.HDel(ctx, e.Seats.Keys(e.Show.ID)[0], strconv.FormatInt(o.Seats[0].SeatID, 10))
	e.RDB.HIncrBy(ctx, e.Seats.Keys(e.Show.ID)[1], "premium", -2)
	e.Clock.Advance(16 * time.Minute) // also overdue
	before := e.State()
	rec := testenv.NewReconciler(e, &fakeTasks{have: map[string]bool{}})
	run, err := rec.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerManual, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if after := e.State(); after != before {
		t.Errorf("a dry run changed the stores:\n%s", testenv.StateDiff(before, after))
	}
	if run.Fixed != 0 {
		t.Errorf("dry run fixed %d", run.Fixed)
	}
	for _, kind := range []string{seats.FindingLiveNotHeld, seats.FindingZoneCount, seats.FindingOverdueOrder} {
		if len(testenv.FindingsOf(run, kind)) == 0 {
			t.Errorf("dry run did not report %s: %+v", kind, run.Findings)
		}
	}
	stored, err := rec.RunReport(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !stored.DryRun || stored.Trigger != reconcile.TriggerManual || len(stored.Findings) != len(run.Findings) || stored.FinishedAt == nil {
		t.Errorf("stored run %+v does not match the report (%d findings)", stored, len(run.Findings))
	}
}

// Runs are listed newest first with their counts; an unknown run is NOT_FOUND.
func TestReconcileRunsAreStoredAndListed(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	if _, err := e.Create(e.User(1), e.SeatIDs("A1")...); err != nil {
		t.Fatal(err)
	}
	rec := testenv.NewReconciler(e, nil)
	admin := e.User(9)
	dead := e.Exec("INSERT INTO reconcile_runs (run_trigger, status, started_at) VALUES ('cron', 'running', ?)", e.Clock.Now().Add(-time.Hour))
	first, err := rec.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerCron})
	if err != nil {
		t.Fatal(err)
	}
	e.RDB.HSet(ctx, e.Seats.Keys(e.Show.ID)[1], "standard", "1")
	second, err := rec.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerManual, ActorID: admin, ShowID: e.Show.ID})
	if err != nil {
		t.Fatal(err)
	}
	runs, err := rec.Runs(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 || runs[0].ID != second.ID || runs[1].ID != first.ID {
		t.Fatalf("runs %+v, want the second then the first", runs)
	}
	if runs[2].ID != dead || runs[2].Status != reconcile.RunFailed || runs[2].Error == "" {
		t.Errorf("a run left running by a dead process: %+v, want failed with a reason", runs[2])
	}
	r := runs[0]
	if r.ActorID == nil || *r.ActorID != admin || r.ActorEmail == "" || r.ShowID == nil || *r.ShowID != e.Show.ID {
		t.Errorf("actor/scope not stored: %+v", r)
	}
	if r.FindingsCount != 1 || r.Fixed != 1 || r.ShowsChecked != 1 || r.Status != reconcile.RunDone {
		t.Errorf("counts: %+v", r)
	}
	if k := r.CountsByKind(); len(k) != 1 || k[seats.FindingZoneCount] != 1 {
		t.Errorf("listed counts by kind %v, want one zone_count", k)
	}
	if _, err := rec.RunReport(ctx, 999999); services.ErrorCode(err) != services.CodeNotFound {
		t.Errorf("unknown run: %v", err)
	}
	if _, err := rec.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerManual, ShowID: 999999}); services.ErrorCode(err) != services.CodeNotFound {
		t.Errorf("unknown show: %v", err)
	}
}

// An order that ends between the comparison and the repair is not left holding seats:
// the repair re-reads it and releases what it held for it (MySQL wins).
func TestReconcileOrderEndingDuringRepairKeepsNoHold(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	o, err := e.Create(e.User(1), e.SeatIDs("A1", "A2")...)
	if err != nil {
		t.Fatal(err)
	}
	e.RDB.HDel(ctx, e.Seats.Keys(e.Show.ID)[0], strconv.FormatInt(o.Seats[0].SeatID, 10))
	e.Clock.Advance(2 * time.Minute)
	rec := testenv.NewReconciler(e, nil)
	rec.SetPauseHook(func(stage string) {
		if stage == "repair" {
			if _, err := e.Orders.Cancel(ctx, o.UserID, o.OrderNo); err != nil {
				t.Error(err)
			}
		}
	})
	if _, err := rec.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerCLI}); err != nil {
		t.Fatal(err)
	}
	for _, s := range o.Seats {
		if v := e.SeatVal(e.Show.ID, s.SeatID); v != "F" {
			t.Errorf("seat %s of the cancelled order is %q, want free", s.Label, v)
		}
	}
	e.CheckInvariants()
}

// A buyer who holds a seat between the comparison and the repair keeps it: the repair
// is a compare-and-set on the value it read.
func TestReconcileRepairSkipsSeatsThatMovedMeanwhile(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	c5 := e.SeatIDs("C5")[0]
	e.RDB.HDel(ctx, e.Seats.Keys(e.Show.ID)[0], strconv.FormatInt(c5, 10))
	if _, err := e.Seats.States(ctx, e.Show.ID); err != nil { // map loaded before the drift
		t.Fatal(err)
	}
	e.RDB.HDel(ctx, e.Seats.Keys(e.Show.ID)[0], strconv.FormatInt(c5, 10))
	var buyer *services.Order
	rec := testenv.NewReconciler(e, nil)
	rec.SetPauseHook(func(stage string) {
		if stage == "repair" && buyer == nil {
			e.RDB.HSet(ctx, e.Seats.Keys(e.Show.ID)[0], strconv.FormatInt(c5, 10), "F")
			var err error
			if buyer, err = e.Create(e.User(2), c5); err != nil {
				t.Error(err)
			}
		}
	})
	run, err := rec.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerCLI})
	if err != nil {
		t.Fatal(err)
	}
	if f := testenv.FindingsOf(run, seats.FindingSeatMismatch); len(f) != 1 || f[0].Fixed {
		t.Errorf("the moved seat should be reported unfixed: %+v", run.Findings)
	}
	if buyer == nil || e.SeatVal(e.Show.ID, c5) != testenv.HeldBy(buyer) {
		t.Fatalf("the buyer lost seat C5: %q", e.SeatVal(e.Show.ID, c5))
	}
	e.CheckInvariants()
}

// One run at a time: a second real run gives up with ErrReconcileBusy (or waits), and
// a dry run needs no lease.
func TestReconcileOneRunAtATime(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	a, b := testenv.NewReconciler(e, nil), testenv.NewReconciler(e, nil)
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	a.SetPauseHook(func(string) { once.Do(func() { close(entered); <-release }) })
	done := make(chan error, 1)
	go func() { _, err := a.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerCron}); done <- err }()
	<-entered
	if _, err := b.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerCron}); !errors.Is(err, reconcile.ErrReconcileBusy) {
		t.Errorf("second run: %v, want busy", err)
	}
	if _, err := b.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerManual, DryRun: true}); err != nil {
		t.Errorf("a dry run while another runs: %v", err)
	}
	waited := make(chan error, 1)
	go func() {
		_, err := b.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerManual, Wait: 10 * time.Second})
		waited <- err
	}()
	time.Sleep(300 * time.Millisecond)
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := <-waited; err != nil {
		t.Errorf("a run that waits for the lease: %v", err)
	}
}

// Whatever garbage the seat cache holds, a run repairs it, stores its report and
// leaves the cache equal to MySQL.
func TestReconcileSurvivesACorruptCache(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name    string
		kind    string
		corrupt func(e *testenv.TestEnv)
	}{
		{"the seat map key is a string", seats.FindingMissingMap, func(e *testenv.TestEnv) {
			e.RDB.Del(ctx, e.Seats.Keys(e.Show.ID)[0])
			e.RDB.Set(ctx, e.Seats.Keys(e.Show.ID)[0], "garbage", 0)
		}},
		{"the zones key is a list", seats.FindingMissingMap, func(e *testenv.TestEnv) {
			e.RDB.Del(ctx, e.Seats.Keys(e.Show.ID)[1])
			e.RDB.RPush(ctx, e.Seats.Keys(e.Show.ID)[1], "x")
		}},
		{"an order number too long to store", seats.FindingHoldWithoutOrder, func(e *testenv.TestEnv) {
			e.RDB.HSet(ctx, e.Seats.Keys(e.Show.ID)[0], strconv.FormatInt(e.SeatIDs("C1")[0], 10), "S|ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ|41")
		}},
		{"an order number that is not UTF-8", seats.FindingHoldWithoutOrder, func(e *testenv.TestEnv) {
			e.RDB.HSet(ctx, e.Seats.Keys(e.Show.ID)[0], strconv.FormatInt(e.SeatIDs("C2")[0], 10), "H|\xff\xfe|41")
		}},
		{"an order number from the future", seats.FindingHoldWithoutOrder, func(e *testenv.TestEnv) {
			e.RDB.HSet(ctx, e.Seats.Keys(e.Show.ID)[0], strconv.FormatInt(e.SeatIDs("C3")[0], 10), seats.EncodeSeat(false, services.NewOrderNo(e.Clock.Now().Add(time.Hour)), 40))
		}},
		{"a zone the hall does not have", seats.FindingZoneCount, func(e *testenv.TestEnv) {
			e.RDB.HSet(ctx, e.Seats.Keys(e.Show.ID)[1], "vip", "12")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := testenv.NewTestEnv(t, testenv.Unlimited)
			e.QuietLogs()
			if _, err := e.Create(e.User(1), e.SeatIDs("A1", "A2")...); err != nil {
				t.Fatal(err)
			}
			other := e.OnSaleShow(e.Hall.ID, 1) // a second show with drift: it must be repaired too
			if _, err := e.Seats.States(ctx, other.ID); err != nil {
				t.Fatal(err)
			}
			e.RDB.HSet(ctx, e.Seats.Keys(other.ID)[1], "standard", "3")
			c.corrupt(e)
			e.Clock.Advance(2 * time.Minute)
			rec := testenv.NewReconciler(e, nil)
			run, err := rec.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerCLI})
			if err != nil {
				t.Fatalf("run: %v (%+v)", err, run)
			}
			if f := testenv.FindingsOf(run, c.kind); len(f) == 0 || !f[0].Fixed {
				t.Errorf("no fixed %s finding: %+v", c.kind, run.Findings)
			}
			stored, err := rec.RunReport(ctx, run.ID)
			if err != nil || stored.Status != reconcile.RunDone || len(stored.Findings) != len(run.Findings) {
				t.Errorf("stored run %+v (%v), want done with %d findings", stored, err, len(run.Findings))
			}
			if findings, err := rec.Inspect(ctx, other.ID, 0); err != nil || len(findings) != 0 {
				t.Errorf("the other show still has %+v (%v)", findings, err)
			}
			e.CheckInvariants()
		})
	}
}

// A lease key without an expiry was set by no holder: it is taken over instead of
// blocking every run for ever; a real holder's lease is respected.
func TestLeaseWithoutExpiryIsTakenOver(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	l := store.NewLease(e.RDB, "sf", "test", 10*time.Second)
	e.RDB.Set(ctx, "sf:{lease:test}", "garbage", 0)
	tok, err := l.TryAcquire(ctx)
	if err != nil || tok == 0 {
		t.Fatalf("lease without expiry not taken over: %d %v", tok, err)
	}
	if again, err := l.TryAcquire(ctx); err != nil || again != 0 {
		t.Errorf("a held lease was taken again: %d %v", again, err)
	}
	if ok, err := l.Renew(ctx, tok+1); ok || err != nil {
		t.Errorf("renewed with a wrong token: %v %v", ok, err)
	}
	if err := l.Release(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if next, err := l.TryAcquire(ctx); err != nil || next <= tok {
		t.Errorf("token after release %d, want more than %d (%v)", next, tok, err)
	}
}

// TestReconcile_UnloadedShowIsNoFinding: a show on sale whose seat map was simply never
// loaded (no live order) is loaded by the run without a finding: "not loaded yet" is not
// drift, and a run after every start would otherwise report one per show.
func TestReconcile_UnloadedShowIsNoFinding(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	rec := testenv.NewReconciler(e, &fakeTasks{have: map[string]bool{}})
	run, err := rec.Run(context.Background(), reconcile.ReconcileOptions{Trigger: reconcile.TriggerManual, ShowID: e.Show.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Findings) != 0 {
		t.Errorf("findings for a never-loaded show: %+v", run.Findings)
	}
	if cache, err := e.Seats.ReadCache(context.Background(), e.Show.ID); err != nil || cache.Seats == nil {
		t.Errorf("the run did not load the seat map: %v", err)
	}
}
