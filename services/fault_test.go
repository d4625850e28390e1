package services

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
)

// Fault tests: each injects a failure of a store or a process step, lets the system
// (expiry, the seat-sync outbox, reconciliation) converge, and ends with the invariant
// check, logging how long convergence took from the fault to the clean check.

const faultGrace = 60 * time.Second

// TestFault_RedisWipedAndRestartedDuringSale: buyers keep creating, paying and
// cancelling while Redis is flushed (FLUSHALL) and then restarted empty (SHUTDOWN
// NOSAVE, start again). Afterwards reconciliation rebuilds the seat maps nobody
// reloaded (missing_map) and makes Redis equal MySQL without re-creating any hold of an
// order that is not live; the pending orders whose expiry tasks vanished with Redis are
// left alone until their deadline and then expired by the overdue sweep.
func TestFault_RedisWipedAndRestartedDuringSale(t *testing.T) {
	e, pr := newPrivateRedisEnv(t)
	e.quietLogs()
	ctx := context.Background()
	q := newRedisExpiryQueue(e.rdb)
	e.orders.SetExpiry(q)
	quiet := e.onSaleShow(e.hall.ID, 1) // nobody touches it after the wipe
	users := e.bulkUsers(40)

	// before the rush: pending orders on both shows (their tasks are in Redis) and a
	// paid one on the quiet show
	var early []*Order
	for i, spec := range []struct {
		show  *Show
		seats []string
	}{{e.show, []string{"A1", "A2"}}, {e.show, []string{"B1"}}, {quiet, []string{"A1"}}, {quiet, []string{"C3", "C4"}}} {
		o, err := e.orders.Create(ctx, CreateOrderRequest{UserID: users[i], ShowID: spec.show.ID, SeatIDs: e.seatIDs(spec.seats...)})
		if err != nil {
			t.Fatal(err)
		}
		early = append(early, o)
	}
	if err := e.payOrder(early[3]); err != nil {
		t.Fatal(err)
	}
	for _, o := range early[:3] {
		if ok, _ := q.ExpiryScheduled(ctx, o.OrderNo); !ok {
			t.Fatalf("order %s has no expiry task before the wipe", o.OrderNo)
		}
	}

	sellable := e.sellable()
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
				o := e.buy(t, users[4+rng.IntN(len(users)-4)], e.show.ID, ids, count)
				if o == nil {
					continue
				}
				switch rng.IntN(3) {
				case 0:
					if err := e.payOrder(o); err != nil && ErrorCode(err) != CodeUnavailable {
						t.Errorf("pay %s: %v", o.OrderNo, err)
					}
					count("paid")
				case 1:
					if _, err := e.orders.Cancel(ctx, o.UserID, o.OrderNo); err != nil && ErrorCode(err) != CodeUnavailable {
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
	t.Logf("buyers during the faults: %v; seat-sync outbox rows: %d", outcomes, e.seatSyncRows())
	if outcomes["created"] == 0 {
		t.Fatal("no order was created: the test did not exercise a sale")
	}

	var pending []string
	if err := e.db.Select(&pending, "SELECT order_no FROM orders WHERE status = 'pending'"); err != nil {
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

	// converge: past the grace period (holds of in-flight creates are old enough), but
	// long before any deadline
	e.clock.Advance(faultGrace + time.Second)
	r := faultReconciler(e, faultGrace, nil)
	c := e.reconcileUntilClean(r, 5, e.show, quiet)
	converged := time.Since(faultAt)
	if !c.clean {
		t.Errorf("not clean after %s", c)
	}
	if c.findings[FindingMissingMap] == 0 {
		t.Errorf("no missing_map found, but nobody reloaded the quiet show's map: %s", c)
	}
	for _, s := range []*Show{e.show, quiet} {
		if v := e.rdb.Exists(ctx, e.seats.Keys(s.ID)...).Val(); v != 3 {
			t.Errorf("show %d: %d of its 3 seat-cache keys exist", s.ID, v)
		}
	}
	var stillPending int
	e.db.Get(&stillPending, "SELECT COUNT(*) FROM orders WHERE status = 'pending'")
	if stillPending != len(pending) {
		t.Errorf("%d orders pending after reconciling before any deadline, want %d", stillPending, len(pending))
	}
	e.checkInvariants()
	e.checkInvariantsOf(quiet)
	t.Logf("converged in %s from the FLUSHALL (clock moved %s past the %s grace; %s); invariant check: %s",
		converged.Round(time.Millisecond), time.Second, faultGrace, c, verdict(t))

	// the deadlines pass: the tasks that vanished never run, the overdue sweep ends the orders
	e.clock.Advance(15*time.Minute + 6*time.Second)
	sweepAt := time.Now()
	c = e.reconcileUntilClean(r, 3, e.show, quiet)
	if c.findings[FindingOverdueOrder] != len(pending) {
		t.Errorf("overdue sweep found %d orders, want the %d pending ones (%d of them without a task): %s",
			c.findings[FindingOverdueOrder], len(pending), lost, c)
	}
	e.db.Get(&stillPending, "SELECT COUNT(*) FROM orders WHERE status = 'pending'")
	if stillPending != 0 || !c.clean {
		t.Errorf("%d orders still pending past their deadline; %s", stillPending, c)
	}
	e.checkInvariants()
	e.checkInvariantsOf(quiet)
	t.Logf("converged in %s after the deadlines (clock moved past deadline + %s slack; %d pending orders, %d had lost their task; %s); invariant check: %s",
		time.Since(sweepAt).Round(time.Millisecond), 5*time.Second, len(pending), lost, c, verdict(t))
}

// TestFault_ExpiryTasks: an expiry task that is deleted, one delivered twice at once,
// and one retried after its order expired and the seat was sold again.
func TestFault_ExpiryTasks(t *testing.T) {
	ctx := context.Background()

	t.Run("task deleted", func(t *testing.T) {
		e := newTestEnv(t, unlimited)
		e.quietLogs()
		a := e.user(1)
		o, err := e.create(a, e.seatIDs("D4", "D5")...)
		if err != nil {
			t.Fatal(err)
		}
		faultAt := time.Now()
		e.expiry.mu.Lock()
		delete(e.expiry.scheduled, o.OrderNo) // the task is gone: nothing will expire the order
		e.expiry.mu.Unlock()
		r := faultReconciler(e, faultGrace, nil)
		// before the deadline, and within the slack after it, the order is left alone
		for _, at := range []time.Duration{15*time.Minute - time.Second, 15*time.Minute + 2*time.Second} {
			e.clock.Advance(at - e.clock.Now().Sub(o.CreatedAt))
			if _, err := r.Run(ctx, ReconcileOptions{Trigger: TriggerCron}); err != nil {
				t.Fatal(err)
			}
			if s := e.orderStatus(o.OrderNo); s != OrderPending {
				t.Fatalf("order is %s at %s after creation, want pending", s, at)
			}
		}
		e.clock.Advance(4 * time.Second) // deadline + 6 s: past the 5 s slack
		c := e.reconcileUntilClean(r, 3, e.show)
		if c.findings[FindingOverdueOrder] != 1 || !c.clean {
			t.Errorf("want one overdue order expired: %s", c)
		}
		if s := e.orderStatus(o.OrderNo); s != OrderExpired {
			t.Errorf("order is %s, want expired", s)
		}
		for _, id := range e.seatIDs("D4", "D5") {
			if v := e.seatVal(e.show.ID, id); v != "F" {
				t.Errorf("seat %d is %q, want free", id, v)
			}
		}
		if e.userCount(e.show.ID, a) != "0" || e.zoneFree(e.show.ID, "standard") != "140" {
			t.Errorf("counters: user %q, standard free %q", e.userCount(e.show.ID, a), e.zoneFree(e.show.ID, "standard"))
		}
		e.checkInvariants()
		t.Logf("converged in %s (clock moved to deadline + 6 s, past the 5 s slack; %s); invariant check: %s",
			time.Since(faultAt).Round(time.Millisecond), c, verdict(t))
	})

	t.Run("delivered twice at once", func(t *testing.T) {
		e := newTestEnv(t, unlimited)
		e.quietLogs()
		a, b := e.user(1), e.user(2)
		o, err := e.create(a, e.seatIDs("E1", "E2", "H1")...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.create(b, e.seatIDs("E3")...); err != nil { // a bystander whose counters must not move
			t.Fatal(err)
		}
		e.clock.Advance(15 * time.Minute)
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
				ok, err := e.orders.Expire(ctx, o.OrderNo)
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
		if e.userCount(e.show.ID, a) != "0" || e.userCount(e.show.ID, b) != "1" ||
			e.zoneFree(e.show.ID, "standard") != "139" || e.zoneFree(e.show.ID, "premium") != "59" {
			t.Errorf("counters after %d deliveries: A %q, B %q, standard free %q, premium free %q", deliveries,
				e.userCount(e.show.ID, a), e.userCount(e.show.ID, b), e.zoneFree(e.show.ID, "standard"), e.zoneFree(e.show.ID, "premium"))
		}
		before := e.state()
		if ok, err := e.orders.Expire(ctx, o.OrderNo); ok || err != nil {
			t.Errorf("a late delivery: %v %v", ok, err)
		}
		if after := e.state(); after != before {
			t.Errorf("a late delivery changed something:\n%s", stateDiff(before, after))
		}
		e.checkInvariants()
		t.Logf("converged in %s (%d deliveries, no reconciliation; clock at the deadline); invariant check: %s",
			time.Since(faultAt).Round(time.Millisecond), deliveries, verdict(t))
	})

	t.Run("retried after the seat was sold again", func(t *testing.T) {
		e := newTestEnv(t, unlimited)
		e.quietLogs()
		a, b, c := e.user(1), e.user(2), e.user(3)
		ids := e.seatIDs("F5", "F6")
		oa, err := e.create(a, ids...)
		if err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(15 * time.Minute)
		if ok, err := e.orders.Expire(ctx, oa.OrderNo); !ok || err != nil {
			t.Fatalf("first delivery: %v %v", ok, err)
		}
		ob, err := e.create(b, ids[0]) // B now holds F5
		if err != nil {
			t.Fatal(err)
		}
		oc, err := e.create(c, ids[1]) // C buys F6
		if err != nil {
			t.Fatal(err)
		}
		if err := e.payOrder(oc); err != nil {
			t.Fatal(err)
		}
		before := e.state()
		faultAt := time.Now()
		// the task's first run timed out after its work was done: asynq runs it again
		if ok, err := e.orders.Expire(ctx, oa.OrderNo); ok || err != nil {
			t.Errorf("the retried task: %v %v", ok, err)
		}
		// and its seat release is attempted again, from the outbox and directly
		e.exec("INSERT INTO seat_syncs (order_id, attempts, last_error, created_at, next_attempt_at) VALUES (?, 0, 'timeout', ?, ?)",
			oa.ID, e.clock.Now(), e.clock.Now())
		if n, err := e.orders.RetrySeatSyncs(ctx, 10); n != 1 || err != nil {
			t.Errorf("seat-sync retry of A: %d %v", n, err)
		}
		refs := []SeatRef{{ID: ids[0], Zone: "standard"}, {ID: ids[1], Zone: "standard"}}
		for _, fromSold := range []bool{false, true} {
			if n, err := e.seats.Release(ctx, e.show.ID, oa.OrderNo, refs, fromSold); n != 0 || err != nil {
				t.Errorf("stale release of A (from sold %v): freed %d, %v", fromSold, n, err)
			}
		}
		if after := e.state(); after != before {
			t.Errorf("the stale retries of A changed something:\n%s", stateDiff(before, after))
		}
		if v := e.seatVal(e.show.ID, ids[0]); v != heldBy(ob) {
			t.Errorf("F5 is %q, want held by B", v)
		}
		if v := e.seatVal(e.show.ID, ids[1]); v != soldTo(oc) {
			t.Errorf("F6 is %q, want sold to C", v)
		}
		if e.userCount(e.show.ID, a) != "0" || e.userCount(e.show.ID, b) != "1" || e.userCount(e.show.ID, c) != "1" {
			t.Errorf("counters: A %q, B %q, C %q", e.userCount(e.show.ID, a), e.userCount(e.show.ID, b), e.userCount(e.show.ID, c))
		}
		if n := e.seatSyncRows(); n != 0 {
			t.Errorf("%d seat-sync rows left", n)
		}
		e.checkInvariants()
		t.Logf("converged in %s (no reconciliation needed; clock at A's deadline); invariant check: %s",
			time.Since(faultAt).Round(time.Millisecond), verdict(t))
	})
}

// TestFault_RedisPausedDuringCancelAndPay: while Redis sleeps (DEBUG SLEEP 5) orders are
// cancelled and paid. The calls answer from MySQL, and each failed Redis step lands in
// the seat-sync outbox. Once Redis is back the outbox alone brings Redis in line with
// MySQL (no reconciliation). Then the same drift (the seat cache as it was before the
// six Redis steps) is put back, and reconciliation alone repairs it too.
func TestFault_RedisPausedDuringCancelAndPay(t *testing.T) {
	e, pr := newPrivateRedisEnv(t)
	e.quietLogs()
	ctx := context.Background()
	users := e.bulkUsers(6)
	var toCancel, toPay []*Order
	var pays []string
	for i, seats := range [][]string{{"A1", "A2"}, {"B1"}, {"C1"}, {"D1", "D2"}, {"E1"}, {"H1"}} {
		o, err := e.create(users[i], e.seatIDs(seats...)...)
		if err != nil {
			t.Fatal(err)
		}
		if i < 3 {
			toCancel = append(toCancel, o)
			continue
		}
		toPay = append(toPay, o)
		p, _, err := e.payments.Start(ctx, o.UserID, o.OrderNo, "demo")
		if err != nil {
			t.Fatal(err)
		}
		pays = append(pays, p.PaymentID)
	}
	beforeSteps := e.showKeys(e.show.ID)

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
			got, err := e.orders.Cancel(ctx, o.UserID, o.OrderNo)
			if err == nil && got.Status != OrderCancelled {
				return errors.New("status " + got.Status)
			}
			return err
		}, "cancel "+o.OrderNo)
	}
	for _, p := range pays {
		wg.Add(1)
		go timed(func() error { _, err := e.payments.DemoDecide(ctx, p, true); return err }, "pay "+p)
	}
	wg.Wait()
	answered := time.Since(faultAt)
	if slowest > 7*time.Second {
		t.Errorf("the slowest call took %s while Redis slept 5 s", slowest)
	}
	for _, o := range toCancel {
		if s := e.orderStatus(o.OrderNo); s != OrderCancelled {
			t.Errorf("order %s is %s in MySQL, want cancelled", o.OrderNo, s)
		}
	}
	for _, o := range toPay {
		if s := e.orderStatus(o.OrderNo); s != OrderPaid {
			t.Errorf("order %s is %s in MySQL, want paid", o.OrderNo, s)
		}
	}
	if n := e.seatSyncRows(); n != 6 {
		t.Errorf("%d rows in the seat-sync outbox, want 6 (every Redis step failed)", n)
	}
	<-awake
	// Redis runs the commands it received while asleep once it wakes; whatever it did,
	// the outbox must bring the cache in line
	early, err := faultReconciler(e, 0, nil).Inspect(ctx, e.show.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("calls answered within %s (slowest %s); Redis asleep %s; drift right after it woke: %d findings",
		answered.Round(time.Millisecond), slowest.Round(time.Millisecond), time.Since(faultAt).Round(time.Millisecond), len(early))

	e.clock.Advance(2 * time.Second) // the outbox's first back-off is 1 s
	if n, err := e.orders.RetrySeatSyncs(ctx, 100); n != 6 || err != nil {
		t.Errorf("seat-sync retries completed %d, %v; want 6", n, err)
	}
	if n := e.seatSyncRows(); n != 0 {
		t.Errorf("%d rows left in the seat-sync outbox", n)
	}
	e.checkInvariants()
	t.Logf("converged in %s through the seat-sync outbox alone (clock moved 2 s for its back-off, no reconciliation); invariant check: %s",
		time.Since(faultAt).Round(time.Millisecond), verdict(t))

	// the reconciler alone: the seat cache as it was before the six Redis steps
	e.restoreShowKeys(beforeSteps)
	replayAt := time.Now()
	r := faultReconciler(e, faultGrace, nil)
	drift, err := r.Inspect(ctx, e.show.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, f := range drift {
		kinds[f.Kind]++
	}
	if kinds[FindingHoldWithoutOrder] != 4 || kinds[FindingPaidNotSold] != 4 {
		t.Errorf("dry-run drift %v, want 4 hold_without_order (cancelled seats) and 4 paid_not_sold", kinds)
	}
	e.clock.Advance(faultGrace)
	c := e.reconcileUntilClean(r, 3, e.show)
	if !c.clean {
		t.Errorf("reconciliation did not converge: %s", c)
	}
	e.checkInvariants()
	t.Logf("converged in %s by reconciliation alone from the same drift %v (clock moved %s, past the grace; %s); invariant check: %s",
		time.Since(replayAt).Round(time.Millisecond), kinds, faultGrace, c, verdict(t))
}

// staleHold holds seats in Redis for an order that never reaches MySQL (its process
// died between the hold and the commit) and moves the clock past the grace period.
func (e *testEnv) staleHold(userID int64, labels ...string) string {
	e.t.Helper()
	no := NewOrderNo(e.clock.Now())
	var refs []SeatRef
	for _, id := range e.seatIDs(labels...) {
		s, _ := e.hall.Seat(id)
		refs = append(refs, SeatRef{ID: id, Zone: s.ZoneCode})
	}
	out, err := e.seats.Hold(context.Background(), e.show.ID, no, userID, e.show.PurchaseLimit, refs)
	if err != nil || !out.OK() {
		e.t.Fatalf("stale hold: %+v %v", out, err)
	}
	e.clock.Advance(faultGrace + time.Second)
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
		e := newTestEnv(t, unlimited)
		e.staleHold(e.user(1), "A5", "A6")
		faultAt := time.Now()
		entered := make(chan int, 4)
		release := make(chan struct{})
		rs := []*Reconciler{faultReconciler(e, faultGrace, nil), faultReconciler(e, faultGrace, nil)}
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
				_, err := r.Run(ctx, ReconcileOptions{Trigger: TriggerCron})
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
		if !errors.Is(first, ErrReconcileBusy) {
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
		e.checkInvariants()
		t.Logf("converged in %s (one run of two; clock moved %s past the grace); invariant check: %s",
			time.Since(faultAt).Round(time.Millisecond), time.Second, verdict(t))
	})

	t.Run("lease taken over", func(t *testing.T) {
		e := newTestEnv(t, unlimited)
		e.staleHold(e.user(1), "A5", "A6")
		stalled, other := faultReconciler(e, faultGrace, nil), faultReconciler(e, faultGrace, nil)
		atRepair, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		stalled.SetPauseHook(func(stage string) {
			if stage == "repair" {
				once.Do(func() { close(atRepair); <-release })
			}
		})
		type result struct {
			run *ReconcileRun
			err error
		}
		done := make(chan result, 1)
		go func() { run, err := stalled.Run(ctx, ReconcileOptions{Trigger: TriggerCron}); done <- result{run, err} }()
		<-atRepair
		faultAt := time.Now()
		oldToken := e.rdb.Get(ctx, leaseKey).Val()
		e.rdb.Del(ctx, leaseKey) // the lease ran out while the run stalled
		run, err := other.Run(ctx, ReconcileOptions{Trigger: TriggerCron})
		if err != nil {
			t.Fatalf("the run that took over: %v", err)
		}
		fence := e.rdb.Get(ctx, e.seats.fenceKey(e.show.ID)).Val()
		if run.Fixed == 0 || fence == oldToken {
			t.Fatalf("the run that took over fixed %d, fence %q (stalled run's token %q)", run.Fixed, fence, oldToken)
		}
		before := e.redisState()
		close(release)
		res := <-done
		if !errors.Is(res.err, errLeaseLost) || res.run == nil || res.run.Status != RunLeaseLost {
			t.Errorf("stalled run: %+v %v, want status lease_lost", res.run, res.err)
		}
		if after := e.redisState(); after != before {
			t.Errorf("the stalled run wrote after losing its lease:\n%s", stateDiff(before, after))
		}
		if res.run != nil {
			stored, err := other.RunReport(ctx, res.run.ID)
			if err != nil || stored.Status != RunLeaseLost {
				t.Errorf("stored run: %+v %v, want lease_lost", stored, err)
			}
		}
		e.checkInvariants()
		t.Logf("converged in %s (the run that took over repaired; the stalled run with token %s was fenced by %s; clock moved %s past the grace); invariant check: %s",
			time.Since(faultAt).Round(time.Millisecond), oldToken, fence, time.Second, verdict(t))
	})

	t.Run("lease taken over across a Redis wipe", func(t *testing.T) {
		e, pr := newPrivateRedisEnv(t)
		u := e.user(1)
		warm := faultReconciler(e, faultGrace, nil)
		for i := 0; i < 3; i++ { // a few runs before: the token counter is at 3
			if _, err := warm.Run(ctx, ReconcileOptions{Trigger: TriggerCron}); err != nil {
				t.Fatal(err)
			}
		}
		e.staleHold(u, "A5")
		stalled, other := faultReconciler(e, faultGrace, nil), faultReconciler(e, faultGrace, nil)
		atRepair, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		stalled.SetPauseHook(func(stage string) {
			if stage == "repair" {
				once.Do(func() { close(atRepair); <-release })
			}
		})
		type result struct {
			run *ReconcileRun
			err error
		}
		done := make(chan result, 1)
		go func() { run, err := stalled.Run(ctx, ReconcileOptions{Trigger: TriggerCron}); done <- result{run, err} }()
		<-atRepair
		oldToken := e.rdb.Get(ctx, leaseKey).Val()
		faultAt := time.Now()
		// the lease, its token counter, the fences and the seat maps are gone; a buyer
		// reloads the map
		pr.FlushAll()
		if err := e.seats.Load(ctx, e.show.ID); err != nil {
			t.Fatal(err)
		}
		e.staleHold(u, "A6") // another process dies between its hold and its commit
		run, err := other.Run(ctx, ReconcileOptions{Trigger: TriggerCron})
		if err != nil || run.Fixed == 0 {
			t.Fatalf("the run after the wipe: %+v %v", run, err)
		}
		newToken := e.rdb.Get(ctx, e.seats.fenceKey(e.show.ID)).Val()
		before := e.redisState()
		close(release)
		res := <-done
		if !errors.Is(res.err, errLeaseLost) || res.run == nil || res.run.Status != RunLeaseLost {
			t.Errorf("the run that lost its lease to the wipe finished as %+v (%v), want status lease_lost", res.run, res.err)
		}
		if after := e.redisState(); after != before {
			t.Errorf("the run that lost its lease (token %s) wrote after the run with token %s:\n%s",
				oldToken, newToken, stateDiff(before, after))
		}
		// the next run that holds the lease must be able to repair the show
		e.staleHold(u, "A7")
		later := faultReconciler(e, faultGrace, nil)
		c := e.reconcileUntilClean(later, 1, e.show)
		if !c.clean {
			t.Errorf("the next run holding the lease cannot repair the show: %s", c)
		}
		if !c.clean {
			c2 := e.reconcileUntilClean(later, 10, e.show)
			t.Logf("runs needed until the token counter passed the stale fence: %s", c2)
		}
		e.checkInvariants()
		t.Logf("converged in %s (stalled token %s, token after the wipe %s, fence now %q; clock moved past the grace; %s); invariant check: %s",
			time.Since(faultAt).Round(time.Millisecond), oldToken, newToken, e.rdb.Get(ctx, e.seats.fenceKey(e.show.ID)).Val(), c, verdict(t))
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
			e, proxy := newProxiedEnv(t)
			e.quietLogs()
			u := e.user(1)
			if _, err := e.create(u, e.seatIDs("J5")...); err != nil { // loads the map; the buyer's counter is 1
				t.Fatal(err)
			}
			want := e.seatIDs("G7", "G8", "H7")
			redisBefore, dbBefore := e.redisState(), e.dbState()

			reached, cut := make(chan struct{}), make(chan struct{})
			var armed sync.Once
			if tc.atInsert {
				e.orders.SetFailHook(func(stage string) error {
					if stage == "insert" {
						armed.Do(func() { close(reached); <-cut })
					}
					return nil
				})
			}
			type result struct {
				o   *Order
				err error
			}
			done := make(chan result, 1)
			var faultAt time.Time
			if tc.atInsert {
				go func() { o, err := e.create(u, want...); done <- result{o, err} }()
				select {
				case <-reached:
				case <-time.After(10 * time.Second):
					t.Fatal("the create never reached its insert")
				}
				for _, id := range want {
					if v := e.seatVal(e.show.ID, id); !strings.HasPrefix(v, "H|") {
						t.Fatalf("seat %d is %q at the insert, want held", id, v)
					}
				}
				faultAt = time.Now()
				proxy.Cut()
				close(cut)
			} else {
				if _, err := e.catalog.CachedShow(ctx, e.show.ID); err != nil { // fresh in the order path's cache
					t.Fatal(err)
				}
				faultAt = time.Now()
				proxy.Cut()
				go func() { o, err := e.create(u, want...); done <- result{o, err} }()
			}
			res := <-done
			if ErrorCode(res.err) != CodeUnavailable {
				t.Errorf("create with MySQL down: %+v %v, want UNAVAILABLE (503)", res.o, res.err)
			}
			if after := e.redisState(); after != redisBefore {
				t.Errorf("Redis changed by the failed create:\n%s", stateDiff(redisBefore, after))
			}
			proxy.Restore()
			restoredAt := time.Now()
			if after := e.dbState(); after != dbBefore {
				t.Errorf("MySQL changed by the failed create:\n%s\nwant\n%s", after, dbBefore)
			}
			o, err := e.create(u, want...)
			if err != nil {
				t.Fatalf("the same buyer after MySQL is back: %v", err)
			}
			for _, id := range want {
				if v := e.seatVal(e.show.ID, id); v != heldBy(o) {
					t.Errorf("seat %d is %q, want held by the new order", id, v)
				}
			}
			e.checkInvariants()
			t.Logf("converged in %s (MySQL unreachable for %s; no reconciliation needed, nothing was written); invariant check: %s",
				time.Since(faultAt).Round(time.Millisecond), restoredAt.Sub(faultAt).Round(time.Millisecond), verdict(t))
		})
	}
}
