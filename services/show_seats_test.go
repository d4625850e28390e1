package services

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

// stuckHold holds seats in Redis for an order number that never reaches MySQL, as a
// process that died between the hold and its commit leaves them.
func (e *testEnv) stuckHold(userID int64, labels ...string) string {
	e.t.Helper()
	no := NewOrderNo(e.clock.Now())
	var refs []SeatRef
	for _, id := range e.seatIDs(labels...) {
		s, _ := e.hall.Seat(id)
		refs = append(refs, SeatRef{ID: id, Zone: s.ZoneCode})
	}
	out, err := e.seats.Hold(context.Background(), e.show.ID, no, userID, e.show.PurchaseLimit, refs)
	if err != nil || !out.OK() {
		e.t.Fatalf("stuck hold: %+v %v", out, err)
	}
	return no
}

func (e *testEnv) emailOf(userID int64) string {
	e.t.Helper()
	var email string
	if err := e.db.Get(&email, "SELECT email FROM users WHERE id = ?", userID); err != nil {
		e.t.Fatal(err)
	}
	return email
}

// TestShowSeats_ReleaseStuckHold: a hold whose order never reached MySQL is left alone
// while its order may still be in flight, then released owner-checked with a reason and
// audited; the zone and purchase-limit counts come back; releasing again is refused.
func TestShowSeats_ReleaseStuckHold(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	svc := e.showSeats()
	staff, buyer := e.user(0), e.user(1)
	free := e.loadedZoneFree("standard")
	no := e.stuckHold(buyer, "A5")
	seat := e.seatIDs("A5")[0]
	cases := []struct {
		name, orderNo, reason, code string
	}{
		{"no reason", no, " ", CodeInvalidRequest},
		{"no order number", "", "stuck", CodeInvalidRequest},
		{"order still in flight", no, "stuck", CodeConflict},
		{"another order's number", NewOrderNo(e.clock.Now().Add(-time.Hour)), "stuck", CodeConflict},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := svc.Release(ctx, staff, e.show.ID, seat, c.orderNo, c.reason); ErrorCode(err) != c.code {
				t.Fatalf("got %v, want %s", err, c.code)
			}
			if v := e.seatVal(e.show.ID, seat); !strings.HasPrefix(v, "H|"+no+"|") {
				t.Errorf("a refused release changed the seat: %q", v)
			}
		})
	}
	e.clock.Advance(61 * time.Second)
	res, err := svc.Release(ctx, staff, e.show.ID, seat, no, "process died before saving")
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != ReleaseHoldReleased || strings.Join(res.Seats, ",") != "A5" {
		t.Errorf("release: %+v", res)
	}
	if v := e.seatVal(e.show.ID, seat); v != "F" {
		t.Errorf("seat is %q after release", v)
	}
	if got := e.zoneFree(e.show.ID, "standard"); got != free {
		t.Errorf("standard free %s, want %s", got, free)
	}
	if got := e.userCount(e.show.ID, buyer); got != "0" {
		t.Errorf("buyer's count %s, want 0", got)
	}
	audit := e.auditOf("show_seat", strconv.FormatInt(e.show.ID, 10)+":"+strconv.FormatInt(seat, 10))
	if len(audit) != 1 || audit[0].Action != "seat.release" || *audit[0].ActorID != staff {
		t.Fatalf("audit: %+v", audit)
	}
	var before, after seatReleaseAudit
	json.Unmarshal(audit[0].Before, &before)
	json.Unmarshal(audit[0].After, &after)
	if before.OrderNo != no || before.State != StateHeld || after.State != StateFree || after.Reason != "process died before saving" {
		t.Errorf("audit before %s after %s", audit[0].Before, audit[0].After)
	}
	e.checkInvariants()
	if _, err := svc.Release(ctx, staff, e.show.ID, seat, no, "again"); ErrorCode(err) != CodeConflict {
		t.Errorf("second release: %v, want CONFLICT", err)
	}
	if n := len(e.auditOf("show_seat", strconv.FormatInt(e.show.ID, 10)+":"+strconv.FormatInt(seat, 10))); n != 1 {
		t.Errorf("a refused release was audited: %d entries", n)
	}
}

// loadedZoneFree returns the free count of a zone of the env's show, loading the map first.
func (e *testEnv) loadedZoneFree(zone string) string {
	e.t.Helper()
	if _, err := e.seats.States(context.Background(), e.show.ID); err != nil {
		e.t.Fatal(err)
	}
	return e.zoneFree(e.show.ID, zone)
}

// TestShowSeats_ReleaseNeverFreesAnotherOrdersSeat: staff saw a stuck hold of order A;
// meanwhile the seat was freed and another order holds it (in MySQL, or only in the seat
// cache so far): releasing A's hold frees nothing, and nothing is audited.
func TestShowSeats_ReleaseNeverFreesAnotherOrdersSeat(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	svc := e.showSeats()
	staff := e.user(0)
	seats := e.seatIDs("B1", "B2")
	stale := []string{e.stuckHold(e.user(1), "B1"), e.stuckHold(e.user(2), "B2")}
	e.clock.Advance(61 * time.Second)
	for i, id := range seats {
		s, _ := e.hall.Seat(id)
		if n, err := e.seats.Release(ctx, e.show.ID, stale[i], []SeatRef{{ID: id, Zone: s.ZoneCode}}, false); err != nil || n != 1 {
			t.Fatalf("free the stale hold: %d %v", n, err)
		}
	}
	// B1: another buyer's order, committed; B2: another buyer's hold whose order is in flight
	other, err := e.create(e.user(3), seats[0])
	if err != nil {
		t.Fatal(err)
	}
	inFlight := e.stuckHold(e.user(4), "B2")
	now := []string{heldBy(other), "H|" + inFlight + "|"}
	for i, id := range seats {
		t.Run(s2(i), func(t *testing.T) {
			if _, err := svc.Release(ctx, staff, e.show.ID, id, stale[i], "stuck"); ErrorCode(err) != CodeConflict {
				t.Fatalf("got %v, want CONFLICT", err)
			}
			if v := e.seatVal(e.show.ID, id); !strings.HasPrefix(v, now[i]) {
				t.Errorf("seat is %q, want %s...", v, now[i])
			}
			if n := len(e.auditOf("show_seat", strconv.FormatInt(e.show.ID, 10)+":"+strconv.FormatInt(id, 10))); n != 0 {
				t.Errorf("a refused release was audited")
			}
		})
	}
}

func s2(i int) string { return []string{"held by a committed order", "held by an order in flight"}[i] }

// TestShowSeats_ReleaseByOrderState: a seat of a pending order is released by cancelling
// the order (every seat of it freed, audited as order.cancel); a sold seat of a paid
// order is refused (refund it); a stale hold on a seat MySQL gives to another live order
// is refused (reconciliation's job).
func TestShowSeats_ReleaseByOrderState(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	svc := e.showSeats()
	staff := e.user(0)
	pending, err := e.create(e.user(1), e.seatIDs("C1", "C2")...)
	if err != nil {
		t.Fatal(err)
	}
	paid, err := e.create(e.user(2), e.seatIDs("C3")...)
	if err != nil {
		t.Fatal(err)
	}
	e.pay(paid)
	t.Run("pending order cancelled", func(t *testing.T) {
		res, err := svc.Release(ctx, staff, e.show.ID, e.seatIDs("C1")[0], pending.OrderNo, "buyer called")
		if err != nil {
			t.Fatal(err)
		}
		if res.Action != ReleaseOrderCancelled || strings.Join(res.Seats, ",") != "C1,C2" {
			t.Errorf("release: %+v", res)
		}
		if st := e.orderStatus(pending.OrderNo); st != OrderCancelled {
			t.Errorf("order is %s", st)
		}
		for _, id := range e.seatIDs("C1", "C2") {
			if v := e.seatVal(e.show.ID, id); v != "F" {
				t.Errorf("seat %d is %q", id, v)
			}
		}
		audit := e.auditOf("order", pending.OrderNo)
		if len(audit) != 1 || audit[0].Action != "order.cancel" || *audit[0].ActorID != staff || !strings.Contains(string(audit[0].After), "buyer called") {
			t.Errorf("audit: %+v", audit)
		}
	})
	t.Run("paid order refused", func(t *testing.T) {
		if _, err := svc.Release(ctx, staff, e.show.ID, e.seatIDs("C3")[0], paid.OrderNo, "x"); ErrorCode(err) != CodeOrderState {
			t.Fatalf("got %v, want ORDER_STATE", err)
		}
		if v := e.seatVal(e.show.ID, e.seatIDs("C3")[0]); v != soldTo(paid) {
			t.Errorf("seat is %q", v)
		}
	})
	t.Run("another live order in MySQL", func(t *testing.T) {
		live, err := e.create(e.user(3), e.seatIDs("C5")...)
		if err != nil {
			t.Fatal(err)
		}
		stale := NewOrderNo(e.clock.Now().Add(-time.Hour))
		id := e.seatIDs("C5")[0]
		e.rdb.HSet(ctx, e.seats.Keys(e.show.ID)[0], strconv.FormatInt(id, 10), "H|"+stale+"|99")
		_, err = svc.Release(ctx, staff, e.show.ID, id, stale, "x")
		if ErrorCode(err) != CodeConflict || !strings.Contains(err.Error(), live.OrderNo) {
			t.Fatalf("got %v, want CONFLICT naming %s", err, live.OrderNo)
		}
		if v := e.seatVal(e.show.ID, id); v != "H|"+stale+"|99" {
			t.Errorf("seat is %q", v)
		}
	})
}

// TestShowSeats_Map: the staff map gives every seat its state (free, held, sold,
// blocked, house), the order and buyer of held and sold seats, flags a stuck hold and
// says where the seat cache and MySQL disagree.
func TestShowSeats_Map(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	svc := e.showSeats()
	staff, u1, u2 := e.user(0), e.user(1), e.user(2)
	held, err := e.create(u1, e.seatIDs("D1")...)
	if err != nil {
		t.Fatal(err)
	}
	sold, err := e.create(u2, e.seatIDs("D2")...)
	if err != nil {
		t.Fatal(err)
	}
	e.pay(sold)
	if _, err := svc.Block(ctx, staff, e.show.ID, e.seatIDs("D3"), ""); err != nil {
		t.Fatal(err)
	}
	stuck := e.stuckHold(u1, "D4")
	e.clock.Advance(61 * time.Second)
	m, err := svc.Map(ctx, e.show.ID)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]StaffSeat{}
	for _, s := range m.Seats {
		by[s.Label] = s
	}
	if len(m.Seats) != len(e.hall.Seats) || !m.Editable {
		t.Fatalf("%d seats, editable %v", len(m.Seats), m.Editable)
	}
	cases := []struct {
		label, state, orderNo, status, email, mismatch string
		stuck, cancellable                             bool
	}{
		{"D1", StateHeld, held.OrderNo, OrderPending, e.emailOf(u1), "", false, true},
		{"D2", StateSold, sold.OrderNo, OrderPaid, e.emailOf(u2), "", false, false},
		{"D3", StateHouse, "", "", "", "", false, false},
		{"D4", StateHeld, stuck, "", "", "seat cache: held by order " + stuck + "; database: free", true, false},
		{"D5", StateFree, "", "", "", "", false, false},
		{"J1", StateBlocked, "", "", "", "", false, false},
	}
	for _, c := range cases {
		t.Run(c.label, func(t *testing.T) {
			s := by[c.label]
			if s.State != c.state || s.OrderNo != c.orderNo || s.OrderStatus != c.status || s.BuyerEmail != c.email ||
				s.Mismatch != c.mismatch || s.Stuck != c.stuck || s.Cancellable != c.cancellable {
				t.Errorf("got %+v", s)
			}
		})
	}
	if m.Counts[StateHouse] != 1 || m.Counts[StateSold] != 1 || m.Counts[StateHeld] != 2 {
		t.Errorf("counts %v", m.Counts)
	}
}
