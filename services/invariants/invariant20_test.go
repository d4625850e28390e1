package invariants

import (
	"context"
	"strings"
	"sync"
	"testing"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
	"seatflow/services/staff"
	"seatflow/services/store"
)

// countingProvider is the demo provider that counts the refunds it is asked for, by
// refund ID.
type countingProvider struct {
	orders.DemoProvider
	mu  sync.Mutex
	ids map[string]int
	sum map[string]int64 // order number -> money asked back
}

func (p *countingProvider) Refund(_ context.Context, pay *orders.Payment, r orders.Refund) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ids[r.ID]++
	p.sum[pay.OrderNo] += r.AmountMinor
	return nil
}

// TestInvariant20_MoneyAddsUpUnderRacingRefunds proves invariant 20 (money adds up):
// round after round, one order of four seats with a started payment (every other one
// already approved) meets at once two approvals of that payment (duplicate webhooks), refunds of overlapping seats ({1,2},
// {2,3}, {4}), a whole refund, the buyer's cancel (the show lets buyers refund
// themselves) and, in the last round, the show's cancellation by staff. Whatever wins,
// afterwards the provider keeps exactly the price of the order's live seats (0 once it
// ended), each seat is refunded at most once, every refund asked the provider exactly
// once under its own ID and for its amount, and the seat invariants hold in MySQL and
// Redis (TestEnv.CheckInvariants, which checks money too).
//
// Invariant 20 is kept in orders.Payments.Refund: a refund locks the order's row, reads
// its live seats locked, and in one transaction records the refund and its seats
// (refund_seats' key: a seat at most once), raises the payments' refunded part and moves
// the order through Transition (ending the seats, or the order with its last ones); the
// provider is called only after the commit, by the winner. A payment that arrives for an
// order that ended is refunded whole (invariant 10). Reconciliation reports an order
// whose money does not add up (money_mismatch, TestReconcile_PartlyRefundedOrders).
func TestInvariant20_MoneyAddsUpUnderRacingRefunds(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.QuietLogs()
	ctx := context.Background()
	pr := &countingProvider{ids: map[string]int{}, sum: map[string]int64{}}
	e.Payments = orders.NewPayments(e.DB, e.Orders, e.Clock, []byte("test-secret"), pr)
	so := staff.NewStaffOrders(e.DB, e.Orders, e.Payments, e.Shows, audit.NewAudit(e.DB, e.Clock))
	e.Exec("UPDATE shows SET self_refund_until_h = 1 WHERE id = ?", e.Show.ID)
	const rounds = 20
	users := e.BulkUsers(rounds)
	sellable := e.Sellable()
	staffID := e.User(rounds + 1)
	outcomes := map[string]int{}
	for i := 0; i < rounds; i++ {
		u, ids := users[i], sellable[4*i:4*i+4]
		o, err := e.Create(u, ids...)
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		pay, _, err := e.Payments.Start(ctx, u, o.OrderNo, "demo")
		if err != nil {
			t.Fatalf("round %d: start payment: %v", i, err)
		}
		if i%2 == 1 { // every other order is paid before the race: its refunds meet the duplicate webhooks
			if _, err := e.Payments.DemoDecide(ctx, pay.PaymentID, true); err != nil {
				t.Fatal(err)
			}
		}
		acts := []func() error{
			func() error { _, err := e.Payments.DemoDecide(ctx, pay.PaymentID, true); return err },
			func() error { _, err := e.Payments.DemoDecide(ctx, pay.PaymentID, true); return err },
			func() error { _, err := so.RefundSeats(ctx, staffID, o.OrderNo, "race", ids[0:2]); return err },
			func() error { _, err := so.RefundSeats(ctx, staffID, o.OrderNo, "race", ids[1:3]); return err },
			func() error { _, err := so.RefundSeats(ctx, staffID, o.OrderNo, "race", ids[3:4]); return err },
			func() error { _, err := so.Refund(ctx, staffID, o.OrderNo, "race"); return err },
			func() error { _, err := e.Payments.Cancel(ctx, u, o.OrderNo); return err },
		}
		if i == rounds-1 {
			acts = append(acts, func() error { _, err := so.CancelShow(ctx, staffID, e.Show.ID, "race"); return err })
		}
		start := make(chan struct{})
		errs := make([]error, len(acts))
		var wg sync.WaitGroup
		for j, act := range acts {
			wg.Add(1)
			go func() { defer wg.Done(); <-start; errs[j] = act() }()
		}
		close(start)
		wg.Wait()
		for j, err := range errs {
			if c := services.ErrorCode(err); err != nil && c != services.CodeOrderState {
				t.Errorf("round %d: act %d: %v", i, j, err)
			}
		}
		outcomes[e.OrderStatus(o.OrderNo)]++

		refunds, err := store.RefundsOf(ctx, e.DB, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		seatsBack, err := store.RefundedSeatsOf(ctx, e.DB, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(seatsBack) > len(ids) {
			t.Errorf("round %d: %d seats refunded of %d", i, len(seatsBack), len(ids))
		}
		var refunded int64
		pr.mu.Lock()
		for _, r := range refunds {
			refunded += r.AmountMinor
			if pr.ids[r.RefundID] != 1 {
				t.Errorf("round %d: refund %s asked the provider %d times, want once", i, r.RefundID, pr.ids[r.RefundID])
			}
		}
		late := int64(0)
		for id, n := range pr.ids {
			if strings.HasPrefix(id, pay.PaymentID) { // a payment refunded whole because it came too late
				late += int64(n) * pay.AmountMinor
			}
		}
		if asked := pr.sum[o.OrderNo]; asked != refunded+late {
			t.Errorf("round %d: the provider was asked for %d, the refunds say %d (+%d of a late payment)", i, asked, refunded, late)
		}
		pr.mu.Unlock()
		e.CheckInvariants() // seats in MySQL and Redis, and money (CheckMoney)
	}
	t.Logf("%d rounds of racing refunds: %v", rounds, outcomes)
}
