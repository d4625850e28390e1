package staff_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
	"seatflow/services/staff"
)

// doorEnv is a door over the env's stores with its ticket signer and a named staff member.
type doorEnv struct {
	*testenv.TestEnv
	door    *staff.Door
	tickets *orders.Tickets
	staffID int64
}

func newDoorEnv(t *testing.T) *doorEnv {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	tickets := orders.NewTickets([]byte("door-test-secret")).WithCodes(e.DB, e.Clock)
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	id, err := e.Users.Create(context.Background(), fmt.Sprintf("door-%d@test.example", time.Now().UnixNano()), "password-123", "Dana Door", services.RoleStaff)
	if err != nil {
		t.Fatal(err)
	}
	return &doorEnv{TestEnv: e, door: staff.NewDoor(e.DB, e.Orders, tickets, audit.NewAudit(e.DB, e.Clock), shanghai), tickets: tickets, staffID: id}
}

// paid creates and pays an order of one seat for a new buyer.
func (e *doorEnv) paid(label string) *services.Order {
	e.T.Helper()
	o := e.pending(label)
	if err := e.PayOrder(o); err != nil {
		e.T.Fatal(err)
	}
	return o
}

// pending creates an order of one seat for a new buyer, not paid.
func (e *doorEnv) pending(label string) *services.Order {
	e.T.Helper()
	o, err := e.Create(e.User(1), e.SeatIDs(label)...)
	if err != nil {
		e.T.Fatal(err)
	}
	return o
}

// TestDoor_RefusalReasons: every reason a ticket is refused at the door comes back with
// its code and a message that says why, and a refused ticket stays unadmitted; a good
// ticket is admitted once, with the time and the staff member recorded.
func TestDoor_RefusalReasons(t *testing.T) {
	e := newDoorEnv(t)
	ctx := context.Background()
	other := e.MakeShow(e.Show.HallID, services.ShowOnSale, e.Clock.Now().Add(-time.Hour), e.Clock.Now().Add(72*time.Hour))
	day := e.Show.StartsAt.In(e.door.Zone()).Format(time.DateOnly)

	forged := e.paid("A1")
	forgedRef := e.tickets.Ref(forged)
	forgedRef = forgedRef[:len(forgedRef)-2] + "AA"
	if forgedRef == e.tickets.Ref(forged) {
		forgedRef = forgedRef[:len(forgedRef)-2] + "BA"
	}
	otherSecret := orders.TicketRef([]byte("another-secret"), forged)
	unknown := e.tickets.Ref(&services.Order{OrderNo: "NOSUCHORDER1", ShowID: e.Show.ID})

	refunded := e.paid("A2")
	if _, err := staffOrders(e.TestEnv).Refund(ctx, e.staffID, refunded.OrderNo, "ill"); err != nil {
		t.Fatal(err)
	}
	pending := e.pending("A3")
	cancelled := e.pending("A4")
	if _, err := e.Orders.Cancel(ctx, cancelled.UserID, cancelled.OrderNo); err != nil {
		t.Fatal(err)
	}
	expired := e.pending("A5")
	e.Exec("UPDATE orders SET status = 'expired' WHERE id = ?", expired.ID)

	otherShow, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(1), ShowID: other.ID, SeatIDs: e.SeatIDs("A6")})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.PayOrder(otherShow); err != nil {
		t.Fatal(err)
	}
	admitted := e.paid("A7")
	if _, err := e.door.Admit(ctx, e.staffID, e.tickets.Ref(admitted), staff.DoorScope{}); err != nil {
		t.Fatal(err)
	}
	good := e.paid("A8")
	cancelledShow := e.MakeShow(e.Show.HallID, services.ShowOnSale, e.Clock.Now().Add(-time.Hour), e.Clock.Now().Add(96*time.Hour))
	onCancelled, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(1), ShowID: cancelledShow.ID, SeatIDs: e.SeatIDs("A9")})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.PayOrder(onCancelled); err != nil {
		t.Fatal(err)
	}
	e.Exec("UPDATE shows SET status = 'cancelled' WHERE id = ?", cancelledShow.ID)

	local := e.Show.StartsAt.In(e.door.Zone()).Format("15:04")
	cases := []struct {
		name, ref string
		scope     staff.DoorScope
		code      string
		says      string
	}{
		{"malformed", "SF1.not-a-ticket", staff.DoorScope{}, services.CodeNotFound, "malformed, forged or unknown"},
		{"forged signature", forgedRef, staff.DoorScope{}, services.CodeNotFound, "forged"},
		{"signed with another secret", otherSecret, staff.DoorScope{}, services.CodeNotFound, "forged"},
		{"unknown order", unknown, staff.DoorScope{}, services.CodeNotFound, "unknown"},
		{"refunded", e.tickets.Ref(refunded), staff.DoorScope{}, services.CodeTicketNotValid, "refunded"},
		{"pending", e.tickets.Ref(pending), staff.DoorScope{}, services.CodeTicketNotValid, "the order is pending, not paid"},
		{"cancelled", e.tickets.Ref(cancelled), staff.DoorScope{}, services.CodeTicketNotValid, "the order is cancelled, not paid"},
		{"expired", e.tickets.Ref(expired), staff.DoorScope{}, services.CodeTicketNotValid, "the order is expired, not paid"},
		{"show cancelled", e.tickets.Ref(onCancelled), staff.DoorScope{}, services.CodeTicketNotValid, "the show was cancelled"},
		{"wrong show", e.tickets.Ref(good), staff.DoorScope{ShowID: other.ID}, services.CodeWrongShow, "wrong show: this ticket is for " + e.Show.Movie.Title + " at "},
		{"another day", e.tickets.Ref(otherShow), staff.DoorScope{Day: day}, services.CodeWrongShow, other.Movie.Title},
		{"already admitted", e.tickets.Ref(admitted), staff.DoorScope{ShowID: e.Show.ID}, services.CodeAlreadyAdmitted, "already admitted at 18:00 by Dana Door"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tk, err := e.door.Admit(ctx, e.staffID, c.ref, c.scope)
			if services.ErrorCode(err) != c.code || err == nil || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("admit: %v, want %s saying %q", err, c.code, c.says)
			}
			if c.code == services.CodeNotFound {
				if tk != nil {
					t.Fatalf("a refused reference returned a ticket %+v", tk)
				}
				return
			}
			if tk == nil || tk.Order == nil {
				t.Fatal("a refused genuine ticket came back without the ticket")
			}
			if c.code != services.CodeAlreadyAdmitted && tk.AdmittedAt != nil {
				t.Fatalf("a refused ticket is admitted: %v", tk.AdmittedAt)
			}
		})
	}
	t.Logf("wrong-show message names the show's local start %s", local)

	tk, err := e.door.Admit(ctx, e.staffID, e.tickets.Ref(good), staff.DoorScope{ShowID: e.Show.ID})
	if err != nil {
		t.Fatal(err)
	}
	if tk.AdmittedAt == nil || !tk.AdmittedAt.Equal(e.Clock.Now()) || tk.AdmittedBy != e.staffID || tk.AdmittedByName != "Dana Door" || tk.BuyerName != "User" {
		t.Fatalf("admitted ticket %+v", tk)
	}
	var n int
	if err := e.DB.Get(&n, "SELECT COUNT(*) FROM orders WHERE admitted_at IS NOT NULL"); err != nil || n != 2 {
		t.Fatalf("%d orders admitted (%v), want 2: the refusals admit nothing", n, err)
	}
	count, err := e.door.Count(ctx, []int64{e.Show.ID})
	if err != nil || count.Admitted != 2 || count.Seats != 3 {
		t.Fatalf("count %+v (%v), want 2 of 3 (A1, A7, A8 paid on the show)", count, err)
	}
}

// TestInvariant17_TicketAdmittedAtMostOnce: N doors admitting the same ticket at once admit
// it exactly once: one call wins, the others are ALREADY_ADMITTED naming the winner's
// staff member and time, one admitted_at is stored, one audit entry is written, and a
// later check reports the admission.
func TestInvariant17_TicketAdmittedAtMostOnce(t *testing.T) {
	e := newDoorEnv(t)
	ctx := context.Background()
	o := e.paid("B1")
	ref := e.tickets.Ref(o)
	const doors = 12
	staffIDs := make([]int64, doors)
	for i := range staffIDs {
		id, err := e.Users.Create(ctx, fmt.Sprintf("door%d-%d@test.example", i, time.Now().UnixNano()), "password-123", fmt.Sprintf("Door %d", i), services.RoleStaff)
		if err != nil {
			t.Fatal(err)
		}
		staffIDs[i] = id
	}
	type result struct {
		tk  *staff.Ticket
		err error
	}
	results := make([]result, doors)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range doors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			tk, err := e.door.Admit(ctx, staffIDs[i], ref, staff.DoorScope{ShowID: e.Show.ID})
			results[i] = result{tk, err}
		}()
	}
	close(start)
	wg.Wait()
	winners, already := 0, 0
	var winnerName string
	for _, r := range results {
		switch {
		case r.err == nil:
			winners++
			winnerName = r.tk.AdmittedByName
		case services.ErrorCode(r.err) == services.CodeAlreadyAdmitted:
			already++
		default:
			t.Fatalf("unexpected refusal: %v", r.err)
		}
	}
	if winners != 1 || already != doors-1 {
		t.Fatalf("%d admitted, %d already admitted; want 1 and %d", winners, already, doors-1)
	}
	for _, r := range results {
		if r.err != nil && !strings.Contains(r.err.Error(), "by "+winnerName) {
			t.Fatalf("a losing door's message %q does not name the winner %q", r.err, winnerName)
		}
	}
	var stored int
	if err := e.DB.Get(&stored, "SELECT COUNT(*) FROM orders WHERE id = ? AND admitted_at IS NOT NULL AND admitted_by IS NOT NULL", o.ID); err != nil || stored != 1 {
		t.Fatalf("stored admissions %d (%v)", stored, err)
	}
	entries, err := audit.NewAudit(e.DB, e.Clock).List(ctx, audit.AuditFilter{Action: "ticket.admit", Entity: "order", EntityID: o.OrderNo})
	if err != nil || len(entries) != 1 {
		t.Fatalf("%d audit entries (%v), want 1", len(entries), err)
	}
	tk, err := e.door.Check(ctx, ref)
	if err != nil || tk.AdmittedAt == nil || tk.AdmittedByName != winnerName {
		t.Fatalf("check after the race: %+v (%v)", tk, err)
	}
	t.Logf("%d doors: 1 admitted by %s, %d ALREADY_ADMITTED, 1 audit entry", doors, winnerName, already)
}
