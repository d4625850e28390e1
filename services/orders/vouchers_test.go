package orders_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
	"seatflow/services/store"
)

// TestVoucher_Refusals: each reason a code cannot be used is VOUCHER_INVALID with a
// message that says which, and nothing is held or written.
func TestVoucher_Refusals(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	now := e.Clock.Now()
	later, earlier := now.Add(time.Hour), now.Add(-time.Minute)
	e.MakeVoucher("ONE-USE", 1, 10)
	soon := e.MakeVoucher("SOON-1", 10, 10)
	soon.ValidFrom = &later
	past := e.MakeVoucher("PAST-1", 10, 10)
	past.ValidUntil = &earlier
	off := e.MakeVoucher("OFF-1", 10, 10)
	off.Active = false
	child := e.MakeVoucher("CHILD-1", 10, 10)
	child.TicketTypes = []string{"child"}
	elsewhere := e.MakeVoucher("ELSEWHERE-1", 10, 10, e.Show.ID+1000)
	for _, v := range []*services.Voucher{soon, past, off, child} {
		if err := store.UpdateVoucher(ctx, e.DB, v); err != nil {
			t.Fatal(err)
		}
	}
	_ = elsewhere
	other := e.Exec("INSERT INTO cinemas (name, time_zone, currency, created_at) VALUES (?, 'Europe/Paris', 'EUR', ?)", "Voucher elsewhere "+t.Name(), now)
	if _, err := store.InsertVoucher(ctx, e.DB, &services.Voucher{Code: "PARIS-1", CinemaID: other, MaxUses: 10, PercentOff: ptr(int64(10)),
		Active: true, CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	if err := e.Seats.Load(ctx, e.Show.ID); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, code, says string }{
		{"not a code", "a b", "not a voucher code"},
		{"unknown", "NOPE-0000", "unknown"},
		{"not yet valid", "soon-1", "not valid yet"},
		{"expired", "PAST-1", "expired"},
		{"inactive", "OFF-1", "no longer active"},
		{"another cinema", "PARIS-1", "not valid at this cinema"},
		{"covers no seat: ticket type", "CHILD-1", "covers none"},
		{"covers no seat: show", "ELSEWHERE-1", "covers none"},
		{"too few uses left", "ONE-USE", "too few uses left"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, orders0 := e.RedisStateNorm(), e.CountOrders()
			_, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(1), ShowID: e.Show.ID, SeatIDs: e.SeatIDs("B1", "B2"), Voucher: tc.code})
			if services.ErrorCode(err) != services.CodeVoucherInvalid || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("got %v, want VOUCHER_INVALID saying %q", err, tc.says)
			}
			if after := e.RedisStateNorm(); after != before || e.CountOrders() != orders0 {
				t.Errorf("a refused voucher held or wrote something:\n%s", testenv.StateDiff(before, after))
			}
		})
	}
	e.CheckInvariants()
}

// TestVoucher_ExpectedTotalIsTheDiscountedOne: expected_total_minor is compared with the
// total after the voucher (15 % off 4500 is 3825 a seat; premium 6500 is 5525), the 201
// carries the voucher, its saving and each covered seat's discounted price, and so do a
// read and the order's e-mail.
func TestVoucher_ExpectedTotalIsTheDiscountedOne(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.MakeVoucher("FIFTEEN", 10, 15)
	req := orders.CreateOrderRequest{UserID: e.User(1), ShowID: e.Show.ID, SeatIDs: e.SeatIDs("A1", "H5"), Voucher: "fifteen",
		ExpectedTotalMinor: ptr(int64(4500 + 6500))}
	if _, err := e.Orders.Create(ctx, req); services.ErrorCode(err) != services.CodePriceChanged || !strings.Contains(err.Error(), "9350") {
		t.Fatalf("the list total expected: %v, want PRICE_CHANGED naming 9350", err)
	}
	req.ExpectedTotalMinor = ptr(int64(3825 + 5525))
	o, err := e.Orders.Create(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	read, err := e.Orders.Get(ctx, req.UserID, o.OrderNo)
	if err != nil {
		t.Fatal(err)
	}
	var facts string
	if err := e.DB.Get(&facts, "SELECT facts FROM mail_outbox WHERE order_no = ?", o.OrderNo); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(facts, `"voucher":"FIFTEEN","discount_minor":1650`) {
		t.Errorf("the order's e-mail does not tell of the voucher: %s", facts)
	}
	for _, got := range []*services.Order{o, read} {
		if got.Voucher != "FIFTEEN" || got.TotalMinor != 9350 || got.DiscountMinor != 1650 || len(got.Seats) != 2 {
			t.Fatalf("order %+v", got)
		}
		for _, s := range got.Seats {
			if s.DiscountMinor == nil || s.PriceMinor+*s.DiscountMinor != map[string]int64{"standard": 4500, "premium": 6500}[s.ZoneCode] {
				t.Errorf("seat %s: price %d, discount %v", s.Label, s.PriceMinor, s.DiscountMinor)
			}
		}
	}
	e.CheckInvariants()
}

// TestVoucher_EndsGiveUsesBack: a code of 2 uses is used up by one order of 2 seats; a
// third seat is refused. Cancelling the order gives both uses back (MySQL and Redis) and
// a new buyer uses them; that order's expiry gives them back again.
func TestVoucher_EndsGiveUsesBack(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	v := e.MakeVoucher("TWO-USES", 2, 50)
	buy := func(u int64, labels ...string) (*services.Order, error) {
		return e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, SeatIDs: e.SeatIDs(labels...), Voucher: v.Code})
	}
	check := func(when string, want int64) {
		t.Helper()
		if uses, rows, redis := e.VoucherUses(v.ID, e.Show.ID); uses != want || rows != want || redis != want {
			t.Errorf("%s: uses %d, rows %d, Redis %d; want %d", when, uses, rows, redis, want)
		}
	}
	first, second := e.User(1), e.User(2)
	a, err := buy(first, "C1", "C2")
	if err != nil {
		t.Fatal(err)
	}
	check("after the first order", 2)
	if _, err := buy(second, "D1"); services.ErrorCode(err) != services.CodeVoucherInvalid {
		t.Fatalf("a third use: %v, want VOUCHER_INVALID", err)
	}
	if _, err := e.Orders.Cancel(ctx, first, a.OrderNo); err != nil {
		t.Fatal(err)
	}
	check("after the cancel", 0)
	b, err := buy(second, "D1", "D2")
	if err != nil {
		t.Fatalf("after the cancel: %v", err)
	}
	check("after the second order", 2)
	e.Clock.Advance(e.Orders.HoldFor() + time.Second)
	if ok, err := e.Orders.Expire(ctx, b.OrderNo); err != nil || !ok {
		t.Fatalf("expire: %v %v", ok, err)
	}
	check("after the expiry", 0)
	e.CheckInvariants()
}

func ptr[T any](v T) *T { return &v }
