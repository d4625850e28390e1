package invariants

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
	"seatflow/services/reconcile"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// Soak settings: orders hold their seats for soakHold; reconciliation runs every
// soakInterval with a grace of soakGrace and expires orders soakSlack past their deadline.
const (
	soakHold     = 8 * time.Second
	soakInterval = 2 * time.Second
	soakGrace    = 3 * time.Second
	soakSlack    = 500 * time.Millisecond
)

// Faults the soak injects.
const (
	faultFlushAll    = "FLUSHALL"
	faultRestart     = "redis restart"
	faultSleep       = "DEBUG SLEEP 2"
	faultLostTasks   = "expiry tasks lost"
	faultKilledHold  = "killed after hold"
	faultKilledAfter = "killed after commit"
)

// soakFault is one injected fault and how long the stores took to agree again.
type soakFault struct {
	kind      string
	detail    string
	converged time.Duration // -1: not within the bound
}

// TestSoak_FaultsUnderLoad runs many buyers against one show for SEATFLOW_SOAK_SECONDS
// (default 90) on a private redis-server while faults are injected one after another:
// FLUSHALL, Redis restarts, DEBUG SLEEP, lost expiry tasks, processes killed between a
// hold and its commit, and processes killed right after a committed cancel or payment
// (before the Redis step and the outbox). An expiry worker runs the tasks, the outbox
// is retried every second and reconciliation runs every 2 s. Each fault's convergence
// is measured; at the end every hold has ended, every order past its deadline was
// settled within deadline + one reconcile interval (plus the slack, and any time Redis
// was down), no seat is in two live orders or sold twice, and Redis equals MySQL.
// Only with SEATFLOW_SOAK=1 (make soak).
func TestSoak_FaultsUnderLoad(t *testing.T) {
	if os.Getenv("SEATFLOW_SOAK") != "1" {
		t.Skip("the soak runs with SEATFLOW_SOAK=1 (make soak)")
	}
	length := 90 * time.Second
	if v := os.Getenv("SEATFLOW_SOAK_SECONDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 10 {
			t.Fatalf("SEATFLOW_SOAK_SECONDS=%q: want a whole number of seconds >= 10", v)
		}
		length = time.Duration(n) * time.Second
	}
	e, pr := testenv.NewPrivateRedisEnv(t)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	clock := services.SystemClock{}
	now := clock.Now()
	e.Show = e.MakeShow(e.Hall.ID, services.ShowOnSale, now.Add(-time.Hour), now.Add(72*time.Hour))
	q := testenv.NewRedisExpiryQueue(e.RDB)
	e.Seats = seats.NewSeatStore(e.RDB, e.DB, e.Catalog, "sf")
	e.Orders = orders.NewOrders(e.DB, e.Catalog, e.Seats, e.Limiter, clock, orders.OrdersConfig{HoldFor: soakHold, Expiry: q, Logger: quiet})
	e.Payments = orders.NewPayments(e.DB, e.Orders, clock, []byte("soak-secret"), orders.DemoProvider{})
	rec := reconcile.NewReconciler(e.DB, e.Catalog, e.Seats, e.Orders, clock, reconcile.ReconcileConfig{Grace: soakGrace, ExpirySlack: soakSlack,
		Tasks: q, Logger: quiet})
	users := e.BulkUsers(400)
	sellable := e.Sellable()
	show := e.Show
	ctx := context.Background()

	var (
		statsMu sync.Mutex
		stats   = map[string]int{}
		outages []struct{ from, to time.Time }
	)
	count := func(what string) { statsMu.Lock(); stats[what]++; statsMu.Unlock() }
	outage := func(from, to time.Time) {
		statsMu.Lock()
		outages = append(outages, struct{ from, to time.Time }{from, to})
		statsMu.Unlock()
	}

	// background work of a process: expiry worker, outbox retries, reconciliation
	bgStop := make(chan struct{})
	var bg sync.WaitGroup
	every := func(d time.Duration, f func()) {
		bg.Add(1)
		go func() {
			defer bg.Done()
			tk := time.NewTicker(d)
			defer tk.Stop()
			for {
				select {
				case <-bgStop:
					return
				case <-tk.C:
					f()
				}
			}
		}()
	}
	every(200*time.Millisecond, func() {
		due, err := q.Due(ctx, clock.Now())
		if err != nil {
			return
		}
		for _, no := range due {
			cctx, cancel := context.WithTimeout(ctx, time.Second)
			claimed := q.RDB.ZRem(cctx, q.Key, no).Val() == 1
			cancel()
			if !claimed {
				continue
			}
			if _, err := e.Orders.Expire(ctx, no); err != nil {
				count("expiry task retried")
				_ = q.ScheduleExpiry(ctx, no, clock.Now().Add(time.Second))
			}
		}
	})
	every(time.Second, func() {
		if _, err := e.Orders.RetrySeatSyncs(ctx, 200); err != nil {
			count("outbox retry failed")
		}
	})
	var runMu sync.Mutex
	runStatus := map[string]int{}
	runFindings := map[string]int{}
	every(soakInterval, func() {
		rctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		run, err := rec.Run(rctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerCron})
		runMu.Lock()
		defer runMu.Unlock()
		switch {
		case run != nil:
			runStatus[run.Status]++
			for _, f := range run.Findings {
				runFindings[f.Kind]++
			}
		case err != nil:
			runStatus["not started: "+services.ErrorCode(err)]++
		}
	})

	// buyers
	var paidSeats atomic.Int64
	buyStop := make(chan struct{})
	var buyers sync.WaitGroup
	for b := 0; b < 24; b++ {
		buyers.Add(1)
		go func(b int) {
			defer buyers.Done()
			rng := rand.New(rand.NewPCG(uint64(b), uint64(time.Now().UnixNano())))
			pause := func(d time.Duration) bool {
				select {
				case <-buyStop:
					return false
				case <-time.After(d):
					return true
				}
			}
			for pause(time.Duration(100+rng.IntN(300)) * time.Millisecond) {
				n := 1 + rng.IntN(3)
				ids := map[int64]bool{}
				if states, err := e.Seats.States(ctx, show.ID); err == nil && rng.IntN(10) < 7 {
					for id, v := range states {
						if v == seats.SeatFree && len(ids) < n {
							ids[id] = true
						}
					}
				}
				for len(ids) < n {
					ids[sellable[rng.IntN(len(sellable))]] = true
				}
				o := e.Buy(t, users[rng.IntN(len(users))], show.ID, ids, count)
				if o == nil {
					continue
				}
				switch act := rng.IntN(20); {
				case act < 3 && paidSeats.Load() < 100: // pay, sometimes after the deadline
					if !pause(time.Duration(rng.IntN(int(soakHold/time.Millisecond)+1500)) * time.Millisecond) {
						return
					}
					p, _, err := e.Payments.Start(ctx, o.UserID, o.OrderNo, "demo")
					if err != nil {
						count("pay start " + services.ErrorCode(err))
						continue
					}
					if _, err := e.Payments.DemoDecide(ctx, p.PaymentID, true); err != nil {
						count("pay " + services.ErrorCode(err))
						continue
					}
					paidSeats.Add(int64(len(o.Seats)))
					count("pay approved")
				case act < 9: // cancel
					if !pause(time.Duration(rng.IntN(int(soakHold/time.Millisecond))) * time.Millisecond) {
						return
					}
					if _, err := e.Orders.Cancel(ctx, o.UserID, o.OrderNo); err != nil {
						count("cancel " + services.ErrorCode(err))
						continue
					}
					count("cancel")
				default: // walk away: the order expires
					count("abandoned")
				}
			}
		}(b)
	}

	// faults, one at a time, each measured until the stores agree again
	var faults []soakFault
	rng := rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano())))
	kinds := []string{faultFlushAll, faultRestart, faultSleep, faultLostTasks, faultKilledHold, faultKilledAfter}
	end := time.Now().Add(length)
	time.Sleep(3 * time.Second)
	for i := 0; time.Now().Before(end); i++ {
		kind := kinds[i%len(kinds)]
		if i >= len(kinds) {
			kind = kinds[rng.IntN(len(kinds))]
		}
		f := soakFault{kind: kind}
		at := time.Now()
		var settled func() bool // the fault's own part of "converged"
		switch kind {
		case faultFlushAll:
			pr.FlushAll()
		case faultRestart:
			pr.Stop()
			time.Sleep(300 * time.Millisecond)
			pr.Start()
			outage(at, time.Now())
		case faultSleep:
			awake := pr.Sleep(2 * time.Second)
			go func() { <-awake; outage(at, time.Now()) }()
			settled = func() bool {
				select {
				case <-awake:
					return countSyncs(e) == 0
				default:
					return false
				}
			}
		case faultLostTasks:
			all, _ := q.RDB.ZRange(ctx, q.Key, 0, -1).Result()
			var lost []string
			for _, no := range all {
				if rng.IntN(2) == 0 && q.RDB.ZRem(ctx, q.Key, no).Val() == 1 {
					lost = append(lost, no)
				}
			}
			f.detail = fmt.Sprintf("%d tasks", len(lost))
			settled = func() bool { return countPending(e, lost) == 0 }
		case faultKilledHold:
			no, seatList := soakStaleHold(e, ctx, rng, users)
			if no == "" {
				time.Sleep(time.Second) // no free seat to hold now
				continue
			}
			f.detail = fmt.Sprintf("%d seats", len(seatList))
			settled = func() bool {
				for _, id := range seatList {
					if _, owner, _ := seats.SeatValue(seatValue(e, ctx, show.ID, id)); owner == no {
						return false
					}
				}
				return true
			}
		case faultKilledAfter:
			o, status := soakCommitWithoutRedis(e, ctx, rng)
			if o == nil {
				time.Sleep(time.Second) // no pending order to kill now
				continue
			}
			f.detail = status
			settled = func() bool {
				for _, s := range o.Seats {
					v := seatValue(e, ctx, show.ID, s.SeatID)
					_, owner, _ := seats.SeatValue(v)
					if (status == services.OrderPaid && v != seats.EncodeSeat(true, o.OrderNo, o.UserID)) || (status != services.OrderPaid && owner == o.OrderNo) {
						return false
					}
				}
				return true
			}
		}
		f.converged = -1
		for time.Since(at) < 30*time.Second {
			if settled == nil || settled() {
				if fs, err := rec.Inspect(ctx, show.ID, soakGrace); err == nil && len(fs) == 0 {
					f.converged = time.Since(at)
					break
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		if f.converged < 0 {
			t.Errorf("fault %d (%s %s) did not converge within 30 s", i+1, f.kind, f.detail)
		}
		faults = append(faults, f)
		time.Sleep(time.Duration(1000+rng.IntN(3000)) * time.Millisecond)
	}
	close(buyStop)
	buyers.Wait()

	// the sale is over: every pending order reaches its deadline and is settled
	drainAt := time.Now()
	var pending, syncs int
	for time.Since(drainAt) < soakHold+soakSlack+2*soakInterval+30*time.Second {
		pending = countPending(e, nil)
		syncs = countSyncs(e)
		if pending == 0 && syncs == 0 {
			if fs, err := rec.Inspect(ctx, show.ID, 0); err == nil && len(fs) == 0 {
				break
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	drained := time.Since(drainAt)
	close(bgStop)
	bg.Wait()

	if pending != 0 || syncs != 0 {
		t.Errorf("after the sale: %d orders still pending, %d seat-sync rows", pending, syncs)
	}
	states, err := e.Seats.States(ctx, show.ID)
	if err != nil {
		t.Fatal(err)
	}
	for id, v := range states {
		if st, _, _ := seats.SeatValue(v); st == services.StateHeld {
			t.Errorf("seat %d is still held: %q", id, v)
		}
	}
	var twice, soldTwice int
	e.DB.Get(&twice, `SELECT COUNT(*) FROM (SELECT seat_id FROM order_seats os JOIN orders o ON o.id = os.order_id
		WHERE os.show_id = ? AND o.status IN ('pending','paid') GROUP BY seat_id HAVING COUNT(*) > 1) d`, show.ID)
	e.DB.Get(&soldTwice, `SELECT COUNT(*) FROM (SELECT seat_id FROM order_seats os JOIN orders o ON o.id = os.order_id
		WHERE os.show_id = ? AND o.status = 'paid' GROUP BY seat_id HAVING COUNT(*) > 1) d`, show.ID)
	if twice != 0 || soldTwice != 0 {
		t.Errorf("%d seats in two live orders, %d seats sold twice", twice, soldTwice)
	}
	// orders past their deadline: settled within deadline + one reconcile interval, plus
	// the slack, a second for the run itself, and any time Redis was down meanwhile
	var expired []struct {
		No       string    `db:"order_no"`
		Deadline time.Time `db:"expires_at"`
		Ended    time.Time `db:"cancelled_at"`
	}
	if err := e.DB.Select(&expired, "SELECT order_no, expires_at, cancelled_at FROM orders WHERE show_id = ? AND status = 'expired'", show.ID); err != nil {
		t.Fatal(err)
	}
	var lags []time.Duration
	late := 0
	for _, o := range expired {
		lag := o.Ended.Sub(o.Deadline)
		lags = append(lags, lag)
		bound := soakInterval + soakSlack + time.Second
		for _, out := range outages {
			if out.to.After(o.Deadline) && out.from.Before(o.Deadline.Add(bound)) {
				bound += out.to.Sub(out.from)
			}
		}
		if lag > bound {
			late++
			if late <= 10 {
				t.Errorf("order %s expired %s after its deadline, bound %s", o.No, lag.Round(time.Millisecond), bound)
			}
		}
	}
	e.CheckInvariants()

	// the report
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "fault\tinjected\tconverged\tmin\tmedian\tmax\t\n")
	byKind := map[string][]soakFault{}
	for _, f := range faults {
		byKind[f.kind] = append(byKind[f.kind], f)
	}
	for _, k := range kinds {
		fs := byKind[k]
		var ds []time.Duration
		for _, f := range fs {
			if f.converged >= 0 {
				ds = append(ds, f.converged)
			}
		}
		fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%s\t%s\t\n", k, len(fs), len(ds), pct(ds, 0), pct(ds, 50), pct(ds, 100))
	}
	fmt.Fprintf(w, "expired orders: lag after deadline\t%d\t%d\t%s\t%s\t%s\t\n", len(lags), len(lags)-late, pct(lags, 0), pct(lags, 50), pct(lags, 100))
	w.Flush()
	b.WriteString("\nconverged: Redis agrees with MySQL again (reconciliation's comparison at its grace), and the fault's own\n" +
		"damage is gone: the killed hold released, the killed transition's seats in line, every order whose task was\n" +
		"lost settled (they wait for their deadline), the outbox empty after the sleep.\n")
	for i, f := range faults {
		d := "not converged"
		if f.converged >= 0 {
			d = f.converged.Round(time.Millisecond).String()
		}
		fmt.Fprintf(&b, "  %2d. %-20s %-12s %s\n", i+1, f.kind, f.detail, d)
	}
	runMu.Lock()
	statsMu.Lock()
	t.Logf("soak of %s: buyers %v\nreconcile runs %v, findings %v; drained in %s after the buyers stopped\n\n%s",
		length, stats, runStatus, runFindings, drained.Round(time.Millisecond), b.String())
	statsMu.Unlock()
	runMu.Unlock()
	t.Logf("converged after the last fault and the end of the sale in %s; %d orders, %d seats in two live orders, %d sold twice; invariant check: %s",
		drained.Round(time.Millisecond), e.CountOrders(), twice, soldTwice, testenv.Verdict(t))
}

// pct is the p-th percentile of ds ("-" when empty).
func pct(ds []time.Duration, p int) string {
	if len(ds) == 0 {
		return "-"
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[(len(s)-1)*p/100].Round(time.Millisecond).String()
}

// seatValue reads one seat of the seat cache ("" when missing or Redis does not answer).
func seatValue(e *testenv.TestEnv, ctx context.Context, showID, seatID int64) string {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return e.RDB.HGet(ctx, e.Seats.Keys(showID)[0], strconv.FormatInt(seatID, 10)).Val()
}

// countPending counts the pending orders among nos (all of the show's when nos is nil).
func countPending(e *testenv.TestEnv, nos []string) int {
	var n int
	if nos == nil {
		_ = e.DB.Get(&n, "SELECT COUNT(*) FROM orders WHERE show_id = ? AND status = 'pending'", e.Show.ID)
		return n
	}
	if len(nos) == 0 {
		return 0
	}
	q, args, _ := sqlx.In("SELECT COUNT(*) FROM orders WHERE order_no IN (?) AND status = 'pending'", nos)
	_ = e.DB.Get(&n, e.DB.Rebind(q), args...)
	return n
}

// countSyncs counts the seat-sync outbox (without failing the test from a goroutine).
func countSyncs(e *testenv.TestEnv) int {
	var n int
	_ = e.DB.Get(&n, "SELECT COUNT(*) FROM seat_syncs")
	return n
}

// soakStaleHold holds 1 or 2 free seats in Redis for an order that is never committed
// (its process died between the hold and the commit) and returns the order number and
// the seats.
func soakStaleHold(e *testenv.TestEnv, ctx context.Context, rng *rand.Rand, users []int64) (string, []int64) {
	for attempt := 0; attempt < 20; attempt++ {
		states, err := e.Seats.States(ctx, e.Show.ID)
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		var free []int64
		for id, v := range states {
			if v == seats.SeatFree {
				free = append(free, id)
			}
		}
		if len(free) < 2 {
			return "", nil
		}
		rng.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
		free = free[:1+rng.IntN(2)]
		var refs []seats.SeatRef
		for _, id := range free {
			s, _ := e.Hall.Seat(id)
			refs = append(refs, seats.SeatRef{ID: id, Zone: s.ZoneCode})
		}
		no := services.NewOrderNo(time.Now())
		out, err := e.Seats.Hold(ctx, e.Show.ID, no, users[rng.IntN(len(users))], e.Show.PurchaseLimit, refs)
		if err == nil && out.OK() {
			return no, free
		}
	}
	return "", nil
}

// soakCommitWithoutRedis ends a young pending order in MySQL exactly as cancel or pay
// commits it, and then does nothing more: the process died after the commit, before
// its Redis step and before it could queue the seat sync.
func soakCommitWithoutRedis(e *testenv.TestEnv, ctx context.Context, rng *rand.Rand) (*services.Order, string) {
	now := time.Now().UTC()
	var nos []string
	if err := e.DB.Select(&nos, "SELECT order_no FROM orders WHERE show_id = ? AND status = 'pending' AND expires_at > ?",
		e.Show.ID, now.Add(3*time.Second)); err != nil || len(nos) == 0 {
		return nil, ""
	}
	o, err := e.Orders.ByNo(ctx, nos[rng.IntN(len(nos))])
	if err != nil {
		return nil, ""
	}
	status := services.OrderCancelled
	if rng.IntN(2) == 0 {
		status = services.OrderPaid
	}
	err = store.InTx(ctx, e.DB, func(tx *sqlx.Tx) error {
		var res interface{ RowsAffected() (int64, error) }
		var err error
		if status == services.OrderPaid {
			res, err = tx.ExecContext(ctx, "UPDATE orders SET status = 'paid', paid_at = ? WHERE id = ? AND status = 'pending'", now, o.ID)
		} else {
			res, err = tx.ExecContext(ctx, "UPDATE orders SET status = 'cancelled', cancelled_at = ?, cancel_reason = 'killed after commit' WHERE id = ? AND status = 'pending'", now, o.ID)
		}
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errSoakNotPending
		}
		if status == services.OrderCancelled {
			_, err = tx.ExecContext(ctx, "UPDATE order_seats SET live = NULL WHERE order_id = ?", o.ID)
		}
		return err
	})
	if err != nil {
		return nil, ""
	}
	o.Status = status
	return o, status
}

var errSoakNotPending = fmt.Errorf("the order is no longer pending")
