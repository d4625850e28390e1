package invariants

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
)

// TestInvariant5_PayVersusExpireRace proves invariant 5 (every order state change is
// one conditional update; only the winner touches Redis): 100 times, a payment started
// before the deadline is approved at the same moment as the expiry runs after the
// deadline. Exactly one wins each time: the order ends paid with its seat sold in Redis
// and the payment approved, or expired with its seat free and the payment refunded.
// Two winners (or a loser that still touched Redis) would leave a paid order with a
// free seat, or an expired order with a sold one.
//
// Invariant 5 is kept where an order changes state: each change (pay, cancel, expire,
// refund, a show's cancellation, a staff release, reconciliation) is one UPDATE ...
// WHERE status = '<from>', plus expires_at <= now for an expiry, that in the same
// transaction sets order_seats.live to NULL when the order ends; only the caller whose
// update changed the row runs the Redis step. Past its deadline a cancel expires the
// order instead. The other races of this file prove it too.
func TestInvariant5_PayVersusExpireRace(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.QuietLogs()
	ctx := context.Background()
	const rounds = 100
	users := e.BulkUsers(rounds)
	seats := e.Sellable()
	paidWins, expireWins := 0, 0
	for i := 0; i < rounds; i++ {
		u, seat := users[i], seats[i]
		o, err := e.Create(u, seat)
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		pay, _, err := e.Payments.Start(ctx, u, o.OrderNo, "demo")
		if err != nil {
			t.Fatalf("round %d: start payment: %v", i, err)
		}
		e.Clock.Advance(16 * time.Minute)
		var payErr, expErr error
		var expired bool
		start := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); <-start; _, payErr = e.Payments.DemoDecide(ctx, pay.PaymentID, true) }()
		go func() { defer wg.Done(); <-start; expired, expErr = e.Orders.Expire(ctx, o.OrderNo) }()
		close(start)
		wg.Wait()
		if payErr != nil || expErr != nil {
			t.Fatalf("round %d: pay %v, expire %v", i, payErr, expErr)
		}
		status := e.OrderStatus(o.OrderNo)
		p, err := e.Payments.Payment(ctx, pay.PaymentID)
		if err != nil {
			t.Fatal(err)
		}
		v := e.SeatVal(e.Show.ID, seat)
		switch status {
		case services.OrderPaid:
			paidWins++
			if expired || p.Status != "approved" || v != testenv.SoldTo(o) {
				t.Errorf("round %d: paid, but Expire said %v, payment %s, seat %q", i, expired, p.Status, v)
			}
		case services.OrderExpired:
			expireWins++
			if !expired || p.Status != "refunded" || v != "F" {
				t.Errorf("round %d: expired, but Expire said %v, payment %s, seat %q", i, expired, p.Status, v)
			}
		default:
			t.Errorf("round %d: order ended %s", i, status)
		}
	}
	t.Logf("%d rounds of pay vs expire: paid won %d, expire won %d", rounds, paidWins, expireWins)
	e.CheckInvariants()
}

// TestInvariant5_PayExpireCancelThreeWayRace extends the race to the buyer's cancel
// after the deadline: approval, expiry and cancel of one order at the same moment have
// exactly one winner, and only the winner's effect reaches Redis. (Past its deadline a
// cancel may itself expire the order, so "expired" is the outcome of either the expiry
// or the cancel; the cancel then reports ORDER_STATE.)
func TestInvariant5_PayExpireCancelThreeWayRace(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.QuietLogs()
	ctx := context.Background()
	const rounds = 50
	users := e.BulkUsers(rounds)
	seats := e.Sellable()
	wins := map[string]int{}
	for i := 0; i < rounds; i++ {
		u, seat := users[i], seats[i]
		o, err := e.Create(u, seat)
		if err != nil {
			t.Fatal(err)
		}
		pay, _, err := e.Payments.Start(ctx, u, o.OrderNo, "demo")
		if err != nil {
			t.Fatal(err)
		}
		e.Clock.Advance(16 * time.Minute)
		var payErr, expErr, cancelErr error
		var expired bool
		start := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(3)
		go func() { defer wg.Done(); <-start; _, payErr = e.Payments.DemoDecide(ctx, pay.PaymentID, true) }()
		go func() { defer wg.Done(); <-start; expired, expErr = e.Orders.Expire(ctx, o.OrderNo) }()
		go func() { defer wg.Done(); <-start; _, cancelErr = e.Orders.Cancel(ctx, u, o.OrderNo) }()
		close(start)
		wg.Wait()
		if payErr != nil || expErr != nil {
			t.Fatalf("round %d: pay %v, expire %v", i, payErr, expErr)
		}
		status := e.OrderStatus(o.OrderNo)
		wins[status]++
		p, _ := e.Payments.Payment(ctx, pay.PaymentID)
		v := e.SeatVal(e.Show.ID, seat)
		ok := false
		switch status {
		case services.OrderPaid:
			ok = !expired && services.ErrorCode(cancelErr) == services.CodeOrderState && p.Status == "approved" && v == testenv.SoldTo(o)
		case services.OrderExpired:
			ok = services.ErrorCode(cancelErr) == services.CodeOrderState && p.Status == "refunded" && v == "F"
		case services.OrderCancelled:
			ok = !expired && cancelErr == nil && p.Status == "refunded" && v == "F"
		}
		if !ok {
			t.Errorf("round %d: order %s, Expire %v, Cancel %v, payment %s, seat %q", i, status, expired, cancelErr, p.Status, v)
		}
	}
	t.Logf("%d rounds of pay vs expire vs cancel: %v", rounds, wins)
	e.CheckInvariants()
}

// TestInvariant5_PayVersusCancelRace races the approval of a payment against the
// buyer's cancel before the deadline, 50 times: the order ends paid (seat sold,
// payment approved, cancel refused with ORDER_STATE) or cancelled (seat free, payment
// refunded), never both and never a paid order with a free seat.
func TestInvariant5_PayVersusCancelRace(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.QuietLogs()
	ctx := context.Background()
	const rounds = 50
	users := e.BulkUsers(rounds)
	seats := e.Sellable()
	wins := map[string]int{}
	for i := 0; i < rounds; i++ {
		u, seat := users[i], seats[i]
		o, err := e.Create(u, seat)
		if err != nil {
			t.Fatal(err)
		}
		pay, _, err := e.Payments.Start(ctx, u, o.OrderNo, "demo")
		if err != nil {
			t.Fatal(err)
		}
		var payErr, cancelErr error
		start := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); <-start; _, payErr = e.Payments.DemoDecide(ctx, pay.PaymentID, true) }()
		go func() { defer wg.Done(); <-start; _, cancelErr = e.Orders.Cancel(ctx, u, o.OrderNo) }()
		close(start)
		wg.Wait()
		if payErr != nil {
			t.Fatalf("round %d: pay %v", i, payErr)
		}
		status := e.OrderStatus(o.OrderNo)
		wins[status]++
		p, _ := e.Payments.Payment(ctx, pay.PaymentID)
		v := e.SeatVal(e.Show.ID, seat)
		ok := false
		switch status {
		case services.OrderPaid:
			ok = services.ErrorCode(cancelErr) == services.CodeOrderState && p.Status == "approved" && v == testenv.SoldTo(o)
		case services.OrderCancelled:
			ok = cancelErr == nil && p.Status == "refunded" && v == "F"
		}
		if !ok {
			t.Errorf("round %d: order %s, Cancel %v, payment %s, seat %q", i, status, cancelErr, p.Status, v)
		}
	}
	t.Logf("%d rounds of pay vs cancel: %v", rounds, wins)
	e.CheckInvariants()
}

// TestInvariant5_CancelTwiceAndExpireAfterCancel proves that repeated state changes
// restore the counters exactly once (invariant 5: only the winner of the conditional
// update touches Redis): cancel, cancel again, expire after the cancel. Counters
// restored twice would let the user hold 8 seats; not restored, 0.
func TestInvariant5_CancelTwiceAndExpireAfterCancel(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.QuietLogs()
	ctx := context.Background()
	u := e.User(1)
	o, err := e.Create(u, e.SeatIDs("A1", "A2", "H1", "H2")...)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		c, err := e.Orders.Cancel(ctx, u, o.OrderNo)
		if err != nil || c.Status != services.OrderCancelled {
			t.Fatalf("cancel %d: %v %v", i+1, c, err)
		}
	}
	e.Clock.Advance(16 * time.Minute)
	if ok, err := e.Orders.Expire(ctx, o.OrderNo); ok || err != nil {
		t.Errorf("expire after cancel: %v %v", ok, err)
	}
	if s := e.OrderStatus(o.OrderNo); s != services.OrderCancelled {
		t.Errorf("order is %s", s)
	}
	if _, err := e.Orders.Cancel(ctx, e.User(2), o.OrderNo); services.ErrorCode(err) != services.CodeNotFound {
		t.Errorf("another user cancelling: %v, want NOT_FOUND", err)
	}
	if c := e.UserCount(e.Show.ID, u); c != "0" {
		t.Errorf("user counter %q, want 0", c)
	}
	if e.ZoneFree(e.Show.ID, "standard") != "140" || e.ZoneFree(e.Show.ID, "premium") != "59" {
		t.Errorf("zone counters standard %s premium %s, want 140 and 59", e.ZoneFree(e.Show.ID, "standard"), e.ZoneFree(e.Show.ID, "premium"))
	}
	if _, err := e.Create(u, e.SeatIDs("B1", "B2", "B3", "B4")...); err != nil {
		t.Fatalf("4 seats after the cancel: %v", err)
	}
	if _, err := e.Create(u, e.SeatIDs("B5")...); services.ErrorCode(err) != services.CodeLimitExceeded {
		t.Errorf("a 5th seat: %v, want LIMIT_EXCEEDED", err)
	}
	if e.ZoneFree(e.Show.ID, "standard") != strconv.Itoa(136) {
		t.Errorf("standard free %s, want 136", e.ZoneFree(e.Show.ID, "standard"))
	}
	// a paid order cannot be cancelled, and cancelling it changes nothing
	v := e.User(3)
	op, err := e.Create(v, e.SeatIDs("C1")...)
	if err != nil {
		t.Fatal(err)
	}
	pay, _, err := e.Payments.Start(ctx, v, op.OrderNo, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Payments.DemoDecide(ctx, pay.PaymentID, true); err != nil {
		t.Fatal(err)
	}
	before := e.State()
	if _, err := e.Orders.Cancel(ctx, v, op.OrderNo); services.ErrorCode(err) != services.CodeOrderState {
		t.Errorf("cancel a paid order: %v, want ORDER_STATE", err)
	}
	if _, err := e.Payments.DemoDecide(ctx, pay.PaymentID, true); err != nil {
		t.Errorf("a repeated approval: %v", err)
	}
	if after := e.State(); after != before {
		t.Errorf("cancelling a paid order or approving it again changed something:\n%s", testenv.StateDiff(before, after))
	}
	e.CheckInvariants()
}
