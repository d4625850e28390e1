package reconcile_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// TestExchange_RefusedGiveBackFreesTheNewSeats: an exchange's transaction fails after its
// Redis step (a deadlock victim, from the fail hook at "exchanged"), and meanwhile another
// buyer's hold took the seat the order let go, so the give-back (the script the other way
// round) is refused. The new seat must not stay the order's in the cache: MySQL never
// gave it to the order, and a hold of it would turn buyers away from a free seat until
// reconciliation. It is freed at once; the order keeps its old seats in MySQL, and
// reconciliation gives the seat taken meanwhile back to it. For a pending and a paid
// order.
func TestExchange_RefusedGiveBackFreesTheNewSeats(t *testing.T) {
	forPendingAndPaid(t, func(t *testing.T, e *testenv.TestEnv, o *services.Order, mine string) {
		e.QuietLogs()
		ctx := context.Background()
		var taker string
		e.Orders.SetFailHook(func(stage string) error {
			if stage != "exchanged" || taker != "" {
				return nil
			}
			taker = e.OrphanHold(e.User(2), "C2") // C2 was freed by the script a moment ago
			return &mysql.MySQLError{Number: 1213, Message: "Deadlock found when trying to get lock"}
		})
		req := orders.ExchangeRequest{UserID: o.UserID, OrderNo: o.OrderNo, SeatIDs: e.SeatIDs("C1", "E4")}
		if _, err := e.Orders.Exchange(ctx, req); services.ErrorCode(err) != services.CodeUnavailable {
			t.Fatalf("the exchange whose give-back was refused answered %v, want UNAVAILABLE", err)
		}
		e.Orders.SetFailHook(nil)
		if taker == "" {
			t.Fatal("the exchange never reached its Redis step")
		}
		c2, e4 := e.SeatIDs("C2")[0], e.SeatIDs("E4")[0]
		if v := e.SeatVal(e.Show.ID, e4); v != "F" {
			t.Errorf("the new seat E4 is %q in the cache after the failed exchange, want free", v)
		}
		if v := e.SeatVal(e.Show.ID, c2); !strings.HasPrefix(v, "H|"+taker+"|") {
			t.Errorf("C2 is %q, want the other buyer's hold (the give-back must not take it)", v)
		}
		got, err := e.Orders.ByNo(ctx, o.OrderNo)
		if err != nil {
			t.Fatal(err)
		}
		if l := orders.Labels(got.Seats); len(l) != 2 || l[0] != "C1" || l[1] != "C2" {
			t.Errorf("MySQL has the order on %v, want C1, C2", l)
		}
		e.Clock.Advance(2 * time.Minute) // past the 60 s grace of the orphan's hold
		r := testenv.FaultReconciler(e, time.Minute, nil)
		if c := e.ReconcileUntilClean(r, 3, e.Show); !c.Clean {
			t.Fatalf("reconciliation did not converge: %s", c)
		}
		if e.SeatVal(e.Show.ID, c2) != mine || e.SeatVal(e.Show.ID, e4) != "F" {
			t.Errorf("after reconciliation: C2 %q, E4 %q (want the order on C2, E4 free)", e.SeatVal(e.Show.ID, c2), e.SeatVal(e.Show.ID, e4))
		}
		e.CheckInvariants()
	})
}
