package staff_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/seats"
	"seatflow/services/staff"
)

func emailOf(e *testenv.TestEnv, userID int64) string {
	e.T.Helper()
	var email string
	if err := e.DB.Get(&email, "SELECT email FROM users WHERE id = ?", userID); err != nil {
		e.T.Fatal(err)
	}
	return email
}

// TestShowSeats_ReleaseStuckHold: a hold whose order never reached MySQL is left alone
// while its order may still be in flight, then released owner-checked with a reason and
// audited; the zone and purchase-limit counts come back; releasing again is refused.
func TestShowSeats_ReleaseStuckHold(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	svc := showSeats(e)
	staffID, buyer := e.User(0), e.User(1)
	free := loadedZoneFree(e, "standard")
	no := e.OrphanHold(buyer, "A5")
	seat := e.SeatIDs("A5")[0]
	cases := []struct {
		name, orderNo, reason, code string
	}{
		{"no reason", no, " ", services.CodeInvalidRequest},
		{"no order number", "", "stuck", services.CodeInvalidRequest},
		{"order still in flight", no, "stuck", services.CodeConflict},
		{"another order's number", services.NewOrderNo(e.Clock.Now().Add(-time.Hour)), "stuck", services.CodeConflict},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := svc.Release(ctx, staffID, e.Show.ID, seat, c.orderNo, c.reason); services.ErrorCode(err) != c.code {
				t.Fatalf("got %v, want %s", err, c.code)
			}
			if v := e.SeatVal(e.Show.ID, seat); !strings.HasPrefix(v, "H|"+no+"|") {
				t.Errorf("a refused release changed the seat: %q", v)
			}
		})
	}
	e.Clock.Advance(61 * time.Second)
	res, err := svc.Release(ctx, staffID, e.Show.ID, seat, no, "process died before saving")
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != staff.ReleaseHoldReleased || strings.Join(res.Seats, ",") != "A5" {
		t.Errorf("release: %+v", res)
	}
	if v := e.SeatVal(e.Show.ID, seat); v != "F" {
		t.Errorf("seat is %q after release", v)
	}
	if got := e.ZoneFree(e.Show.ID, "standard"); got != free {
		t.Errorf("standard free %s, want %s", got, free)
	}
	if got := e.UserCount(e.Show.ID, buyer); got != "0" {
		t.Errorf("buyer's count %s, want 0", got)
	}
	audit := e.AuditOf("show_seat", strconv.FormatInt(e.Show.ID, 10)+":"+strconv.FormatInt(seat, 10))
	if len(audit) != 1 || audit[0].Action != "seat.release" || *audit[0].ActorID != staffID {
		t.Fatalf("audit: %+v", audit)
	}
	var before, after staff.SeatReleaseAudit
	json.Unmarshal(audit[0].Before, &before)
	json.Unmarshal(audit[0].After, &after)
	if before.OrderNo != no || before.State != services.StateHeld || after.State != services.StateFree || after.Reason != "process died before saving" {
		t.Errorf("audit before %s after %s", audit[0].Before, audit[0].After)
	}
	e.CheckInvariants()
	if _, err := svc.Release(ctx, staffID, e.Show.ID, seat, no, "again"); services.ErrorCode(err) != services.CodeConflict {
		t.Errorf("second release: %v, want CONFLICT", err)
	}
	if n := len(e.AuditOf("show_seat", strconv.FormatInt(e.Show.ID, 10)+":"+strconv.FormatInt(seat, 10))); n != 1 {
		t.Errorf("a refused release was audited: %d entries", n)
	}
}

// loadedZoneFree returns the free count of a zone of the env's show, loading the map first.
func loadedZoneFree(e *testenv.TestEnv, zone string) string {
	e.T.Helper()
	if _, err := e.Seats.States(context.Background(), e.Show.ID); err != nil {
		e.T.Fatal(err)
	}
	return e.ZoneFree(e.Show.ID, zone)
}

// TestShowSeats_ReleaseNeverFreesAnotherOrdersSeat: staff saw a stuck hold of order A;
// meanwhile the seat was freed and another order holds it (in MySQL, or only in the seat
// cache so far): releasing A's hold frees nothing, and nothing is audited.
func TestShowSeats_ReleaseNeverFreesAnotherOrdersSeat(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	svc := showSeats(e)
	staff := e.User(0)
	seatList := e.SeatIDs("B1", "B2")
	stale := []string{e.OrphanHold(e.User(1), "B1"), e.OrphanHold(e.User(2), "B2")}
	e.Clock.Advance(61 * time.Second)
	for i, id := range seatList {
		s, _ := e.Hall.Seat(id)
		if n, err := e.Seats.Release(ctx, e.Show.ID, stale[i], []seats.SeatRef{{ID: id, Zone: s.ZoneCode}}, false); err != nil || n != 1 {
			t.Fatalf("free the stale hold: %d %v", n, err)
		}
	}
	// B1: another buyer's order, committed; B2: another buyer's hold whose order is in flight
	other, err := e.Create(e.User(3), seatList[0])
	if err != nil {
		t.Fatal(err)
	}
	inFlight := e.OrphanHold(e.User(4), "B2")
	now := []string{testenv.HeldBy(other), "H|" + inFlight + "|"}
	for i, id := range seatList {
		t.Run(s2(i), func(t *testing.T) {
			if _, err := svc.Release(ctx, staff, e.Show.ID, id, stale[i], "stuck"); services.ErrorCode(err) != services.CodeConflict {
				t.Fatalf("got %v, want CONFLICT", err)
			}
			if v := e.SeatVal(e.Show.ID, id); !strings.HasPrefix(v, now[i]) {
				t.Errorf("seat is %q, want %s...", v, now[i])
			}
			if n := len(e.AuditOf("show_seat", strconv.FormatInt(e.Show.ID, 10)+":"+strconv.FormatInt(id, 10))); n != 0 {
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
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	svc := showSeats(e)
	staffID := e.User(0)
	pending, err := e.Create(e.User(1), e.SeatIDs("C1", "C2")...)
	if err != nil {
		t.Fatal(err)
	}
	paid, err := e.Create(e.User(2), e.SeatIDs("C3")...)
	if err != nil {
		t.Fatal(err)
	}
	e.Pay(paid)
	t.Run("pending order cancelled", func(t *testing.T) {
		res, err := svc.Release(ctx, staffID, e.Show.ID, e.SeatIDs("C1")[0], pending.OrderNo, "buyer called")
		if err != nil {
			t.Fatal(err)
		}
		if res.Action != staff.ReleaseOrderCancelled || strings.Join(res.Seats, ",") != "C1,C2" {
			t.Errorf("release: %+v", res)
		}
		if st := e.OrderStatus(pending.OrderNo); st != services.OrderCancelled {
			t.Errorf("order is %s", st)
		}
		for _, id := range e.SeatIDs("C1", "C2") {
			if v := e.SeatVal(e.Show.ID, id); v != "F" {
				t.Errorf("seat %d is %q", id, v)
			}
		}
		audit := e.AuditOf("order", pending.OrderNo)
		if len(audit) != 1 || audit[0].Action != "order.cancel" || *audit[0].ActorID != staffID || !strings.Contains(string(audit[0].After), "buyer called") {
			t.Errorf("audit: %+v", audit)
		}
	})
	t.Run("paid order refused", func(t *testing.T) {
		if _, err := svc.Release(ctx, staffID, e.Show.ID, e.SeatIDs("C3")[0], paid.OrderNo, "x"); services.ErrorCode(err) != services.CodeOrderState {
			t.Fatalf("got %v, want ORDER_STATE", err)
		}
		if v := e.SeatVal(e.Show.ID, e.SeatIDs("C3")[0]); v != testenv.SoldTo(paid) {
			t.Errorf("seat is %q", v)
		}
	})
	t.Run("another live order in MySQL", func(t *testing.T) {
		live, err := e.Create(e.User(3), e.SeatIDs("C5")...)
		if err != nil {
			t.Fatal(err)
		}
		stale := services.NewOrderNo(e.Clock.Now().Add(-time.Hour))
		id := e.SeatIDs("C5")[0]
		e.RDB.HSet(ctx, e.Seats.Keys(e.Show.ID)[0], strconv.FormatInt(id, 10), "H|"+stale+"|99")
		_, err = svc.Release(ctx, staffID, e.Show.ID, id, stale, "x")
		if services.ErrorCode(err) != services.CodeConflict || !strings.Contains(err.Error(), live.OrderNo) {
			t.Fatalf("got %v, want CONFLICT naming %s", err, live.OrderNo)
		}
		if v := e.SeatVal(e.Show.ID, id); v != "H|"+stale+"|99" {
			t.Errorf("seat is %q", v)
		}
	})
}

// TestShowSeats_Map: the staff map gives every seat its state (free, held, sold,
// blocked, house), the order and buyer of held and sold seats, flags a stuck hold and
// says where the seat cache and MySQL disagree.
func TestShowSeats_Map(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	svc := showSeats(e)
	staffID, u1, u2 := e.User(0), e.User(1), e.User(2)
	held, err := e.Create(u1, e.SeatIDs("D1")...)
	if err != nil {
		t.Fatal(err)
	}
	sold, err := e.Create(u2, e.SeatIDs("D2")...)
	if err != nil {
		t.Fatal(err)
	}
	e.Pay(sold)
	if _, err := svc.Block(ctx, staffID, e.Show.ID, e.SeatIDs("D3"), ""); err != nil {
		t.Fatal(err)
	}
	stuck := e.OrphanHold(u1, "D4")
	e.Clock.Advance(61 * time.Second)
	m, err := svc.Map(ctx, e.Show.ID)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]staff.StaffSeat{}
	for _, s := range m.Seats {
		by[s.Label] = s
	}
	if len(m.Seats) != len(e.Hall.Seats) || !m.Editable {
		t.Fatalf("%d seats, editable %v", len(m.Seats), m.Editable)
	}
	cases := []struct {
		label, state, orderNo, status, email, mismatch string
		stuck, cancellable                             bool
	}{
		{"D1", services.StateHeld, held.OrderNo, services.OrderPending, emailOf(e, u1), "", false, true},
		{"D2", services.StateSold, sold.OrderNo, services.OrderPaid, emailOf(e, u2), "", false, false},
		{"D3", staff.StateHouse, "", "", "", "", false, false},
		{"D4", services.StateHeld, stuck, "", "", "seat cache: held by order " + stuck + "; database: free", true, false},
		{"D5", services.StateFree, "", "", "", "", false, false},
		{"J1", services.StateBlocked, "", "", "", "", false, false},
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
	if m.Counts[staff.StateHouse] != 1 || m.Counts[services.StateSold] != 1 || m.Counts[services.StateHeld] != 2 {
		t.Errorf("counts %v", m.Counts)
	}
}
