package services

import (
	"context"
	"encoding/json"
	"math/rand"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// showSeats returns the staff seat service over the env's stores.
func (e *testEnv) showSeats() *ShowSeats {
	return NewShowSeats(e.db, e.orders, NewAudit(e.db, e.clock), 0)
}

// houseRows lists the house seats of the env's show in MySQL by label, sorted.
func (e *testEnv) houseRows() []string {
	e.t.Helper()
	var out []string
	if err := e.db.Select(&out, `SELECT s.label FROM show_house_seats h JOIN seats s ON s.id = h.seat_id
		WHERE h.show_id = ? ORDER BY s.label`, e.show.ID); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// houseAndLive counts seats of the env's show that are house seats and in a live order.
func (e *testEnv) houseAndLive() int {
	e.t.Helper()
	var n int
	if err := e.db.Get(&n, `SELECT COUNT(*) FROM show_house_seats h JOIN order_seats os
		ON os.show_id = h.show_id AND os.seat_id = h.seat_id AND os.live = 1 WHERE h.show_id = ?`, e.show.ID); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// TestHouseSeats_BlockAndUnblock: blocking free seats marks them blocked in Redis (zone
// count down), writes the rows and an audit entry with the house seats before and after;
// nobody can buy them; unblocking makes them free and buyable again.
func TestHouseSeats_BlockAndUnblock(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	svc := e.showSeats()
	staff := e.user(0)
	ids := e.seatIDs("C3", "H4")
	freeStd, freePrem := e.zoneFree(e.show.ID, "standard"), e.zoneFree(e.show.ID, "premium")
	if freeStd != "" {
		t.Fatalf("map loaded before the test: %q", freeStd)
	}
	if _, err := e.seats.States(ctx, e.show.ID); err != nil { // load the map
		t.Fatal(err)
	}
	freeStd, freePrem = e.zoneFree(e.show.ID, "standard"), e.zoneFree(e.show.ID, "premium")
	res, err := svc.Block(ctx, staff, e.show.ID, ids, "guests of the director")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Seats, ",") != "C3,H4" {
		t.Errorf("blocked %v, want C3,H4", res.Seats)
	}
	for _, id := range ids {
		if v := e.seatVal(e.show.ID, id); v != "B" {
			t.Errorf("seat %d is %q in Redis, want B", id, v)
		}
	}
	if got, want := e.zoneFree(e.show.ID, "standard"), dec(freeStd); got != want {
		t.Errorf("standard free %s, want %s", got, want)
	}
	if got, want := e.zoneFree(e.show.ID, "premium"), dec(freePrem); got != want {
		t.Errorf("premium free %s, want %s", got, want)
	}
	if got := e.houseRows(); strings.Join(got, ",") != "C3,H4" {
		t.Errorf("house rows %v", got)
	}
	e.checkInvariants()
	audit := e.auditOf("show", strconv.FormatInt(e.show.ID, 10))
	if len(audit) != 1 || audit[0].Action != "show.house_block" || *audit[0].ActorID != staff {
		t.Fatalf("audit: %+v", audit)
	}
	var before, after houseAudit
	json.Unmarshal(audit[0].Before, &before)
	json.Unmarshal(audit[0].After, &after)
	if len(before.HouseSeats) != 0 || strings.Join(after.HouseSeats, ",") != "C3,H4" || after.Reason != "guests of the director" {
		t.Errorf("audit before %s after %s", audit[0].Before, audit[0].After)
	}
	buyer := e.user(1)
	if _, err := e.create(buyer, ids[0]); ErrorCode(err) != CodeSeatTaken {
		t.Errorf("buying a house seat: %v, want SEAT_TAKEN", err)
	}

	res, err = svc.Unblock(ctx, staff, e.show.ID, ids[:1], "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Freed != 1 || e.seatVal(e.show.ID, ids[0]) != "F" || e.zoneFree(e.show.ID, "standard") != freeStd {
		t.Errorf("after unblock: freed %d, seat %q, standard free %s (want %s)", res.Freed, e.seatVal(e.show.ID, ids[0]),
			e.zoneFree(e.show.ID, "standard"), freeStd)
	}
	if got := e.houseRows(); strings.Join(got, ",") != "H4" {
		t.Errorf("house rows after unblock %v", got)
	}
	if audit = e.auditOf("show", strconv.FormatInt(e.show.ID, 10)); len(audit) != 2 || audit[0].Action != "show.house_unblock" {
		t.Errorf("audit after unblock: %+v", audit)
	}
	if _, err := e.create(buyer, ids[0]); err != nil {
		t.Errorf("buying an unblocked seat: %v", err)
	}
	e.checkInvariants()
	if _, err := svc.Unblock(ctx, staff, e.show.ID, ids, ""); ErrorCode(err) != CodeConflict {
		t.Errorf("unblocking a seat that is no house seat: %v, want CONFLICT", err)
	}
	if got := e.houseRows(); strings.Join(got, ",") != "H4" {
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
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	svc := e.showSeats()
	staff := e.user(0)
	held, err := e.create(e.user(1), e.seatIDs("A1")...)
	if err != nil {
		t.Fatal(err)
	}
	sold, err := e.create(e.user(2), e.seatIDs("A2")...)
	if err != nil {
		t.Fatal(err)
	}
	e.pay(sold)
	if _, err := svc.Block(ctx, staff, e.show.ID, e.seatIDs("B9"), ""); err != nil {
		t.Fatal(err)
	}
	lost, err := e.create(e.user(3), e.seatIDs("A5")...)
	if err != nil {
		t.Fatal(err)
	}
	// the seat cache loses A5's hold (MySQL still has the live order)
	a5 := strconv.FormatInt(e.seatIDs("A5")[0], 10)
	e.rdb.HSet(ctx, e.seats.Keys(e.show.ID)[0], a5, "F")
	e.rdb.HIncrBy(ctx, e.seats.Keys(e.show.ID)[1], "standard", 1)
	cases := []struct {
		name, code, names string
		labels            []string
	}{
		{"held", CodeSeatTaken, "A1 (held, order " + held.OrderNo + ")", []string{"C1", "A1"}},
		{"sold", CodeSeatTaken, "A2 (sold, order " + sold.OrderNo + ")", []string{"A2", "C2"}},
		{"hold lost by the seat cache", CodeSeatTaken, "A5 (held, order " + lost.OrderNo + ")", []string{"C3", "A5"}},
		{"house seat already", CodeConflict, "B9", []string{"C4", "B9"}},
		{"never sold", CodeSeatNotInShow, "J1", []string{"C5", "J1"}},
	}
	before := e.state()
	auditBefore := len(e.auditOf("show", strconv.FormatInt(e.show.ID, 10)))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := svc.Block(ctx, staff, e.show.ID, e.seatIDs(c.labels...), "")
			if ErrorCode(err) != c.code || !strings.Contains(err.Error(), c.names) {
				t.Fatalf("got %v, want %s naming %s", err, c.code, c.names)
			}
			if after := e.state(); after != before {
				t.Errorf("a refused block changed the stores:\n%s\n---\n%s", before, after)
			}
			if n := len(e.auditOf("show", strconv.FormatInt(e.show.ID, 10))); n != auditBefore {
				t.Errorf("a refused block was audited: %d entries, want %d", n, auditBefore)
			}
		})
	}
	for _, bad := range []struct {
		name string
		ids  []int64
	}{{"none", nil}, {"duplicate", append(e.seatIDs("C1"), e.seatIDs("C1")...)}, {"not positive", []int64{0}}, {"not of the hall", []int64{987654321}}} {
		t.Run("invalid "+bad.name, func(t *testing.T) {
			if _, err := svc.Block(ctx, staff, e.show.ID, bad.ids, ""); ErrorCode(err) != CodeInvalidRequest && ErrorCode(err) != CodeSeatNotInShow {
				t.Errorf("got %v", err)
			}
		})
	}
	if _, err := svc.Block(ctx, staff, 987654, e.seatIDs("C1"), ""); ErrorCode(err) != CodeNotFound {
		t.Errorf("unknown show: %v", err)
	}
}

// TestHouseSeats_OnlyBeforeTheShowAndNotCancelled: a cancelled show or one that has
// started refuses house-seat changes.
func TestHouseSeats_OnlyBeforeTheShowAndNotCancelled(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	svc := e.showSeats()
	staff := e.user(0)
	now := e.clock.Now()
	started := e.makeShow(e.hall.ID, ShowOnSale, now.Add(-3*time.Hour), now.Add(-time.Minute))
	cancelled := e.makeShow(e.hall.ID, ShowCancelled, now.Add(-time.Hour), now.Add(72*time.Hour))
	for _, s := range []*Show{started, cancelled} {
		if _, err := svc.Block(ctx, staff, s.ID, e.seatIDs("C1"), ""); ErrorCode(err) != CodeConflict {
			t.Errorf("show %s: %v, want CONFLICT", s.Status, err)
		}
	}
	if n := len(e.houseRows()); n != 0 {
		t.Errorf("%d rows written", n)
	}
}

// TestHouseSeats_ReloadAndReconcile: after a block, a flushed Redis reloads the house
// seats as blocked with the zone counts right, and reconciliation finds nothing.
func TestHouseSeats_ReloadAndReconcile(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	svc := e.showSeats()
	staff := e.user(0)
	if _, err := e.create(e.user(1), e.seatIDs("D1", "D2")...); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Block(ctx, staff, e.show.ID, e.seatIDs("D3", "D4", "H1"), "press"); err != nil {
		t.Fatal(err)
	}
	rec := newReconciler(e, nil)
	check := func(when string) {
		t.Helper()
		findings, err := rec.Inspect(ctx, e.show.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range findings {
			t.Errorf("%s: reconciliation finds %s at seat %d: %s", when, f.Kind, f.SeatID, f.Detail)
		}
		e.checkInvariants()
	}
	check("after the block")
	run, err := rec.Run(ctx, ReconcileOptions{Trigger: TriggerManual, ShowID: e.show.ID})
	if err != nil || len(run.Findings) != 0 {
		t.Fatalf("run: %v %+v", err, run)
	}
	if err := e.rdb.FlushDB(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.seats.States(ctx, e.show.ID); err != nil {
		t.Fatal(err)
	}
	for _, id := range e.seatIDs("D3", "D4", "H1") {
		if v := e.seatVal(e.show.ID, id); v != "B" {
			t.Errorf("seat %d reloaded as %q, want B", id, v)
		}
	}
	// standard: every sellable seat but 2 held and 2 house seats
	std := 0
	for _, s := range e.hall.Seats {
		if s.Sellable() && s.ZoneCode == "standard" {
			std++
		}
	}
	if got, want := e.zoneFree(e.show.ID, "standard"), strconv.Itoa(std-4); got != want {
		t.Errorf("standard free after reload %s, want %s", got, want)
	}
	check("after the reload")
}

// TestHouseSeats_ReconcileDuringBlock: a reconciliation run that reads the seat cache
// after a block switched its seats to blocked, but before the block committed, waits
// for the block and does not free the seats again.
func TestHouseSeats_ReconcileDuringBlock(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	svc := e.showSeats()
	staff := e.user(0)
	if _, err := e.seats.States(ctx, e.show.ID); err != nil {
		t.Fatal(err)
	}
	rec := newReconciler(e, nil)
	type result struct {
		run *ReconcileRun
		err error
	}
	done := make(chan result, 1)
	svc.SetPauseHook(func(stage string) {
		if stage != "block-commit" {
			return
		}
		go func() {
			run, err := rec.Run(ctx, ReconcileOptions{Trigger: TriggerManual, ShowID: e.show.ID, Wait: 10 * time.Second})
			done <- result{run, err}
		}()
		time.Sleep(500 * time.Millisecond) // the run reads the cache, then waits for the block's rows
	})
	ids := e.seatIDs("E5", "E6")
	if _, err := svc.Block(ctx, staff, e.show.ID, ids, ""); err != nil {
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
		if v := e.seatVal(e.show.ID, id); v != "B" {
			t.Errorf("seat %d is %q after the run, want B", id, v)
		}
	}
	e.checkInvariants()
}

// TestHouseSeats_NeverStealAHold races buyers (create, pay, cancel) against staff
// blocking and unblocking the same seats. Afterwards no seat is both a house seat and in
// a live order, every house seat without a live order is blocked in Redis, and the seat
// cache agrees with MySQL seat by seat and in its zone and user counts (the invariant
// check); a flushed Redis reloads to the same.
func TestHouseSeats_NeverStealAHold(t *testing.T) {
	e := newTestEnv(t, unlimited)
	e.quietLogs()
	ctx := context.Background()
	svc := e.showSeats()
	staff := e.user(0)
	pool := e.seatIDs("A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "H1", "H2", "H3", "H4", "H5", "H6", "H7", "H8")
	const buyers, staffers, rounds = 12, 3, 30
	users := e.bulkUsers(buyers)
	var blocked, refused, bought atomic.Int64
	var wg sync.WaitGroup
	for b := 0; b < buyers; b++ {
		wg.Add(1)
		go func(b int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(b)))
			for r := 0; r < rounds; r++ {
				seat := pool[rng.Intn(len(pool))]
				o, err := e.create(users[b], seat)
				if err != nil {
					continue
				}
				bought.Add(1)
				if rng.Intn(16) == 0 {
					_ = e.payOrder(o)
				} else { // most buyers hold a moment and change their minds: seats keep changing hands
					time.Sleep(time.Duration(rng.Intn(3)) * time.Millisecond)
					_, _ = e.orders.Cancel(ctx, o.UserID, o.OrderNo)
				}
			}
		}(b)
	}
	for s := 0; s < staffers; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(100 + s)))
			for r := 0; r < rounds; r++ {
				n := 1 + rng.Intn(2)
				var ids []int64
				for _, i := range rng.Perm(len(pool))[:n] {
					ids = append(ids, pool[i])
				}
				if rng.Intn(2) == 0 {
					if _, err := svc.Block(ctx, staff, e.show.ID, ids, "race"); err == nil {
						blocked.Add(1)
					} else if c := ErrorCode(err); c == CodeSeatTaken || c == CodeConflict {
						refused.Add(1)
					} else {
						t.Errorf("block: %v", err)
					}
				} else if _, err := svc.Unblock(ctx, staff, e.show.ID, ids, "race"); err != nil && ErrorCode(err) != CodeConflict {
					t.Errorf("unblock: %v", err)
				}
			}
		}(s)
	}
	wg.Wait()
	t.Logf("orders %d, blocks %d, refused blocks %d, house seats now %v", bought.Load(), blocked.Load(), refused.Load(), e.houseRows())
	if blocked.Load() == 0 || refused.Load() == 0 || bought.Load() == 0 {
		t.Errorf("the race did not race: %d blocks, %d refused, %d orders", blocked.Load(), refused.Load(), bought.Load())
	}
	check := func(when string) {
		t.Helper()
		if n := e.houseAndLive(); n != 0 {
			t.Errorf("%s: %d seats are house seats and in a live order", when, n)
		}
		for _, l := range e.houseRows() {
			if v := e.seatVal(e.show.ID, e.seatIDs(l)[0]); v != "B" {
				t.Errorf("%s: house seat %s is %q in Redis, want B", when, l, v)
			}
		}
		e.checkInvariants()
	}
	check("after the race")
	if err := e.rdb.FlushDB(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.seats.States(ctx, e.show.ID); err != nil {
		t.Fatal(err)
	}
	check("after a reload")
}

// TestHouseSeats_LoadWaitsForABlockInFlight: Redis flushed while a block has its seats
// blocked but has not committed: a buyer's load of the map waits for the block and sees
// its seats blocked, so the buyer cannot take them.
func TestHouseSeats_LoadWaitsForABlockInFlight(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	svc := e.showSeats()
	staff := e.user(0)
	if _, err := e.seats.States(ctx, e.show.ID); err != nil {
		t.Fatal(err)
	}
	ids := e.seatIDs("F1")
	buyErr := make(chan error, 1)
	svc.SetPauseHook(func(stage string) {
		if stage != "block-commit" {
			return
		}
		e.rdb.FlushDB(ctx)
		go func() {
			_, err := e.create(e.user(1), ids...)
			buyErr <- err
		}()
		time.Sleep(500 * time.Millisecond)
	})
	if _, err := svc.Block(ctx, staff, e.show.ID, ids, ""); err != nil {
		t.Fatal(err)
	}
	if err := <-buyErr; ErrorCode(err) != CodeSeatTaken {
		t.Errorf("buying a seat being blocked after a flush: %v, want SEAT_TAKEN", err)
	}
	if n := e.houseAndLive(); n != 0 {
		t.Errorf("%d seats are house seats and in a live order", n)
	}
	e.checkInvariants()
}

// TestHouseSeats_SeatsLeftWithoutTheMap: a show whose seat map is not in Redis counts
// its seats left from MySQL, and house seats are not left for sale.
func TestHouseSeats_SeatsLeftWithoutTheMap(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	before, err := e.shows.Get(ctx, e.show.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.showSeats().Block(ctx, e.user(0), e.show.ID, e.seatIDs("C3", "H4"), "press"); err != nil {
		t.Fatal(err)
	}
	if err := e.rdb.FlushDB(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	e.catalog.ForgetShow(e.show.ID)
	after, err := e.shows.Get(ctx, e.show.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after.SeatsLeft != before.SeatsLeft-2 {
		t.Errorf("seats left %d from MySQL after blocking 2 of %d", after.SeatsLeft, before.SeatsLeft)
	}
}
