package staff_test

import (
	"context"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
	"seatflow/services/staff"
	"seatflow/services/store"
)

// TestShiftCashUp_Arithmetic: a shift's cash-up adds its float, its cash and card sales,
// and the refunds of counter orders its staff member made during it (the refunds table,
// by actor and time; another member's refund and one after the close do not count):
// expected = float + cash sales − cash refunds, the difference counted − expected, and
// the close is audited and refused a second time; the notes at the opening and
// the closing are both kept.
func TestShiftCashUp_Arithmetic(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	log := audit.NewAudit(e.DB, e.Clock)
	shifts := staff.NewShifts(e.DB, e.Catalog, log, e.Clock)
	seller, _ := e.Users.Create(ctx, "cash-seller@test.example", "password-123", "Seller", services.RoleStaff)
	other, _ := e.Users.Create(ctx, "cash-other@test.example", "password-123", "Other", services.RoleStaff)
	sh, err := shifts.Open(ctx, seller, e.Show.CinemaID, 20000, "till 2")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := shifts.Open(ctx, seller, e.Show.CinemaID, 0, ""); services.ErrorCode(err) != services.CodeConflict {
		t.Fatalf("a second open shift: %v", err)
	}
	sell := func(labels []string, tender string, given *int64) *services.Order {
		t.Helper()
		e.Clock.Advance(time.Second)
		o, r, err := e.Orders.SellAtCounter(ctx, log, orders.CounterSale{StaffID: seller, ShowID: e.Show.ID, SeatIDs: e.SeatIDs(labels...), Tender: tender, TenderedMinor: given})
		if err != nil {
			t.Fatal(err)
		}
		if r.ShiftID == nil || *r.ShiftID != sh.ID {
			t.Fatalf("sale not in the shift: %+v", r)
		}
		return o
	}
	given := int64(10000)
	cash1 := sell([]string{"A1", "A2"}, orders.TenderCash, &given) // 9000, change 1000
	cash2 := sell([]string{"H1"}, orders.TenderCash, nil)          // 6500
	card1 := sell([]string{"B1", "B2", "B3"}, orders.TenderCard, nil)
	refund := func(o *services.Order, actor int64, amount int64) {
		t.Helper()
		e.Clock.Advance(time.Second)
		r := &store.RefundRow{RefundID: "r-" + o.OrderNo + "-" + time.Now().Format("150405.000000000"), OrderID: o.ID, AmountMinor: amount,
			Currency: o.Currency, ActorID: &actor, CreatedAt: e.Clock.Now()}
		if err := store.InsertRefund(ctx, e.DB, r, nil); err != nil {
			t.Fatal(err)
		}
	}
	refund(cash1, seller, 4500)
	refund(card1, seller, 4500)
	refund(cash2, other, 6500) // another member's drawer
	e.Clock.Advance(time.Minute)
	closed, err := shifts.Close(ctx, other, sh.ID, 20000+9000+6500-4500-300, "short 3.00")
	if err != nil {
		t.Fatal(err)
	}
	refund(cash2, seller, 100) // after the close
	got, err := shifts.Get(ctx, sh.ID)
	if err != nil {
		t.Fatal(err)
	}
	for name, cu := range map[string]staff.CashUp{"at close": closed.CashUp, "read later": got.CashUp} {
		t.Run(name, func(t *testing.T) {
			diff, counted := cu.DifferenceMinor()
			if cu.CashSales != 2 || cu.CashSalesMinor != 9000+6500 || cu.CardSales != 1 || cu.CardSalesMinor != 3*4500 ||
				cu.CashRefundsMinor != 4500 || cu.CardRefundsMinor != 4500 || cu.ExpectedCashMinor() != 20000+9000+6500-4500 ||
				cu.CardNetMinor() != 3*4500-4500 || !counted || diff != -300 {
				t.Fatalf("cash-up %+v expected %d diff %d", cu, cu.ExpectedCashMinor(), diff)
			}
		})
	}
	if *got.ExpectedCashMinor != 31000 || *got.CardMinor != 9000 || *got.ClosedBy != other {
		t.Fatalf("stored close %+v", got.Shift)
	}
	if got.Note != "till 2" || got.CloseNote != "short 3.00" {
		t.Errorf("notes %q at the opening and %q at the closing, want both kept", got.Note, got.CloseNote)
	}
	if _, err := shifts.Close(ctx, seller, sh.ID, 0, ""); services.ErrorCode(err) != services.CodeConflict {
		t.Fatalf("closing twice: %v", err)
	}
	if len(e.AuditOf("shift", got.Shift.IDString())) != 2 {
		t.Fatal("open and close not audited")
	}
	// a limited member of another cinema neither sees nor closes it
	scoped := services.WithCinemaScope(ctx, services.CinemaScope{IDs: []int64{e.Show.CinemaID + 1000}})
	if _, err := shifts.Get(scoped, sh.ID); services.ErrorCode(err) != services.CodeForbidden {
		t.Fatalf("another cinema's staff read it: %v", err)
	}
	if list, _ := shifts.List(scoped, 0, 10); len(list) != 0 {
		t.Fatalf("another cinema's staff list it: %d", len(list))
	}
}

// TestBoxOffice_RefundOfAWalkIn: staff refund a counter sale like any paid order (its
// box_office payment refunded, the seats free), and its e-mail goes to the address the
// counter took, in its language.
func TestBoxOffice_RefundOfAWalkIn(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	seller, _ := e.Users.Create(ctx, "refund-seller@test.example", "password-123", "Seller", services.RoleStaff)
	o, _, err := staff.NewBoxOffice(e.DB, e.Orders, audit.NewAudit(e.DB, e.Clock)).Sell(ctx, orders.CounterSale{StaffID: seller,
		ShowID: e.Show.ID, SeatIDs: e.SeatIDs("F1", "F2"), Tender: orders.TenderCard, Email: "walkin@example.com", Lang: "zh"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := staffOrders(e).Refund(ctx, seller, o.OrderNo, "changed plans"); err != nil {
		t.Fatal(err)
	}
	if got := paymentStatuses(e, o.OrderNo); len(got) != 1 || got[0] != "refunded" {
		t.Fatalf("payments %v", got)
	}
	var to []string
	if err := e.DB.Select(&to, "SELECT CONCAT(kind, ' ', to_addr, ' ', lang) FROM mail_outbox WHERE order_no = ? ORDER BY id", o.OrderNo); err != nil {
		t.Fatal(err)
	}
	if len(to) != 2 || to[0] != "order_paid walkin@example.com zh" || to[1] != "order_refunded walkin@example.com zh" {
		t.Fatalf("outbox %q", to)
	}
	e.CheckInvariants()
}
