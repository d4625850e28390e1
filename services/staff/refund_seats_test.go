package staff_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
	"seatflow/services/staff"
	"seatflow/services/store"
)

// refundCall is one Refund a provider was asked for.
type refundCall struct {
	PaymentID string
	Refund    orders.Refund
}

// recordingProvider is the demo provider that records every refund it is asked for.
type recordingProvider struct {
	orders.DemoProvider
	mu    sync.Mutex
	calls []refundCall
}

func (p *recordingProvider) Refund(_ context.Context, pay *orders.Payment, r orders.Refund) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, refundCall{PaymentID: pay.PaymentID, Refund: r})
	return nil
}

func (p *recordingProvider) taken() []refundCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.calls)
}

// recordingRefunds replaces the env's payments with ones whose demo provider records
// refunds, and returns the staff order service over them.
func recordingRefunds(e *testenv.TestEnv) (*staff.StaffOrders, *recordingProvider) {
	pr := &recordingProvider{}
	e.Payments = orders.NewPayments(e.DB, e.Orders, e.Clock, []byte("test-secret"), pr)
	return staff.NewStaffOrders(e.DB, e.Orders, e.Payments, e.Shows, audit.NewAudit(e.DB, e.Clock)), pr
}

// paidOrder creates and pays buyer's order of the labelled seats.
func paidOrder(t *testing.T, e *testenv.TestEnv, buyer int64, labels ...string) *services.Order {
	t.Helper()
	o, err := e.Create(buyer, e.SeatIDs(labels...)...)
	if err != nil {
		t.Fatal(err)
	}
	e.Pay(o)
	return o
}

// refundedLabels lists the labels of the order's refunded seats.
func refundedLabels(o *services.Order) []string {
	var out []string
	for _, s := range o.Seats {
		if s.Refunded {
			out = append(out, s.Label)
		}
	}
	return out
}

// TestRefundSeats_PartThenTheRest: staff refund two of four paid seats: the order stays
// paid with those seats marked refunded and refunded_minor their price, one refund row
// with its two seats, the payment's refunded part raised, the provider asked once (the
// refund's amount, its stable ID), the seats free in Redis and out of the buyer's
// purchase limit, an e-mail naming them, an audit entry; refunding the rest ends the
// order refunded with a second refund of the remaining seats, the payment refunded whole.
func TestRefundSeats_PartThenTheRest(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	so, pr := recordingRefunds(e)
	staffID, buyer := e.User(1), e.User(2)
	o := paidOrder(t, e, buyer, "A1", "A2", "A3", "A4")
	part := e.SeatIDs("A1", "A2")

	got, err := so.RefundSeats(ctx, staffID, o.OrderNo, "two cannot come", part)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != services.OrderPaid || got.RefundedMinor != 9000 || !slices.Equal(refundedLabels(got), []string{"A1", "A2"}) {
		t.Fatalf("after the part refund: %s, refunded %d, seats %v", got.Status, got.RefundedMinor, refundedLabels(got))
	}
	refunds, err := store.RefundsOf(ctx, e.DB, o.ID)
	if err != nil || len(refunds) != 1 || refunds[0].AmountMinor != 9000 || refunds[0].ActorID == nil || *refunds[0].ActorID != staffID ||
		refunds[0].Reason != "two cannot come" || !refunds[0].CreatedAt.Equal(e.Clock.Now()) {
		t.Fatalf("refunds %+v (%v)", refunds, err)
	}
	rseats, _ := store.RefundedSeatsOf(ctx, e.DB, o.ID)
	if len(rseats) != 2 || rseats[0].AmountMinor != 4500 || rseats[0].RefundID != refunds[0].ID {
		t.Fatalf("refund seats %+v", rseats)
	}
	calls := pr.taken()
	if len(calls) != 1 || calls[0].Refund.AmountMinor != 9000 || calls[0].Refund.ID != refunds[0].RefundID {
		t.Fatalf("provider calls %+v, want one of 9000 named %s", calls, refunds[0].RefundID)
	}
	var pay struct {
		Status   string `db:"status"`
		Refunded int64  `db:"refunded_minor"`
	}
	if err := e.DB.Get(&pay, "SELECT status, refunded_minor FROM payments WHERE order_id = ?", o.ID); err != nil || pay.Status != "approved" || pay.Refunded != 9000 {
		t.Fatalf("payment %+v (%v), want approved with 9000 refunded", pay, err)
	}
	for _, id := range part {
		if v := e.SeatVal(e.Show.ID, id); v != "F" {
			t.Errorf("refunded seat %d is %q in Redis, want F", id, v)
		}
	}
	if n := e.UserCount(e.Show.ID, buyer); n != "2" {
		t.Errorf("buyer's purchase-limit count %q, want 2", n)
	}
	if kinds := e.MailKinds(o.OrderNo); kinds != "order_created order_paid order_part_refunded" {
		t.Errorf("e-mails %s", kinds)
	}
	e.CheckInvariants()
	if _, err := e.Create(buyer, e.SeatIDs("B1", "B2")...); err != nil {
		t.Fatalf("the buyer buys two more seats within the limit again: %v", err)
	}

	got, err = so.RefundSeats(ctx, staffID, o.OrderNo, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != services.OrderRefunded || got.RefundedMinor != 18000 || len(refundedLabels(got)) != 4 {
		t.Fatalf("after the rest: %s, refunded %d, seats %v", got.Status, got.RefundedMinor, refundedLabels(got))
	}
	if err := e.DB.Get(&pay, "SELECT status, refunded_minor FROM payments WHERE order_id = ?", o.ID); err != nil || pay.Status != "refunded" || pay.Refunded != 18000 {
		t.Fatalf("payment %+v (%v), want refunded whole", pay, err)
	}
	refunds, _ = store.RefundsOf(ctx, e.DB, o.ID)
	calls = pr.taken()
	if len(refunds) != 2 || refunds[1].AmountMinor != 9000 || len(calls) != 2 || calls[1].Refund.ID != refunds[1].RefundID ||
		calls[1].Refund.AmountMinor != 9000 {
		t.Fatalf("refunds %+v, provider calls %+v", refunds, calls)
	}
	if entries := e.AuditOf("order", o.OrderNo); len(entries) != 2 || entries[0].Action != "order.refund" {
		t.Errorf("audit entries %+v, want two order.refund", entries)
	}
	e.CheckInvariants()
}

// TestRefundSeats_Refused: a seat not in the order (400 INVALID_REQUEST), a seat already
// refunded (409 ORDER_STATE), a seat named twice, a pending order and an unknown order
// are refused, each naming what is wrong and changing nothing in MySQL or Redis.
func TestRefundSeats_Refused(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	so, pr := recordingRefunds(e)
	staffID, buyer := e.User(1), e.User(2)
	o := paidOrder(t, e, buyer, "C1", "C2", "C3")
	if _, err := so.RefundSeats(ctx, staffID, o.OrderNo, "", e.SeatIDs("C1")); err != nil {
		t.Fatal(err)
	}
	pending, err := e.Create(e.User(3), e.SeatIDs("D1")...)
	if err != nil {
		t.Fatal(err)
	}
	before, calls := e.State(), len(pr.taken())
	for _, tc := range []struct {
		name, no string
		seats    []int64
		code     string
		named    []string
	}{
		{"seat of another order", o.OrderNo, e.SeatIDs("C2", "D1"), services.CodeInvalidRequest, []string{"D1"}},
		{"seat already refunded", o.OrderNo, e.SeatIDs("C1", "C2"), services.CodeOrderState, []string{"C1"}},
		{"seat named twice", o.OrderNo, e.SeatIDs("C2", "C2"), services.CodeInvalidRequest, nil},
		{"pending order", pending.OrderNo, e.SeatIDs("D1"), services.CodeOrderState, nil},
		{"unknown order", "0NOSUCHORDER000", e.SeatIDs("C2"), services.CodeNotFound, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := so.RefundSeats(ctx, staffID, tc.no, "", tc.seats)
			var se *services.Error
			if services.ErrorCode(err) != tc.code || !asError(err, &se) || (tc.named != nil && !slices.Equal(se.Seats, tc.named)) {
				t.Fatalf("refund: %v, want %s naming %v", err, tc.code, tc.named)
			}
			if after := e.State(); after != before {
				t.Errorf("a refused refund changed the stores:\n%s\n--- now ---\n%s", before, after)
			}
			if n := len(pr.taken()); n != calls {
				t.Errorf("a refused refund asked the provider (%d calls, want %d)", n, calls)
			}
		})
	}
	e.CheckInvariants()
}

// TestRefundSeats_VoucherUsesReturn: a refunded seat the order's voucher covered gives
// its use back and returns its discounted price; the uncovered seat keeps its use.
func TestRefundSeats_VoucherUsesReturn(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	so, pr := recordingRefunds(e)
	v := e.MakeVoucher("HALF", 10, 50, e.Show.ID)
	o, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(2), ShowID: e.Show.ID, SeatIDs: e.SeatIDs("E1", "E2"), Voucher: "HALF"})
	if err != nil {
		t.Fatal(err)
	}
	e.Pay(o)
	if uses, _, _ := e.VoucherUses(v.ID, e.Show.ID); uses != 2 {
		t.Fatalf("voucher uses %d before, want 2", uses)
	}
	got, err := so.RefundSeats(ctx, e.User(1), o.OrderNo, "", e.SeatIDs("E1"))
	if err != nil {
		t.Fatal(err)
	}
	if uses, rows, redis := e.VoucherUses(v.ID, e.Show.ID); uses != 1 || rows != 1 || redis != 1 {
		t.Errorf("voucher uses %d, rows %d, Redis %d after refunding one seat, want 1", uses, rows, redis)
	}
	if got.RefundedMinor != 2250 || len(pr.taken()) != 1 || pr.taken()[0].Refund.AmountMinor != 2250 {
		t.Errorf("refunded %d, provider calls %+v; want 2250 (the discounted price)", got.RefundedMinor, pr.taken())
	}
	e.CheckInvariants()
}

// TestRefundSeats_RacingRefundsOfOverlappingSeats: refunds of overlapping seats of one
// order race; each seat is refunded exactly once, every refund that won asked the
// provider exactly once, the losers got ORDER_STATE, and money and seats add up.
func TestRefundSeats_RacingRefundsOfOverlappingSeats(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	so, pr := recordingRefunds(e)
	o := paidOrder(t, e, e.User(2), "F1", "F2", "F3", "F4")
	sets := [][]int64{e.SeatIDs("F1", "F2"), e.SeatIDs("F2", "F3"), e.SeatIDs("F1", "F2"), e.SeatIDs("F3"), nil, e.SeatIDs("F4")}
	var wg sync.WaitGroup
	errs := make([]error, len(sets))
	for i, ids := range sets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = so.RefundSeats(ctx, e.User(1), o.OrderNo, "", ids)
		}()
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch services.ErrorCode(err) {
		case "":
			won++
		case services.CodeOrderState:
		default:
			t.Errorf("refund %d: %v", i, err)
		}
	}
	refunds, _ := store.RefundsOf(ctx, e.DB, o.ID)
	rseats, _ := store.RefundedSeatsOf(ctx, e.DB, o.ID)
	if won == 0 || len(refunds) != won || len(pr.taken()) != won || len(rseats) > 4 {
		t.Fatalf("%d refunds won, %d rows, %d provider calls, %d seats refunded", won, len(refunds), len(pr.taken()), len(rseats))
	}
	e.CheckInvariants()
}

func asError(err error, target **services.Error) bool {
	se, ok := err.(*services.Error)
	if ok {
		*target = se
	}
	return ok
}
