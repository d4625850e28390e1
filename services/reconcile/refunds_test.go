package reconcile_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"seatflow/services/internal/testenv"
	"seatflow/services/mail"
	"seatflow/services/orders"
	"seatflow/services/reconcile"
	"seatflow/services/seats"
)

// TestReconcile_PartlyRefundedOrders: a paid order with some seats refunded is no
// finding; a refunded seat the seat cache still sells to the order (a lost release) is
// found and freed; an order whose money does not add up (its payment's refunded part
// lost) is a money_mismatch finding naming the order and both sums, repaired by nobody.
func TestReconcile_PartlyRefundedOrders(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	o, err := e.Create(e.User(1), e.SeatIDs("A1", "A2", "A3")...)
	if err != nil {
		t.Fatal(err)
	}
	e.Pay(o)
	if o, err = e.Orders.ByNo(ctx, o.OrderNo); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Payments.Refund(ctx, o, orders.RefundRequest{SeatIDs: e.SeatIDs("A1"), Reason: "test",
		Mail: mail.Message{Kind: mail.OrderRefunded}}); err != nil {
		t.Fatal(err)
	}
	run := func() *reconcile.ReconcileRun {
		t.Helper()
		r, err := testenv.NewReconciler(e, nil).Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerManual, ShowID: e.Show.ID})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := run(); len(r.Findings) != 0 {
		t.Fatalf("a partly refunded order gave findings: %+v", r.Findings)
	}

	a1 := e.SeatIDs("A1")[0]
	e.Clock.Advance(2 * time.Minute) // past the grace a young order's seats get
	e.RDB.HSet(ctx, e.Seats.Keys(e.Show.ID)[0], strconv.FormatInt(a1, 10), testenv.SoldTo(o))
	r := run()
	found := false
	for _, f := range r.Findings {
		if f.SeatID == a1 && f.Fixed {
			found = true
		}
	}
	if !found {
		t.Fatalf("the refunded seat sold in Redis was not found and fixed: %+v", r.Findings)
	}
	if v := e.SeatVal(e.Show.ID, a1); v != "F" {
		t.Errorf("refunded seat A1 is %q after reconciliation, want F", v)
	}
	e.CheckInvariants()

	e.Exec("UPDATE payments SET refunded_minor = 0 WHERE order_id = ?", o.ID)
	money := testenv.FindingsOf(run(), seats.FindingMoney)
	if len(money) != 1 || money[0].OrderNo != o.OrderNo || money[0].Fixed ||
		!strings.Contains(money[0].Detail, "13500") || !strings.Contains(money[0].Detail, "9000") {
		t.Fatalf("money findings %+v, want one naming %s, 13500 kept and 9000 of seats", money, o.OrderNo)
	}
	e.Exec("UPDATE payments SET refunded_minor = 4500 WHERE order_id = ?", o.ID)
	e.CheckInvariants()
}
