package invariants

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
	"seatflow/services/reconcile"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// Fault tests: each injects a failure of a store or a process step, lets the system
// (expiry, the seat-sync outbox, reconciliation) converge, and ends with the invariant
// check, logging how long convergence took from the fault to the clean check.

const faultGrace = 60 * time.Second

// faultConvergeBudget is how long after a fault Redis must agree with MySQL again.
const faultConvergeBudget = 10 * time.Second

// TestFault_RedisWipedAndRestartedDuringSale: buyers keep creating, paying and
// cancelling while Redis is flushed (FLUSHALL) and then restarted empty (SHUTDOWN
// NOSAVE, start again). Afterwards reconciliation rebuilds the seat maps nobody
// reloaded (missing_map) and makes Redis equal MySQL without re-creating any hold of an
// order that is not live, within faultConvergeBudget of the flush with the clock
// standing still (the instance registry, not the grace, clears young orphan holds); the pending orders whose expiry tasks vanished with Redis are
// left alone until their deadline and then expired by the overdue sweep.
func TestFault_RedisWipedAndRestartedDuringSale(t *testing.T) {
	e, pr := testenv.NewPrivateRedisEnv(t)
	e.QuietLogs()
	ctx := context.Background()
	q := testenv.NewRedisExpiryQueue(e.RDB)
	e.Orders.SetExpiry(q)
	quiet := e.OnSaleShow(e.Hall.ID, 1) // nobody touches it after the wipe
	users := e.BulkUsers(40)

	// before the rush: pending orders on both shows (their tasks are in Redis) and a
	// paid one on the quiet show
	var early []*services.Order
	for i, spec := range []struct {
		show  *services.Show
		seats []string
	}{{e.Show, []string{"A1", "A2"}}, {e.Show, []string{"B1"}}, {quiet, []string{"A1"}}, {quiet, []string{"C3", "C4"}}} {
		o, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: users[i], ShowID: spec.show.ID, SeatIDs: e.SeatIDs(spec.seats...)})
		if err != nil {
			t.Fatal(err)
		}
		early = append(early, o)
	}
	if err := e.PayOrder(early[3]); err != nil {
		t.Fatal(err)
	}
	for _, o := range early[:3] {
		if ok, _ := q.ExpiryScheduled(ctx, o.OrderNo); !ok {
			t.Fatalf("order %s has no expiry task before the wipe", o.OrderNo)
		}
	}

	// this process in the instance registry, beating through the faults
	instance := store.NewInstances(e.RDB, "sf", store.CreatesInFlight)
	beatCtx, stopBeat := context.WithCancel(ctx)
	defer stopBeat()
	go instance.Run(beatCtx, nil)

	sellable := e.Sellable()
	var mu sync.Mutex
	outcomes := map[string]int{}
	count := func(what string) { mu.Lock(); outcomes[what]++; mu.Unlock() }
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for b := 0; b < 8; b++ {
		wg.Add(1)
		go func(b int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(b), 42))
			for {
				select {
				case <-stop:
					return
				default:
				}
				ids := map[int64]bool{}
				for n := 1 + rng.IntN(2); len(ids) < n; {
					ids[sellable[rng.IntN(len(sellable))]] = true
				}
				o := e.Buy(t, users[4+rng.IntN(len(users)-4)], e.Show.ID, ids, count)
				if o == nil {
					continue
				}
				switch rng.IntN(3) {
				case 0:
					if err := e.PayOrder(o); err != nil && services.ErrorCode(err) != services.CodeUnavailable {
						t.Errorf("pay %s: %v", o.OrderNo, err)
					}
					count("paid")
				case 1:
					if _, err := e.Orders.Cancel(ctx, o.UserID, o.OrderNo); err != nil && services.ErrorCode(err) != services.CodeUnavailable {
						t.Errorf("cancel %s: %v", o.OrderNo, err)
					}
					count("cancelled")
				}
			}
		}(b)
	}
	time.Sleep(300 * time.Millisecond)
	faultAt := time.Now()
	pr.FlushAll()
	time.Sleep(300 * time.Millisecond)
	pr.Stop()
	time.Sleep(200 * time.Millisecond)
	pr.Start()
	time.Sleep(300 * time.Millisecond)
	close(stop)
	wg.Wait()
	t.Logf("buyers during the faults: %v; seat-sync outbox rows: %d", outcomes, e.SeatSyncRows())
	if outcomes["created"] == 0 {
		t.Fatal("no order was created: the test did not exercise a sale")
	}

	var pending []string
	if err := e.DB.Select(&pending, "SELECT order_no FROM orders WHERE status = 'pending'"); err != nil {
		t.Fatal(err)
	}
	lost := 0
	for _, no := range pending {
		if ok, _ := q.ExpiryScheduled(ctx, no); !ok {
			lost++
		}
	}
	for _, o := range early[:3] {
		if ok, _ := q.ExpiryScheduled(ctx, o.OrderNo); ok {
			t.Errorf("order %s still has its expiry task after the wipe", o.OrderNo)
		}
	}

	// converge with the clock standing still (every hold younger than the grace, long
	// before any deadline): the heartbeat registry, lost with Redis's data and made again
	// by the next beat, tells that no create of this process is in flight any more
	r := reconcile.NewReconciler(e.DB, e.Catalog, e.Seats, e.Orders, e.Clock, reconcile.ReconcileConfig{Grace: faultGrace,
		Instances: instance, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	found := map[string]int{}
	c := e.ReconcileUntilClean(r, 1, e.Show, quiet)
	for {
		for k, n := range c.Findings {
			found[k] += n
		}
		if c.Clean || time.Since(faultAt) > faultConvergeBudget {
			break
		}
		time.Sleep(200 * time.Millisecond)
		c = e.ReconcileUntilClean(r, 1, e.Show, quiet)
	}
	c.Findings = found
	converged := time.Since(faultAt)
	if !c.Clean {
		t.Errorf("not clean %s after the FLUSHALL (budget %s): %s", converged.Round(time.Millisecond), faultConvergeBudget, c)
	}
	if c.Findings[seats.FindingMissingMap] == 0 {
		t.Errorf("no missing_map found, but nobody reloaded the quiet show's map: %s", c)
	}
	for _, s := range []*services.Show{e.Show, quiet} {
		if v := e.RDB.Exists(ctx, e.Seats.Keys(s.ID)...).Val(); v != 3 {
			t.Errorf("show %d: %d of its 3 seat-cache keys exist", s.ID, v)
		}
	}
	var stillPending int
	e.DB.Get(&stillPending, "SELECT COUNT(*) FROM orders WHERE status = 'pending'")
	if stillPending != len(pending) {
		t.Errorf("%d orders pending after reconciling before any deadline, want %d", stillPending, len(pending))
	}
	e.CheckInvariants()
	e.CheckInvariantsOf(quiet)
	t.Logf("converged in %s from the FLUSHALL (clock standing still, the %s grace not waited for; %s); invariant check: %s",
		converged.Round(time.Millisecond), faultGrace, c, testenv.Verdict(t))

	// the deadlines pass: the tasks that vanished never run, the overdue sweep ends the orders
	e.Clock.Advance(15*time.Minute + 6*time.Second)
	sweepAt := time.Now()
	c = e.ReconcileUntilClean(r, 3, e.Show, quiet)
	if c.Findings[seats.FindingOverdueOrder] != len(pending) {
		t.Errorf("overdue sweep found %d orders, want the %d pending ones (%d of them without a task): %s",
			c.Findings[seats.FindingOverdueOrder], len(pending), lost, c)
	}
	e.DB.Get(&stillPending, "SELECT COUNT(*) FROM orders WHERE status = 'pending'")
	if stillPending != 0 || !c.Clean {
		t.Errorf("%d orders still pending past their deadline; %s", stillPending, c)
	}
	e.CheckInvariants()
	e.CheckInvariantsOf(quiet)
	t.Logf("converged in %s after the deadlines (clock moved past deadline + %s slack; %d pending orders, %d had lost their task; %s); invariant check: %s",
		time.Since(sweepAt).Round(time.Millisecond), 5*time.Second, len(pending), lost, c, testenv.Verdict(t))
}

// TestFault_ExpiryTasks: an expiry task that is deleted, one delivered twice at once,
// and one retried after its order expired and the seat was sold again.
func TestFault_ExpiryTasks(t *testing.T) {
	ctx := context.Background()

	t.Run("task deleted", func(t *testing.T) {
		e := testenv.NewTestEnv(t, testenv.Unlimited)
		e.QuietLogs()
		a := e.User(1)
		o, err := e.Create(a, e.SeatIDs("D4", "D5")...)
		if err != nil {
			t.Fatal(err)
		}
		faultAt := time.Now()
		e.Expiry.Mu.Lock()
		delete(e.Expiry.Scheduled, o.OrderNo) // the task is gone: nothing will expire the order
		e.Expiry.Mu.Unlock()
		r := testenv.FaultReconciler(e, faultGrace, nil)
		// before the deadline, and within the slack after it, the order is left alone
		for _, at := range []time.Duration{15*time.Minute - time.Second, 15*time.Minute + 2*time.Second} {
			e.Clock.Advance(at - e.Clock.Now().Sub(o.CreatedAt))
			if _, err := r.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerCron}); err != nil {
				t.Fatal(err)
			}
			if s := e.OrderStatus(o.OrderNo); s != services.OrderPending {
				t.Fatalf("order is %s at %s after creation, want pending", s, at)
			}
		}
		e.Clock.Advance(4 * time.Second) // deadline + 6 s: past the 5 s slack
		c := e.ReconcileUntilClean(r, 3, e.Show)
		if c.Findings[seats.FindingOverdueOrder] != 1 || !c.Clean {
			t.Errorf("want one overdue order expired: %s", c)
		}
		if s := e.OrderStatus(o.OrderNo); s != services.OrderExpired {
			t.Errorf("order is %s, want expired", s)
		}
		for _, id := range e.SeatIDs("D4", "D5") {
			if v := e.SeatVal(e.Show.ID, id); v != "F" {
				t.Errorf("seat %d is %q, want free", id, v)
			}
		}
		if e.UserCount(e.Show.ID, a) != "0" || e.ZoneFree(e.Show.ID, "standard") != "140" {
			t.Errorf("counters: user %q, standard free %q", e.UserCount(e.Show.ID, a), e.ZoneFree(e.Show.ID, "standard"))
		}
		e.CheckInvariants()
		t.Logf("converged in %s (clock moved to deadline + 6 s, past the 5 s slack; %s); invariant check: %s",
			time.Since(faultAt).Round(time.Millisecond), c, testenv.Verdict(t))
	})

	t.Run("delivered twice at once", func(t *testing.T) {
		e := testenv.NewTestEnv(t, testenv.Unlimited)
		e.QuietLogs()
		a, b := e.User(1), e.User(2)
		o, err := e.Create(a, e.SeatIDs("E1", "E2", "H1")...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Create(b, e.SeatIDs("E3")...); err != nil { // a bystander whose counters must not move
			t.Fatal(err)
		}
		e.Clock.Advance(15 * time.Minute)
		faultAt := time.Now()
		const deliveries = 6
		won := make(chan bool, deliveries)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := 0; i < deliveries; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				ok, err := e.Orders.Expire(ctx, o.OrderNo)
				if err != nil {
					t.Errorf("delivery: %v", err)
				}
				won <- ok
			}()
		}
		close(start)
		wg.Wait()
		close(won)
		winners := 0
		for ok := range won {
			if ok {
				winners++
			}
		}
		if winners != 1 {
			t.Errorf("%d deliveries expired the order, want exactly 1", winners)
		}
		if e.UserCount(e.Show.ID, a) != "0" || e.UserCount(e.Show.ID, b) != "1" ||
			e.ZoneFree(e.Show.ID, "standard") != "139" || e.ZoneFree(e.Show.ID, "premium") != "59" {
			t.Errorf("counters after %d deliveries: A %q, B %q, standard free %q, premium free %q", deliveries,
				e.UserCount(e.Show.ID, a), e.UserCount(e.Show.ID, b), e.ZoneFree(e.Show.ID, "standard"), e.ZoneFree(e.Show.ID, "premium"))
		}
		before := e.State()
		if ok, err := e.Orders.Expire(ctx, o.OrderNo); ok || err != nil {
			t.Errorf("a late delivery: %v %v", ok, err)
		}
		if after := e.State(); after != before {
			t.Errorf("a late delivery changed something:\n%s", testenv.StateDiff(before, after))
		}
		e.CheckInvariants()
		t.Logf("converged in %s (%d deliveries, no reconciliation; clock at the deadline); invariant check: %s",
			time.Since(faultAt).Round(time.Millisecond), deliveries, testenv.Verdict(t))
	})

	t.Run("retried after the seat was sold again", func(t *testing.T) {
		e := testenv.NewTestEnv(t, testenv.Unlimited)
		e.QuietLogs()
		a, b, c := e.User(1), e.User(2), e.User(3)
		ids := e.SeatIDs("F5", "F6")
		oa, err := e.Create(a, ids...)
		if err != nil {
			t.Fatal(err)
		}
		e.Clock.Advance(15 * time.Minute)
		if ok, err := e.Orders.Expire(ctx, oa.OrderNo); !ok || err != nil {
			t.Fatalf("first delivery: %v %v", ok, err)
		}
		ob, err := e.Create(b, ids[0]) // B now holds F5
		if err != nil {
			t.Fatal(err)
		}
		oc, err := e.Create(c, ids[1]) // C buys F6
		if err != nil {
			t.Fatal(err)
		}
		if err := e.PayOrder(oc); err != nil {
			t.Fatal(err)
		}
		before := e.State()
		faultAt := time.Now()
		// the task's first run timed out after its work was done: asynq runs it again
		if ok, err := e.Orders.Expire(ctx, oa.OrderNo); ok || err != nil {
			t.Errorf("the retried task: %v %v", ok, err)
		}
		// and its seat release is attempted again, from the outbox and directly
		e.Exec("INSERT INTO seat_syncs (order_id, attempts, last_error, created_at, next_attempt_at) VALUES (?, 0, 'timeout', ?, ?)",
			oa.ID, e.Clock.Now(), e.Clock.Now())
		if n, err := e.Orders.RetrySeatSyncs(ctx, 10); n != 1 || err != nil {
			t.Errorf("seat-sync retry of A: %d %v", n, err)
		}
		refs := []seats.SeatRef{{ID: ids[0], Zone: "standard"}, {ID: ids[1], Zone: "standard"}}
		for _, fromSold := range []bool{false, true} {
			if n, err := e.Seats.Release(ctx, e.Show.ID, oa.OrderNo, refs, fromSold); n != 0 || err != nil {
				t.Errorf("stale release of A (from sold %v): freed %d, %v", fromSold, n, err)
			}
		}
		if after := e.State(); after != before {
			t.Errorf("the stale retries of A changed something:\n%s", testenv.StateDiff(before, after))
		}
		if v := e.SeatVal(e.Show.ID, ids[0]); v != testenv.HeldBy(ob) {
			t.Errorf("F5 is %q, want held by B", v)
		}
		if v := e.SeatVal(e.Show.ID, ids[1]); v != testenv.SoldTo(oc) {
			t.Errorf("F6 is %q, want sold to C", v)
		}
		if e.UserCount(e.Show.ID, a) != "0" || e.UserCount(e.Show.ID, b) != "1" || e.UserCount(e.Show.ID, c) != "1" {
			t.Errorf("counters: A %q, B %q, C %q", e.UserCount(e.Show.ID, a), e.UserCount(e.Show.ID, b), e.UserCount(e.Show.ID, c))
		}
		if n := e.SeatSyncRows(); n != 0 {
			t.Errorf("%d seat-sync rows left", n)
		}
		e.CheckInvariants()
		t.Logf("converged in %s (no reconciliation needed; clock at A's deadline); invariant check: %s",
			time.Since(faultAt).Round(time.Millisecond), testenv.Verdict(t))
	})
}

// TestFault_RedisPausedDuringCancelAndPay: while Redis sleeps (DEBUG SLEEP 5) orders are
// cancelled and paid. The calls answer from MySQL, and each failed Redis step lands in
// the seat-sync outbox. Once Redis is back the outbox alone brings Redis in line with
// MySQL (no reconciliation). Then the same drift (the seat cache as it was before the
// six Redis steps) is put back, and reconciliation alone repairs it too.
func TestFault_RedisPausedDuringCancelAndPay(t *testing.T) {
	e, pr := testenv.NewPrivateRedisEnv(t)
	e.QuietLogs()
	ctx := context.Background()
	users := e.BulkUsers(6)
	var toCancel, toPay []*services.Order
	var pays []string
	for i, seats := range [][]string{{"A1", "A2"}, {"B1"}, {"C1"}, {"D1", "D2"}, {"E1"}, {"H1"}} {
		o, err := e.Create(users[i], e.SeatIDs(seats...)...)
		if err != nil {
			t.Fatal(err)
		}
		if i < 3 {
			toCancel = append(toCancel, o)
			continue
		}
		toPay = append(toPay, o)
		p, _, err := e.Payments.Start(ctx, o.UserID, o.OrderNo, "demo")
		if err != nil {
			t.Fatal(err)
		}
		pays = append(pays, p.PaymentID)
	}
	beforeSteps := e.ShowKeys(e.Show.ID)

	faultAt := time.Now()
	awake := pr.Sleep(5 * time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var slowest time.Duration
	timed := func(f func() error, what string) {
		defer wg.Done()
		start := time.Now()
		if err := f(); err != nil {
			t.Errorf("%s while Redis sleeps: %v", what, err)
		}
		mu.Lock()
		slowest = max(slowest, time.Since(start))
		mu.Unlock()
	}
	for _, o := range toCancel {
		wg.Add(1)
		go timed(func() error {
			got, err := e.Orders.Cancel(ctx, o.UserID, o.OrderNo)
			if err == nil && got.Status != services.OrderCancelled {
				return errors.New("status " + got.Status)
			}
			return err
		}, "cancel "+o.OrderNo)
	}
	for _, p := range pays {
		wg.Add(1)
		go timed(func() error { _, err := e.Payments.DemoDecide(ctx, p, true); return err }, "pay "+p)
	}
	wg.Wait()
	answered := time.Since(faultAt)
	if slowest > 7*time.Second {
		t.Errorf("the slowest call took %s while Redis slept 5 s", slowest)
	}
	for _, o := range toCancel {
		if s := e.OrderStatus(o.OrderNo); s != services.OrderCancelled {
			t.Errorf("order %s is %s in MySQL, want cancelled", o.OrderNo, s)
		}
	}
	for _, o := range toPay {
		if s := e.OrderStatus(o.OrderNo); s != services.OrderPaid {
			t.Errorf("order %s is %s in MySQL, want paid", o.OrderNo, s)
		}
	}
	if n := e.SeatSyncRows(); n != 6 {
		t.Errorf("%d rows in the seat-sync outbox, want 6 (every Redis step failed)", n)
	}
	<-awake
	// Redis runs the commands it received while asleep once it wakes; whatever it did,
	// the outbox must bring the cache in line
	early, err := testenv.FaultReconciler(e, 0, nil).Inspect(ctx, e.Show.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("calls answered within %s (slowest %s); Redis asleep %s; drift right after it woke: %d findings",
		answered.Round(time.Millisecond), slowest.Round(time.Millisecond), time.Since(faultAt).Round(time.Millisecond), len(early))

	e.Clock.Advance(2 * time.Second) // the outbox's first back-off is 1 s
	if n, err := e.Orders.RetrySeatSyncs(ctx, 100); n != 6 || err != nil {
		t.Errorf("seat-sync retries completed %d, %v; want 6", n, err)
	}
	if n := e.SeatSyncRows(); n != 0 {
		t.Errorf("%d rows left in the seat-sync outbox", n)
	}
	e.CheckInvariants()
	t.Logf("converged in %s through the seat-sync outbox alone (clock moved 2 s for its back-off, no reconciliation); invariant check: %s",
		time.Since(faultAt).Round(time.Millisecond), testenv.Verdict(t))

	// the reconciler alone: the seat cache as it was before the six Redis steps
	e.RestoreShowKeys(beforeSteps)
	replayAt := time.Now()
	r := testenv.FaultReconciler(e, faultGrace, nil)
	drift, err := r.Inspect(ctx, e.Show.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, f := range drift {
		kinds[f.Kind]++
	}
	if kinds[seats.FindingHoldWithoutOrder] != 4 || kinds[seats.FindingPaidNotSold] != 4 {
		t.Errorf("dry-run drift %v, want 4 hold_without_order (cancelled seats) and 4 paid_not_sold", kinds)
	}
	e.Clock.Advance(faultGrace)
	c := e.ReconcileUntilClean(r, 3, e.Show)
	if !c.Clean {
		t.Errorf("reconciliation did not converge: %s", c)
	}
	e.CheckInvariants()
	t.Logf("converged in %s by reconciliation alone from the same drift %v (clock moved %s, past the grace; %s); invariant check: %s",
		time.Since(replayAt).Round(time.Millisecond), kinds, faultGrace, c, testenv.Verdict(t))
}

// staleHold holds seats in Redis for an order that never reaches MySQL (its process
// died between the hold and the commit) and moves the clock past the grace period.
func staleHold(e *testenv.TestEnv, userID int64, labels ...string) string {
	e.T.Helper()
	no := e.OrphanHold(userID, labels...)
	e.Clock.Advance(faultGrace + time.Second)
	return no
}

// TestFault_TwoReconcilers: two instances' reconcilers started at once (one runs, the
// other is refused), and a run whose lease is taken over while it stalls: the run that
// took over repairs the show, the stalled run's repair is refused by the fence, it
// writes nothing and is stored as lease_lost.
func TestFault_TwoReconcilers(t *testing.T) {
	ctx := context.Background()
	leaseKey := "sf:{lease:reconcile}"

	t.Run("started at once", func(t *testing.T) {
		e := testenv.NewTestEnv(t, testenv.Unlimited)
		staleHold(e, e.User(1), "A5", "A6")
		faultAt := time.Now()
		entered := make(chan int, 4)
		release := make(chan struct{})
		rs := []*reconcile.Reconciler{testenv.FaultReconciler(e, faultGrace, nil), testenv.FaultReconciler(e, faultGrace, nil)}
		for i, r := range rs {
			r.SetPauseHook(func(stage string) {
				if stage == "show" {
					entered <- i
					<-release
				}
			})
		}
		start := make(chan struct{})
		results := make(chan error, 2)
		for _, r := range rs {
			go func() {
				<-start
				_, err := r.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerCron})
				results <- err
			}()
		}
		close(start)
		var first error
		select {
		case first = <-results:
		case <-time.After(10 * time.Second):
			t.Fatal("neither run returned")
		}
		if !errors.Is(first, reconcile.ErrReconcileBusy) {
			t.Errorf("the run that returned first: %v, want ErrReconcileBusy", first)
		}
		select {
		case <-entered:
		case <-time.After(10 * time.Second):
			t.Fatal("no run is inside")
		}
		close(release)
		if err := <-results; err != nil {
			t.Errorf("the run that got the lease: %v", err)
		}
		if n := len(entered); n != 0 {
			t.Errorf("%d more runs entered", n)
		}
		e.CheckInvariants()
		t.Logf("converged in %s (one run of two; clock moved %s past the grace); invariant check: %s",
			time.Since(faultAt).Round(time.Millisecond), time.Second, testenv.Verdict(t))
	})

	t.Run("lease taken over", func(t *testing.T) {
		e := testenv.NewTestEnv(t, testenv.Unlimited)
		staleHold(e, e.User(1), "A5", "A6")
		stalled, other := testenv.FaultReconciler(e, faultGrace, nil), testenv.FaultReconciler(e, faultGrace, nil)
		atRepair, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		stalled.SetPauseHook(func(stage string) {
			if stage == "repair" {
				once.Do(func() { close(atRepair); <-release })
			}
		})
		type result struct {
			run *reconcile.ReconcileRun
			err error
		}
		done := make(chan result, 1)
		go func() {
			run, err := stalled.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerCron})
			done <- result{run, err}
		}()
		<-atRepair
		faultAt := time.Now()
		oldToken := e.RDB.Get(ctx, leaseKey).Val()
		e.RDB.Del(ctx, leaseKey) // the lease ran out while the run stalled
		run, err := other.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerCron})
		if err != nil {
			t.Fatalf("the run that took over: %v", err)
		}
		fence := e.RDB.Get(ctx, e.Seats.FenceKey(e.Show.ID)).Val()
		if run.Fixed == 0 || fence == oldToken {
			t.Fatalf("the run that took over fixed %d, fence %q (stalled run's token %q)", run.Fixed, fence, oldToken)
		}
		before := e.RedisState()
		close(release)
		res := <-done
		if !errors.Is(res.err, reconcile.ErrLeaseLost) || res.run == nil || res.run.Status != reconcile.RunLeaseLost {
			t.Errorf("stalled run: %+v %v, want status lease_lost", res.run, res.err)
		}
		if after := e.RedisState(); after != before {
			t.Errorf("the stalled run wrote after losing its lease:\n%s", testenv.StateDiff(before, after))
		}
		if res.run != nil {
			stored, err := other.RunReport(ctx, res.run.ID)
			if err != nil || stored.Status != reconcile.RunLeaseLost {
				t.Errorf("stored run: %+v %v, want lease_lost", stored, err)
			}
		}
		e.CheckInvariants()
		t.Logf("converged in %s (the run that took over repaired; the stalled run with token %s was fenced by %s; clock moved %s past the grace); invariant check: %s",
			time.Since(faultAt).Round(time.Millisecond), oldToken, fence, time.Second, testenv.Verdict(t))
	})

	t.Run("lease taken over across a Redis wipe", func(t *testing.T) {
		e, pr := testenv.NewPrivateRedisEnv(t)
		u := e.User(1)
		warm := testenv.FaultReconciler(e, faultGrace, nil)
		for i := 0; i < 3; i++ { // a few runs before: the token counter is at 3
			if _, err := warm.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerCron}); err != nil {
				t.Fatal(err)
			}
		}
		staleHold(e, u, "A5")
		stalled, other := testenv.FaultReconciler(e, faultGrace, nil), testenv.FaultReconciler(e, faultGrace, nil)
		atRepair, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		stalled.SetPauseHook(func(stage string) {
			if stage == "repair" {
				once.Do(func() { close(atRepair); <-release })
			}
		})
		type result struct {
			run *reconcile.ReconcileRun
			err error
		}
		done := make(chan result, 1)
		go func() {
			run, err := stalled.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerCron})
			done <- result{run, err}
		}()
		<-atRepair
		oldToken := e.RDB.Get(ctx, leaseKey).Val()
		faultAt := time.Now()
		// the lease, its token counter, the fences and the seat maps are gone; a buyer
		// reloads the map
		pr.FlushAll()
		if err := e.Seats.Load(ctx, e.Show.ID); err != nil {
			t.Fatal(err)
		}
		staleHold(e, u, "A6") // another process dies between its hold and its commit
		run, err := other.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerCron})
		if err != nil || run.Fixed == 0 {
			t.Fatalf("the run after the wipe: %+v %v", run, err)
		}
		newToken := e.RDB.Get(ctx, e.Seats.FenceKey(e.Show.ID)).Val()
		before := e.RedisState()
		close(release)
		res := <-done
		if !errors.Is(res.err, reconcile.ErrLeaseLost) || res.run == nil || res.run.Status != reconcile.RunLeaseLost {
			t.Errorf("the run that lost its lease to the wipe finished as %+v (%v), want status lease_lost", res.run, res.err)
		}
		if after := e.RedisState(); after != before {
			t.Errorf("the run that lost its lease (token %s) wrote after the run with token %s:\n%s",
				oldToken, newToken, testenv.StateDiff(before, after))
		}
		// the next run that holds the lease must be able to repair the show
		staleHold(e, u, "A7")
		later := testenv.FaultReconciler(e, faultGrace, nil)
		c := e.ReconcileUntilClean(later, 1, e.Show)
		if !c.Clean {
			t.Errorf("the next run holding the lease cannot repair the show: %s", c)
		}
		if !c.Clean {
			c2 := e.ReconcileUntilClean(later, 10, e.Show)
			t.Logf("runs needed until the token counter passed the stale fence: %s", c2)
		}
		e.CheckInvariants()
		t.Logf("converged in %s (stalled token %s, token after the wipe %s, fence now %q; clock moved past the grace; %s); invariant check: %s",
			time.Since(faultAt).Round(time.Millisecond), oldToken, newToken, e.RDB.Get(ctx, e.Seats.FenceKey(e.Show.ID)).Val(), c, testenv.Verdict(t))
	})
}

// TestFault_MySQLDownDuringCreate: MariaDB becomes unreachable (the proxy in front of
// it is cut) while an order is being created, either with the insert done and the
// commit to come, or before the create starts. The service answers UNAVAILABLE (503),
// its Redis holds are released (Redis byte-identical to before), MySQL has nothing;
// once MariaDB is reachable again the same buyer books the same seats.
func TestFault_MySQLDownDuringCreate(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		atInsert bool
	}{{"cut at insert", true}, {"cut before create", false}} {
		t.Run(tc.name, func(t *testing.T) {
			e, proxy := testenv.NewProxiedEnv(t)
			e.QuietLogs()
			u := e.User(1)
			if _, err := e.Create(u, e.SeatIDs("J5")...); err != nil { // loads the map; the buyer's counter is 1
				t.Fatal(err)
			}
			want := e.SeatIDs("G7", "G8", "H7")
			redisBefore, dbBefore := e.RedisState(), e.DBState()

			reached, cut := make(chan struct{}), make(chan struct{})
			var armed sync.Once
			if tc.atInsert {
				e.Orders.SetFailHook(func(stage string) error {
					if stage == "insert" {
						armed.Do(func() { close(reached); <-cut })
					}
					return nil
				})
			}
			type result struct {
				o   *services.Order
				err error
			}
			done := make(chan result, 1)
			var faultAt time.Time
			if tc.atInsert {
				go func() { o, err := e.Create(u, want...); done <- result{o, err} }()
				select {
				case <-reached:
				case <-time.After(10 * time.Second):
					t.Fatal("the create never reached its insert")
				}
				for _, id := range want {
					if v := e.SeatVal(e.Show.ID, id); !strings.HasPrefix(v, "H|") {
						t.Fatalf("seat %d is %q at the insert, want held", id, v)
					}
				}
				faultAt = time.Now()
				proxy.Cut()
				close(cut)
			} else {
				if _, err := e.Catalog.CachedShow(ctx, e.Show.ID); err != nil { // fresh in the order path's cache
					t.Fatal(err)
				}
				faultAt = time.Now()
				proxy.Cut()
				go func() { o, err := e.Create(u, want...); done <- result{o, err} }()
			}
			res := <-done
			if services.ErrorCode(res.err) != services.CodeUnavailable {
				t.Errorf("create with MySQL down: %+v %v, want UNAVAILABLE (503)", res.o, res.err)
			}
			if after := e.RedisState(); after != redisBefore {
				t.Errorf("Redis changed by the failed create:\n%s", testenv.StateDiff(redisBefore, after))
			}
			proxy.Restore()
			restoredAt := time.Now()
			if after := e.DBState(); after != dbBefore {
				t.Errorf("MySQL changed by the failed create:\n%s\nwant\n%s", after, dbBefore)
			}
			o, err := e.Create(u, want...)
			if err != nil {
				t.Fatalf("the same buyer after MySQL is back: %v", err)
			}
			for _, id := range want {
				if v := e.SeatVal(e.Show.ID, id); v != testenv.HeldBy(o) {
					t.Errorf("seat %d is %q, want held by the new order", id, v)
				}
			}
			e.CheckInvariants()
			t.Logf("converged in %s (MySQL unreachable for %s; no reconciliation needed, nothing was written); invariant check: %s",
				time.Since(faultAt).Round(time.Millisecond), restoredAt.Sub(faultAt).Round(time.Millisecond), testenv.Verdict(t))
		})
	}
}
