package reconcile_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// TestReconcile_ExchangeCrashConverges: the process dies between an exchange's Redis
// step and its MySQL transaction (the fail hook at "exchanged" stops it there: nothing
// after it runs, no give-back). The cache then has the order on its new seats and the
// old ones free, while MySQL, the truth, still has it on the old ones. Reconciliation
// brings the cache back to MySQL once the order is past the grace (it never spares an
// order's hold it cannot prove in flight): the old seats held (or sold) by the order
// again, the new seats free, counters right; the order can then exchange normally. For
// a pending and for a paid order.
func TestReconcile_ExchangeCrashConverges(t *testing.T) {
	forPendingAndPaid(t, func(t *testing.T, e *testenv.TestEnv, o *services.Order, mine string) {
		ctx := context.Background()
		e.Orders.SetFailHook(func(stage string) error {
			if stage == "exchanged" {
				return errors.New("killed")
			}
			return nil
		})
		req := orders.ExchangeRequest{UserID: o.UserID, OrderNo: o.OrderNo, SeatIDs: e.SeatIDs("C1", "E4")}
		if _, err := e.Orders.Exchange(ctx, req); services.ErrorCode(err) != services.CodeUnavailable {
			t.Fatalf("the crashed exchange answered %v", err)
		}
		e.Orders.SetFailHook(nil)
		c2, e4 := e.SeatIDs("C2")[0], e.SeatIDs("E4")[0]
		if e.SeatVal(e.Show.ID, c2) != "F" || e.SeatVal(e.Show.ID, e4) != mine {
			t.Fatalf("the crash did not stop between the stores: C2 %q, E4 %q", e.SeatVal(e.Show.ID, c2), e.SeatVal(e.Show.ID, e4))
		}
		e.Clock.Advance(2 * time.Minute) // past the 60 s grace of a young order's holds
		r := testenv.FaultReconciler(e, time.Minute, nil)
		if c := e.ReconcileUntilClean(r, 3, e.Show); !c.Clean {
			t.Fatalf("reconciliation did not converge: %s", c)
		} else {
			t.Logf("converged: %s", c)
		}
		if e.SeatVal(e.Show.ID, c2) != mine || e.SeatVal(e.Show.ID, e4) != "F" {
			t.Errorf("after reconciliation: C2 %q, E4 %q (want the order on C2, E4 free)", e.SeatVal(e.Show.ID, c2), e.SeatVal(e.Show.ID, e4))
		}
		got, err := e.Orders.ByNo(ctx, o.OrderNo)
		if err != nil {
			t.Fatal(err)
		}
		if l := orders.Labels(got.Seats); len(l) != 2 || l[0] != "C1" || l[1] != "C2" {
			t.Errorf("MySQL has the order on %v", l)
		}
		e.CheckInvariants()
		if _, err := e.Orders.Exchange(ctx, req); err != nil {
			t.Fatalf("the exchange again, after reconciliation: %v", err)
		}
		e.CheckInvariants()
	})
}

// forPendingAndPaid runs test as two subtests, each on an env of its own with an order of
// user 1 on C1 and C2: pending, then paid; mine is the seats' value in the cache.
func forPendingAndPaid(t *testing.T, test func(t *testing.T, e *testenv.TestEnv, o *services.Order, mine string)) {
	for _, paid := range []bool{false, true} {
		name := "pending"
		if paid {
			name = "paid"
		}
		t.Run(name, func(t *testing.T) {
			e := testenv.NewTestEnv(t, testenv.Unlimited)
			o, err := e.Create(e.User(1), e.SeatIDs("C1", "C2")...)
			if err != nil {
				t.Fatal(err)
			}
			mine := testenv.HeldBy(o)
			if paid {
				if err := e.PayOrder(o); err != nil {
					t.Fatal(err)
				}
				mine = testenv.SoldTo(o)
			}
			test(t, e, o, mine)
		})
	}
}
