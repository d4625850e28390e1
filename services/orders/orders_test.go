package orders_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// TestCreateOrderHoldsSeatsAndPrices is the happy path: the order is pending, priced
// from the zone prices (invariant 6), and both stores agree afterwards.
func TestCreateOrderHoldsSeatsAndPrices(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	u := e.User(1)
	o, err := e.Create(u, e.SeatIDs("A1", "H5")...)
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != services.OrderPending || o.TotalMinor != 4500+6500 || len(o.Seats) != 2 {
		t.Fatalf("order %+v", o)
	}
	if _, ok := e.Expiry.Scheduled[o.OrderNo]; !ok {
		t.Error("no expiry task scheduled")
	}
	m, err := e.Shows.SeatMap(context.Background(), e.Show.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st := m.States[e.SeatIDs("A1")[0]]; st != services.StateHeld {
		t.Errorf("A1 is %s", st)
	}
	e.CheckInvariants()
}

// TestReplayCostsNoRateLimitToken: a replay creates nothing, so it must not use up the
// buyer's order-creation budget (API.md: rate limits count order creations).
func TestReplayCostsNoRateLimitToken(t *testing.T) {
	lim := testenv.Unlimited
	lim.UserPerMinute, lim.UserBurst = 2, 2
	e := testenv.NewTestEnv(t, lim)
	ctx := context.Background()
	u := e.User(1)
	req := orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, SeatIDs: e.SeatIDs("B1"), IdempotencyKey: "once"}
	first, err := e.Orders.Create(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		again, err := e.Orders.Create(ctx, req)
		if err != nil || again.OrderNo != first.OrderNo {
			t.Fatalf("replay %d: %v %v", i, again, err)
		}
	}
	if _, err := e.Create(u, e.SeatIDs("B2")...); err != nil {
		t.Fatalf("second real order after replays: %v", err)
	}
	if _, err := e.Create(u, e.SeatIDs("B3")...); services.ErrorCode(err) != services.CodeRateLimited {
		t.Fatalf("third real order: %v, want RATE_LIMITED", err)
	}
}

// TestDeadlineNeverPassesSaleClose: an order made just before the sale closes must be
// paid by the close, not hold seats into the show.
func TestDeadlineNeverPassesSaleClose(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	closes := e.Clock.Now().Add(5 * time.Minute)
	e.Show = e.MakeShow(e.Hall.ID, services.ShowOnSale, e.Clock.Now().Add(-time.Hour), closes)
	o, err := e.Create(e.User(1), e.SeatIDs("C3")...)
	if err != nil {
		t.Fatal(err)
	}
	if !o.ExpiresAt.Equal(closes) {
		t.Errorf("deadline %v, want the sale close %v", o.ExpiresAt, closes)
	}
}

// TestApprovalAfterGraceIsRefunded: a payment approved long after the deadline (the
// expiry task lost) is refunded and the order expired, its seats freed (invariant 8).
func TestApprovalAfterGraceIsRefunded(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	u := e.User(1)
	o, err := e.Create(u, e.SeatIDs("D4")...)
	if err != nil {
		t.Fatal(err)
	}
	pay, _, err := e.Payments.Start(ctx, u, o.OrderNo, "demo")
	if err != nil {
		t.Fatal(err)
	}
	e.Clock.Advance(e.Orders.HoldFor() + orders.PaymentGrace + time.Second)
	if _, err := e.Payments.DemoDecide(ctx, pay.PaymentID, true); err != nil {
		t.Fatal(err)
	}
	var ps, os string
	e.DB.Get(&ps, "SELECT status FROM payments WHERE id = ?", pay.ID)
	e.DB.Get(&os, "SELECT status FROM orders WHERE id = ?", o.ID)
	if ps != "refunded" || os != services.OrderExpired {
		t.Errorf("payment %s, order %s; want refunded, expired", ps, os)
	}
	e.CheckInvariants()
}

// TestRegistrationsAreRateLimitedPerAddress: one address cannot mint accounts without
// bound (each would bring its own purchase limit).
func TestRegistrationsAreRateLimitedPerAddress(t *testing.T) {
	lim := testenv.Unlimited
	lim.RegisterPerMinute, lim.RegisterBurst = 2, 2
	e := testenv.NewTestEnv(t, lim)
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if err := e.Limiter.AllowRegister(ctx, "10.0.0.1"); err != nil {
			t.Fatal(err)
		}
	}
	err := e.Limiter.AllowRegister(ctx, "10.0.0.1")
	var se *services.Error
	if !errors.As(err, &se) || se.Code != services.CodeRateLimited || se.RetryAfterS < 1 {
		t.Errorf("third registration: %v, want RATE_LIMITED with a wait", err)
	}
	if err := e.Limiter.AllowRegister(ctx, "10.0.0.2"); err != nil {
		t.Errorf("another address: %v", err)
	}
}
