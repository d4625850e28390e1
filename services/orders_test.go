package services

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestCreateOrderHoldsSeatsAndPrices is the happy path: the order is pending, priced
// from the zone prices (invariant 6), and both stores agree afterwards.
func TestCreateOrderHoldsSeatsAndPrices(t *testing.T) {
	e := newTestEnv(t, unlimited)
	u := e.user(1)
	o, err := e.create(u, e.seatIDs("A1", "H5")...)
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != OrderPending || o.TotalMinor != 4500+6500 || len(o.Seats) != 2 {
		t.Fatalf("order %+v", o)
	}
	if _, ok := e.expiry.scheduled[o.OrderNo]; !ok {
		t.Error("no expiry task scheduled")
	}
	m, err := e.shows.SeatMap(context.Background(), e.show.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st := m.States[e.seatIDs("A1")[0]]; st != StateHeld {
		t.Errorf("A1 is %s", st)
	}
	e.checkInvariants()
}

// TestReplayCostsNoRateLimitToken: a replay creates nothing, so it must not use up the
// buyer's order-creation budget (API.md: rate limits count order creations).
func TestReplayCostsNoRateLimitToken(t *testing.T) {
	lim := unlimited
	lim.UserPerMinute, lim.UserBurst = 2, 2
	e := newTestEnv(t, lim)
	ctx := context.Background()
	u := e.user(1)
	req := CreateOrderRequest{UserID: u, ShowID: e.show.ID, SeatIDs: e.seatIDs("B1"), IdempotencyKey: "once"}
	first, err := e.orders.Create(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		again, err := e.orders.Create(ctx, req)
		if err != nil || again.OrderNo != first.OrderNo {
			t.Fatalf("replay %d: %v %v", i, again, err)
		}
	}
	if _, err := e.create(u, e.seatIDs("B2")...); err != nil {
		t.Fatalf("second real order after replays: %v", err)
	}
	if _, err := e.create(u, e.seatIDs("B3")...); ErrorCode(err) != CodeRateLimited {
		t.Fatalf("third real order: %v, want RATE_LIMITED", err)
	}
}

// TestDeadlineNeverPassesSaleClose: an order made just before the sale closes must be
// paid by the close, not hold seats into the show.
func TestDeadlineNeverPassesSaleClose(t *testing.T) {
	e := newTestEnv(t, unlimited)
	closes := e.clock.Now().Add(5 * time.Minute)
	e.show = e.makeShow(e.hall.ID, ShowOnSale, e.clock.Now().Add(-time.Hour), closes)
	o, err := e.create(e.user(1), e.seatIDs("C3")...)
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
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	u := e.user(1)
	o, err := e.create(u, e.seatIDs("D4")...)
	if err != nil {
		t.Fatal(err)
	}
	pay, _, err := e.payments.Start(ctx, u, o.OrderNo, "demo")
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(e.orders.HoldFor() + PaymentGrace + time.Second)
	if _, err := e.payments.DemoDecide(ctx, pay.PaymentID, true); err != nil {
		t.Fatal(err)
	}
	var ps, os string
	e.db.Get(&ps, "SELECT status FROM payments WHERE id = ?", pay.ID)
	e.db.Get(&os, "SELECT status FROM orders WHERE id = ?", o.ID)
	if ps != "refunded" || os != OrderExpired {
		t.Errorf("payment %s, order %s; want refunded, expired", ps, os)
	}
	e.checkInvariants()
}

// TestRegistrationsAreRateLimitedPerAddress: one address cannot mint accounts without
// bound (each would bring its own purchase limit).
func TestRegistrationsAreRateLimitedPerAddress(t *testing.T) {
	lim := unlimited
	lim.RegisterPerMinute, lim.RegisterBurst = 2, 2
	e := newTestEnv(t, lim)
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if err := e.limiter.AllowRegister(ctx, "10.0.0.1"); err != nil {
			t.Fatal(err)
		}
	}
	err := e.limiter.AllowRegister(ctx, "10.0.0.1")
	var se *Error
	if !errors.As(err, &se) || se.Code != CodeRateLimited || se.RetryAfterS < 1 {
		t.Errorf("third registration: %v, want RATE_LIMITED with a wait", err)
	}
	if err := e.limiter.AllowRegister(ctx, "10.0.0.2"); err != nil {
		t.Errorf("another address: %v", err)
	}
}
