package staff_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/internal/testenv"
	"seatflow/services/reconcile"
	"seatflow/services/staff"
)

// showSeats returns the staff seat service over the env's stores.
func showSeats(e *testenv.TestEnv) *staff.ShowSeats {
	return staff.NewShowSeats(e.DB, e.Orders, audit.NewAudit(e.DB, e.Clock), 0)
}

// houseRows lists the house seats of the env's show in MySQL by label, sorted.
func houseRows(e *testenv.TestEnv) []string {
	e.T.Helper()
	var out []string
	if err := e.DB.Select(&out, `SELECT s.label FROM show_house_seats h JOIN seats s ON s.id = h.seat_id
		WHERE h.show_id = ? ORDER BY s.label`, e.Show.ID); err != nil {
		e.T.Fatal(err)
	}
	return out
}

// houseAndLive counts seats of the env's show that are house seats and in a live order.
func houseAndLive(e *testenv.TestEnv) int {
	e.T.Helper()
	var n int
	if err := e.DB.Get(&n, `SELECT COUNT(*) FROM show_house_seats h JOIN order_seats os
		ON os.show_id = h.show_id AND os.seat_id = h.seat_id AND os.live = 1 WHERE h.show_id = ?`, e.Show.ID); err != nil {
		e.T.Fatal(err)
	}
	return n
}

// TestHouseSeats_BlockAndUnblock: blocking free seats marks them blocked in Redis (zone
// count down), writes the rows and an audit entry with the house seats before and after;
// nobody can buy them; unblocking makes them free and buyable again.
func TestHouseSeats_BlockAndUnblock(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	svc := showSeats(e)
	staffID := e.User(0)
	ids := e.SeatIDs("C3", "H4")
	freeStd := e.ZoneFree(e.Show.ID, "standard")
	if freeStd != "" {
		t.Fatalf("map loaded before the test: %q", freeStd)
	}
	if _, err := e.Seats.States(ctx, e.Show.ID); err != nil { // load the map
		t.Fatal(err)
	}
	freeStd, freePrem := e.ZoneFree(e.Show.ID, "standard"), e.ZoneFree(e.Show.ID, "premium")
	res, err := svc.Block(ctx, staffID, e.Show.ID, ids, "guests of the director")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Seats, ",") != "C3,H4" {
		t.Errorf("blocked %v, want C3,H4", res.Seats)
	}
	for _, id := range ids {
		if v := e.SeatVal(e.Show.ID, id); v != "B" {
			t.Errorf("seat %d is %q in Redis, want B", id, v)
		}
	}
	if got, want := e.ZoneFree(e.Show.ID, "standard"), dec(freeStd); got != want {
		t.Errorf("standard free %s, want %s", got, want)
	}
	if got, want := e.ZoneFree(e.Show.ID, "premium"), dec(freePrem); got != want {
		t.Errorf("premium free %s, want %s", got, want)
	}
	if got := houseRows(e); strings.Join(got, ",") != "C3,H4" {
		t.Errorf("house rows %v", got)
	}
	e.CheckInvariants()
	audit := e.AuditOf("show", strconv.FormatInt(e.Show.ID, 10))
	if len(audit) != 1 || audit[0].Action != "show.house_block" || *audit[0].ActorID != staffID {
		t.Fatalf("audit: %+v", audit)
	}
	var before, after staff.HouseAudit
	json.Unmarshal(audit[0].Before, &before)
	json.Unmarshal(audit[0].After, &after)
	if len(before.HouseSeats) != 0 || strings.Join(after.HouseSeats, ",") != "C3,H4" || after.Reason != "guests of the director" {
		t.Errorf("audit before %s after %s", audit[0].Before, audit[0].After)
	}
	buyer := e.User(1)
	if _, err := e.Create(buyer, ids[0]); services.ErrorCode(err) != services.CodeSeatTaken {
		t.Errorf("buying a house seat: %v, want SEAT_TAKEN", err)
	}

	res, err = svc.Unblock(ctx, staffID, e.Show.ID, ids[:1], "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Freed != 1 || e.SeatVal(e.Show.ID, ids[0]) != "F" || e.ZoneFree(e.Show.ID, "standard") != freeStd {
		t.Errorf("after unblock: freed %d, seat %q, standard free %s (want %s)", res.Freed, e.SeatVal(e.Show.ID, ids[0]),
			e.ZoneFree(e.Show.ID, "standard"), freeStd)
	}
	if got := houseRows(e); strings.Join(got, ",") != "H4" {
		t.Errorf("house rows after unblock %v", got)
	}
	if audit = e.AuditOf("show", strconv.FormatInt(e.Show.ID, 10)); len(audit) != 2 || audit[0].Action != "show.house_unblock" {
		t.Errorf("audit after unblock: %+v", audit)
	}
	if _, err := e.Create(buyer, ids[0]); err != nil {
		t.Errorf("buying an unblocked seat: %v", err)
	}
	e.CheckInvariants()
	if _, err := svc.Unblock(ctx, staffID, e.Show.ID, ids, ""); services.ErrorCode(err) != services.CodeConflict {
		t.Errorf("unblocking a seat that is no house seat: %v, want CONFLICT", err)
	}
	if got := houseRows(e); strings.Join(got, ",") != "H4" {
		t.Errorf("a refused unblock changed the rows: %v", got)
	}
}

func dec(s string) string {
	n, _ := strconv.Atoi(s)
	return strconv.Itoa(n - 1)
}

// TestHouseSeats_RefusesTakenSeatsAllOrNothing: a batch with one held, sold, blocked,
// house or unknown seat is refused whole: no row, no Redis change, no audit entry; the
// refusal names the seats. A seat MySQL records in a live order is refused even when the
// seat cache lost its hold.
func TestHouseSeats_RefusesTakenSeatsAllOrNothing(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	svc := showSeats(e)
	staff := e.User(0)
	held, err := e.Create(e.User(1), e.SeatIDs("A1")...)
	if err != nil {
		t.Fatal(err)
	}
	sold, err := e.Create(e.User(2), e.SeatIDs("A2")...)
	if err != nil {
		t.Fatal(err)
	}
	e.Pay(sold)
	if _, err := svc.Block(ctx, staff, e.Show.ID, e.SeatIDs("B9"), ""); err != nil {
		t.Fatal(err)
	}
	lost, err := e.Create(e.User(3), e.SeatIDs("A5")...)
	if err != nil {
		t.Fatal(err)
	}
	// the seat cache loses A5's hold (MySQL still has the live order)
	a5 := strconv.FormatInt(e.SeatIDs("A5")[0], 10)
	e.RDB.HSet(ctx, e.Seats.Keys(e.Show.ID)[0], a5, "F")
	e.RDB.HIncrBy(ctx, e.Seats.Keys(e.Show.ID)[1], "standard", 1)
	cases := []struct {
		name, code, names string
		labels            []string
	}{
		{"held", services.CodeSeatTaken, "A1 (held, order " + held.OrderNo + ")", []string{"C1", "A1"}},
		{"sold", services.CodeSeatTaken, "A2 (sold, order " + sold.OrderNo + ")", []string{"A2", "C2"}},
		{"hold lost by the seat cache", services.CodeSeatTaken, "A5 (held, order " + lost.OrderNo + ")", []string{"C3", "A5"}},
		{"house seat already", services.CodeConflict, "B9", []string{"C4", "B9"}},
		{"never sold", services.CodeSeatNotInShow, "J1", []string{"C5", "J1"}},
	}
	before := e.State()
	auditBefore := len(e.AuditOf("show", strconv.FormatInt(e.Show.ID, 10)))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := svc.Block(ctx, staff, e.Show.ID, e.SeatIDs(c.labels...), "")
			if services.ErrorCode(err) != c.code || !strings.Contains(err.Error(), c.names) {
				t.Fatalf("got %v, want %s naming %s", err, c.code, c.names)
			}
			if after := e.State(); after != before {
				t.Errorf("a refused block changed the stores:\n%s\n---\n%s", before, after)
			}
			if n := len(e.AuditOf("show", strconv.FormatInt(e.Show.ID, 10))); n != auditBefore {
				t.Errorf("a refused block was audited: %d entries, want %d", n, auditBefore)
			}
		})
	}
	for _, bad := range []struct {
		name string
		ids  []int64
	}{{"none", nil}, {"duplicate", append(e.SeatIDs("C1"), e.SeatIDs("C1")...)}, {"not positive", []int64{0}}, {"not of the hall", []int64{987654321}}} {
		t.Run("invalid "+bad.name, func(t *testing.T) {
			if _, err := svc.Block(ctx, staff, e.Show.ID, bad.ids, ""); services.ErrorCode(err) != services.CodeInvalidRequest && services.ErrorCode(err) != services.CodeSeatNotInShow {
				t.Errorf("got %v", err)
			}
		})
	}
	if _, err := svc.Block(ctx, staff, 987654, e.SeatIDs("C1"), ""); services.ErrorCode(err) != services.CodeNotFound {
		t.Errorf("unknown show: %v", err)
	}
}

// TestHouseSeats_OnlyBeforeTheShowAndNotCancelled: a cancelled show or one that has
// started refuses house-seat changes.
func TestHouseSeats_OnlyBeforeTheShowAndNotCancelled(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	svc := showSeats(e)
	staff := e.User(0)
	now := e.Clock.Now()
	started := e.MakeShow(e.Hall.ID, services.ShowOnSale, now.Add(-3*time.Hour), now.Add(-time.Minute))
	cancelled := e.MakeShow(e.Hall.ID, services.ShowCancelled, now.Add(-time.Hour), now.Add(72*time.Hour))
	for _, s := range []*services.Show{started, cancelled} {
		if _, err := svc.Block(ctx, staff, s.ID, e.SeatIDs("C1"), ""); services.ErrorCode(err) != services.CodeConflict {
			t.Errorf("show %s: %v, want CONFLICT", s.Status, err)
		}
	}
	if n := len(houseRows(e)); n != 0 {
		t.Errorf("%d rows written", n)
	}
}

// TestHouseSeats_ReloadAndReconcile: after a block, a flushed Redis reloads the house
// seats as blocked with the zone counts right, and reconciliation finds nothing.
func TestHouseSeats_ReloadAndReconcile(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	svc := showSeats(e)
	staff := e.User(0)
	if _, err := e.Create(e.User(1), e.SeatIDs("D1", "D2")...); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Block(ctx, staff, e.Show.ID, e.SeatIDs("D3", "D4", "H1"), "press"); err != nil {
		t.Fatal(err)
	}
	rec := testenv.NewReconciler(e, nil)
	check := func(when string) {
		t.Helper()
		findings, err := rec.Inspect(ctx, e.Show.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range findings {
			t.Errorf("%s: reconciliation finds %s at seat %d: %s", when, f.Kind, f.SeatID, f.Detail)
		}
		e.CheckInvariants()
	}
	check("after the block")
	run, err := rec.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerManual, ShowID: e.Show.ID})
	if err != nil || len(run.Findings) != 0 {
		t.Fatalf("run: %v %+v", err, run)
	}
	if err := e.RDB.FlushDB(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Seats.States(ctx, e.Show.ID); err != nil {
		t.Fatal(err)
	}
	for _, id := range e.SeatIDs("D3", "D4", "H1") {
		if v := e.SeatVal(e.Show.ID, id); v != "B" {
			t.Errorf("seat %d reloaded as %q, want B", id, v)
		}
	}
	// standard: every sellable seat but 2 held and 2 house seats
	std := 0
	for _, s := range e.Hall.Seats {
		if s.Sellable() && s.ZoneCode == "standard" {
			std++
		}
	}
	if got, want := e.ZoneFree(e.Show.ID, "standard"), strconv.Itoa(std-4); got != want {
		t.Errorf("standard free after reload %s, want %s", got, want)
	}
	check("after the reload")
}

// TestHouseSeats_ReconcileDuringBlock: a reconciliation run that reads the seat cache
// after a block switched its seats to blocked, but before the block committed, waits
// for the block and does not free the seats again.
func TestHouseSeats_ReconcileDuringBlock(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	svc := showSeats(e)
	staff := e.User(0)
	if _, err := e.Seats.States(ctx, e.Show.ID); err != nil {
		t.Fatal(err)
	}
	rec := testenv.NewReconciler(e, nil)
	type result struct {
		run *reconcile.ReconcileRun
		err error
	}
	done := make(chan result, 1)
	svc.SetPauseHook(func(stage string) {
		if stage != "block-commit" {
			return
		}
		go func() {
			run, err := rec.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerManual, ShowID: e.Show.ID, Wait: 10 * time.Second})
			done <- result{run, err}
		}()
		time.Sleep(500 * time.Millisecond) // the run reads the cache, then waits for the block's rows
	})
	ids := e.SeatIDs("E5", "E6")
	if _, err := svc.Block(ctx, staff, e.Show.ID, ids, ""); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	for _, f := range r.run.Findings {
		t.Errorf("the run found %s at seat %d (fixed %v): %s", f.Kind, f.SeatID, f.Fixed, f.Detail)
	}
	for _, id := range ids {
		if v := e.SeatVal(e.Show.ID, id); v != "B" {
			t.Errorf("seat %d is %q after the run, want B", id, v)
		}
	}
	e.CheckInvariants()
}

// TestHouseSeats_NeverStealAHold races buyers (create, pay, cancel) against staff
// blocking and unblocking the same seats. Afterwards no seat is both a house seat and in
// a live order, every house seat without a live order is blocked in Redis, and the seat
// cache agrees with MySQL seat by seat and in its zone and user counts (the invariant
// check); a flushed Redis reloads to the same.
func TestHouseSeats_NeverStealAHold(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.QuietLogs()
	ctx := context.Background()
	svc := showSeats(e)
	staff := e.User(0)
	pool := e.SeatIDs("A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "H1", "H2", "H3", "H4", "H5", "H6", "H7", "H8")
	const buyers, staffers, rounds = 12, 3, 30
	users := e.BulkUsers(buyers)
	var blocked, refused, bought atomic.Int64
	var staffDone atomic.Bool // buyers keep buying while staff still block: the race lasts as long as staff need
	var wg, staffWG sync.WaitGroup
	for b := 0; b < buyers; b++ {
		wg.Add(1)
		go func(b int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(b)))
			for r := 0; r < rounds || !staffDone.Load(); r++ {
				seat := pool[rng.Intn(len(pool))]
				o, err := e.Create(users[b], seat)
				if err != nil {
					continue
				}
				bought.Add(1)
				if rng.Intn(16) == 0 {
					_ = e.PayOrder(o)
				} else { // most buyers hold a moment and change their minds: seats keep changing hands
					time.Sleep(time.Duration(rng.Intn(3)) * time.Millisecond)
					_, _ = e.Orders.Cancel(ctx, o.UserID, o.OrderNo)
				}
			}
		}(b)
	}
	// staff go on past their rounds (up to ten times as many) until a block both won and
	// lost against the buyers: on a slow machine buyers can hold every seat staff pick
	// for a whole run of rounds
	raced := func() bool { return blocked.Load() > 0 && refused.Load() > 0 }
	for s := 0; s < staffers; s++ {
		staffWG.Add(1)
		go func(s int) {
			defer staffWG.Done()
			rng := rand.New(rand.NewSource(int64(100 + s)))
			for r := 0; r < rounds || (r < 10*rounds && !raced()); r++ {
				n := 1 + rng.Intn(2)
				var ids []int64
				for _, i := range rng.Perm(len(pool))[:n] {
					ids = append(ids, pool[i])
				}
				if rng.Intn(2) == 0 {
					if _, err := svc.Block(ctx, staff, e.Show.ID, ids, "race"); err == nil {
						blocked.Add(1)
					} else if c := services.ErrorCode(err); c == services.CodeSeatTaken {
						refused.Add(1) // lost to a buyer
					} else if c == services.CodeConflict {
						// lost to another staff member's block
					} else {
						t.Errorf("block: %v", err)
					}
				} else if _, err := svc.Unblock(ctx, staff, e.Show.ID, ids, "race"); err != nil && services.ErrorCode(err) != services.CodeConflict {
					t.Errorf("unblock: %v", err)
				}
			}
		}(s)
	}
	staffWG.Wait()
	staffDone.Store(true)
	wg.Wait()
	t.Logf("orders %d, blocks %d, refused blocks %d, house seats now %v", bought.Load(), blocked.Load(), refused.Load(), houseRows(e))
	if blocked.Load() == 0 || refused.Load() == 0 || bought.Load() == 0 {
		t.Errorf("the race did not race: %d blocks, %d refused, %d orders", blocked.Load(), refused.Load(), bought.Load())
	}
	check := func(when string) {
		t.Helper()
		if n := houseAndLive(e); n != 0 {
			t.Errorf("%s: %d seats are house seats and in a live order", when, n)
		}
		for _, l := range houseRows(e) {
			if v := e.SeatVal(e.Show.ID, e.SeatIDs(l)[0]); v != "B" {
				t.Errorf("%s: house seat %s is %q in Redis, want B", when, l, v)
			}
		}
		e.CheckInvariants()
	}
	check("after the race")
	if err := e.RDB.FlushDB(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Seats.States(ctx, e.Show.ID); err != nil {
		t.Fatal(err)
	}
	check("after a reload")
}

// TestHouseSeats_ChangesOfOneShowTakeTurns: staff block and unblock different seats of
// one show at the same time. Every change succeeds and none is a deadlock victim: a
// change locks its hall's row first, so they take turns (two blocks that each read the
// show's house seats for update, then inserted, deadlocked in each other's gap locks).
// The audit entries' sets before and after chain, so none missed another's change.
func TestHouseSeats_ChangesOfOneShowTakeTurns(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	svc := showSeats(e)
	var retries atomic.Int64
	svc.SetPauseHook(func(stage string) {
		if stage == "block-retry" {
			retries.Add(1)
		}
	})
	staffID := e.User(0)
	seatsOf := [][]int64{e.SeatIDs("C1", "D1"), e.SeatIDs("C3", "D3"), e.SeatIDs("C5", "D5"), e.SeatIDs("C7", "D7"),
		e.SeatIDs("E1", "F1"), e.SeatIDs("E3", "F3")}
	const rounds = 20
	var wg sync.WaitGroup
	for k, own := range seatsOf {
		wg.Add(1)
		go func(k int, own []int64) {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				id := own[r%len(own)]
				if _, err := svc.Block(ctx, staffID, e.Show.ID, []int64{id}, "staff "+strconv.Itoa(k)); err != nil {
					t.Errorf("staff %d round %d: block: %v", k, r, err)
					return
				}
				if _, err := svc.Unblock(ctx, staffID, e.Show.ID, []int64{id}, ""); err != nil {
					t.Errorf("staff %d round %d: unblock: %v", k, r, err)
					return
				}
			}
		}(k, own)
	}
	wg.Wait()
	if n := retries.Load(); n != 0 {
		t.Errorf("%d blocks were tried again after a deadlock or lock wait; changes of one show's house seats must take turns", n)
	}
	if rows := houseRows(e); len(rows) != 0 {
		t.Errorf("house seats left: %v", rows)
	}
	// the newest page of the show's audit entries (AuditOf reads one page, newest first):
	// each one's set before is the set the entry before it left
	entries := e.AuditOf("show", strconv.FormatInt(e.Show.ID, 10))
	if want := min(100, 2*rounds*len(seatsOf)); len(entries) != want {
		t.Fatalf("%d audit entries, want %d", len(entries), want)
	}
	var prevAfter *string
	for i := len(entries) - 1; i >= 0; i-- {
		var before, after staff.HouseAudit
		if err := json.Unmarshal(entries[i].Before, &before); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(entries[i].After, &after); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(before.HouseSeats, ","); prevAfter != nil && got != *prevAfter {
			t.Errorf("audit entry %d (%s) says the house seats before were [%s]; the entry before it left [%s]", entries[i].ID, entries[i].Action, got, *prevAfter)
		}
		left := strings.Join(after.HouseSeats, ",")
		prevAfter = &left
	}
	e.CheckInvariants()
}

// TestHouseSeats_LoadWaitsForABlockInFlight: Redis flushed while a block has its seats
// blocked but has not committed: a buyer's load of the map waits for the block and sees
// its seats blocked, so the buyer cannot take them.
func TestHouseSeats_LoadWaitsForABlockInFlight(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	svc := showSeats(e)
	staff := e.User(0)
	if _, err := e.Seats.States(ctx, e.Show.ID); err != nil {
		t.Fatal(err)
	}
	ids := e.SeatIDs("F1")
	buyErr := make(chan error, 1)
	svc.SetPauseHook(func(stage string) {
		if stage != "block-commit" {
			return
		}
		e.RDB.FlushDB(ctx)
		go func() {
			_, err := e.Create(e.User(1), ids...)
			buyErr <- err
		}()
		time.Sleep(500 * time.Millisecond)
	})
	if _, err := svc.Block(ctx, staff, e.Show.ID, ids, ""); err != nil {
		t.Fatal(err)
	}
	if err := <-buyErr; services.ErrorCode(err) != services.CodeSeatTaken {
		t.Errorf("buying a seat being blocked after a flush: %v, want SEAT_TAKEN", err)
	}
	if n := houseAndLive(e); n != 0 {
		t.Errorf("%d seats are house seats and in a live order", n)
	}
	e.CheckInvariants()
}

// TestHouseSeats_SeatsLeftWithoutTheMap: a show whose seat map is not in Redis counts
// its seats left from MySQL, and house seats are not left for sale.
func TestHouseSeats_SeatsLeftWithoutTheMap(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	before, err := e.Shows.Get(ctx, e.Show.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := showSeats(e).Block(ctx, e.User(0), e.Show.ID, e.SeatIDs("C3", "H4"), "press"); err != nil {
		t.Fatal(err)
	}
	if err := e.RDB.FlushDB(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	e.Catalog.ForgetShow(e.Show.ID)
	after, err := e.Shows.Get(ctx, e.Show.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after.SeatsLeft != before.SeatsLeft-2 {
		t.Errorf("seats left %d from MySQL after blocking 2 of %d", after.SeatsLeft, before.SeatsLeft)
	}
}

// TestHouseSeats_NeverInALiveOrder: after a Redis flush a hold and a house block can both
// pass the rebuilt seat map; the order's commit then finds the house seat in MySQL and is
// refused with SEAT_TAKEN, so a seat is never both a house seat and in a live order. The
// block is written here between the order's hold and its commit, as a block that won
// the race would be.
func TestHouseSeats_NeverInALiveOrder(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ids := e.SeatIDs("E5", "E6")
	blocked := false
	e.Orders.SetFailHook(func(stage string) error {
		if stage == "held" && !blocked {
			blocked = true
			e.Exec("INSERT INTO show_house_seats (show_id, seat_id, reason, created_at) VALUES (?, ?, 'press', ?)", e.Show.ID, ids[1], e.Clock.Now())
		}
		return nil
	})
	_, err := e.Create(e.User(1), ids...)
	e.Orders.SetFailHook(nil)
	var se *services.Error
	if !errors.As(err, &se) || se.Code != services.CodeSeatTaken || len(se.Seats) != 1 || se.Seats[0] != "E6" {
		t.Fatalf("an order of a seat kept as a house seat meanwhile: %v, want SEAT_TAKEN naming E6", err)
	}
	var live int
	if err := e.DB.Get(&live, "SELECT COUNT(*) FROM order_seats WHERE show_id = ? AND live = 1 AND seat_id IN (?, ?)", e.Show.ID, ids[0], ids[1]); err != nil || live != 0 {
		t.Errorf("%d live order seats on E5, E6 (%v)", live, err)
	}
	if v := e.SeatVal(e.Show.ID, ids[0]); v != "F" {
		t.Errorf("E5 is %q after the refused order, want F", v)
	}
}
