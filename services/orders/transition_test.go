package orders_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/internal/testenv"
	"seatflow/services/mail"
	"seatflow/services/orders"
	"seatflow/services/store"
)

var allStatuses = []string{services.OrderPending, services.OrderPaid, services.OrderCancelled, services.OrderExpired, services.OrderRefunded}

// allowedEdges is the order's state diagram as DESIGN.md draws it.
var allowedEdges = map[[2]string]bool{
	{services.OrderPending, services.OrderPaid}:      true,
	{services.OrderPending, services.OrderCancelled}: true,
	{services.OrderPending, services.OrderExpired}:   true,
	{services.OrderPaid, services.OrderRefunded}:     true,
}

// orderFacts is what a transition may change: the order's status, how many of its seats
// are live, and the number of e-mails and audit entries about it.
type orderFacts struct {
	Status string
	Live   int
	Mails  int
	Audits int
}

func factsOf(t *testing.T, e *testenv.TestEnv, o *services.Order) orderFacts {
	t.Helper()
	var f orderFacts
	if err := e.DB.Get(&f.Status, "SELECT status FROM orders WHERE id = ?", o.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.DB.Get(&f.Live, "SELECT COUNT(*) FROM order_seats WHERE order_id = ? AND live = 1", o.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.DB.Get(&f.Mails, "SELECT COUNT(*) FROM mail_outbox WHERE order_no = ?", o.OrderNo); err != nil {
		t.Fatal(err)
	}
	if err := e.DB.Get(&f.Audits, "SELECT COUNT(*) FROM audit_log WHERE entity = 'order' AND entity_id = ?", o.OrderNo); err != nil {
		t.Fatal(err)
	}
	return f
}

// orderIn returns a fresh order of user n on seat, brought to status through the
// services' own paths.
func orderIn(t *testing.T, e *testenv.TestEnv, n int, seat, status string) *services.Order {
	t.Helper()
	ctx := context.Background()
	o, err := e.Create(e.User(n), e.SeatIDs(seat)...)
	if err != nil {
		t.Fatal(err)
	}
	switch status {
	case services.OrderPaid, services.OrderRefunded:
		if err := e.PayOrder(o); err != nil {
			t.Fatal(err)
		}
	case services.OrderCancelled:
		if _, err := e.Orders.Cancel(ctx, o.UserID, o.OrderNo); err != nil {
			t.Fatal(err)
		}
	case services.OrderExpired:
		if won, err := e.Orders.End(ctx, o, orders.Change{To: services.OrderExpired, Reason: services.ReasonDeadline,
			At: o.ExpiresAt.Add(time.Second)}); err != nil || !won {
			t.Fatalf("expire: %v %v", won, err)
		}
	}
	if status == services.OrderRefunded {
		if o, err = e.Orders.ByNo(ctx, o.OrderNo); err != nil {
			t.Fatal(err)
		}
		if won, err := transition(e, o, orders.Change{To: services.OrderRefunded, Reason: "test"}); err != nil || !won {
			t.Fatalf("refund: %v %v", won, err)
		}
	}
	if o, err = e.Orders.ByNo(ctx, o.OrderNo); err != nil {
		t.Fatal(err)
	}
	if o.Status != status {
		t.Fatalf("set-up: order is %s, want %s", o.Status, status)
	}
	return o
}

// transition runs Transition in a transaction of its own and, when it won, brings the
// seat cache in line as the callers do after the commit.
func transition(e *testenv.TestEnv, o *services.Order, ch orders.Change) (bool, error) {
	ctx := context.Background()
	tx, err := e.DB.Beginx()
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	won, err := e.Orders.Transition(ctx, tx, o, ch)
	if err != nil {
		return false, err
	}
	if err := tx.Commit(); err != nil {
		return false, err
	}
	if won {
		o.Status = ch.To
		if err := e.Orders.SyncSeats(ctx, o); err != nil {
			return true, err
		}
	}
	return won, nil
}

// TestTransition_EveryEdge walks every (from, to) pair of order statuses through the
// one door: an edge of the state diagram moves the order, frees its seats when it ends
// (order_seats.live NULL) and writes the e-mail and the audit entry in the same
// transaction; any other edge is refused with ORDER_STATE and changes nothing. A
// transition whose guard lost (the order moved on meanwhile) writes nothing either.
func TestTransition_EveryEdge(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.QuietLogs()
	log := audit.NewAudit(e.DB, e.Clock)
	n := 0
	for _, from := range allStatuses {
		for _, to := range allStatuses {
			n++
			seat := fmt.Sprintf("%c%d", 'A'+rune((n-1)/10), (n-1)%10+1)
			t.Run(from+"_to_"+to, func(t *testing.T) {
				o := orderIn(t, e, n, seat, from)
				before := factsOf(t, e, o)
				ch := orders.Change{To: to, Reason: "edge test", At: e.Clock.Now(),
					Mail:  &mail.Message{Kind: mail.OrderCancelled, Key: "edge:" + o.OrderNo},
					Audit: &orders.ChangeAudit{Log: log, Actor: 0, Action: "order.test", Before: from, After: to}}
				switch to {
				case services.OrderExpired:
					ch.At = o.ExpiresAt.Add(time.Second) // only a due order expires
				case services.OrderPaid:
					ch.PaidAfter = ch.At.Add(-orders.PaymentGrace)
				case services.OrderRefunded:
					// what a refund does besides the door: the money goes back (money adds up)
					ch.Then = func(ctx context.Context, tx *sqlx.Tx) error {
						return store.RefundApprovedPayments(ctx, tx, o.ID, ch.At)
					}
				}
				won, err := transition(e, o, ch)
				after := factsOf(t, e, o)
				if !allowedEdges[[2]string{from, to}] {
					if services.ErrorCode(err) != services.CodeOrderState || won {
						t.Fatalf("refused edge: won %v, err %v; want ORDER_STATE", won, err)
					}
					if after != before {
						t.Fatalf("refused edge changed the order: %+v -> %+v", before, after)
					}
					return
				}
				if err != nil || !won {
					t.Fatalf("allowed edge: won %v, err %v", won, err)
				}
				want := orderFacts{Status: to, Live: 0, Mails: before.Mails + 1, Audits: before.Audits + 1}
				if to == services.OrderPaid {
					want.Live = before.Live
				}
				if after != want {
					t.Fatalf("allowed edge: %+v -> %+v, want %+v", before, after, want)
				}
				// the same edge again from the status read before loses: nothing is written
				o.Status = from
				won, err = transition(e, o, ch)
				if err != nil || won {
					t.Fatalf("repeated edge: won %v, err %v; want a lost update", won, err)
				}
				if again := factsOf(t, e, o); again != after {
					t.Fatalf("lost update changed the order: %+v -> %+v", after, again)
				}
				e.CheckInvariants()
			})
		}
	}
}

// An expiry that is not due yet and a payment of a cancelled show lose their guard and
// change nothing, although the edges exist.
func TestTransition_EdgeGuards(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.QuietLogs()
	o := orderIn(t, e, 1, "A1", services.OrderPending)
	before := factsOf(t, e, o)
	msg := &mail.Message{Kind: mail.OrderExpired}
	if won, err := transition(e, o, orders.Change{To: services.OrderExpired, At: o.ExpiresAt.Add(-time.Second), Mail: msg}); err != nil || won {
		t.Fatalf("expiry before the deadline: won %v, err %v", won, err)
	}
	e.Exec("UPDATE shows SET status = 'cancelled' WHERE id = ?", e.Show.ID)
	now := e.Clock.Now()
	if won, err := transition(e, o, orders.Change{To: services.OrderPaid, At: now, PaidAfter: now.Add(-orders.PaymentGrace), Mail: msg}); err != nil || won {
		t.Fatalf("payment of a cancelled show: won %v, err %v", won, err)
	}
	if after := factsOf(t, e, o); after != before {
		t.Fatalf("guarded edges changed the order: %+v -> %+v", before, after)
	}
}
