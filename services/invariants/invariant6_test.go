package invariants

import (
	"context"
	"strings"
	"testing"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// TestInvariant6_MoneyFromZonePrices proves invariant 6 (money is int64 minor units
// computed on the server from the show's zone prices; a client total is only
// compared): the total is the sum of the zone prices, each seat row keeps its price, a
// wrong expected_total_minor is PRICE_CHANGED naming the server total and writes
// nothing, a right one passes, and a price change applies to new orders only. Trusting
// the client's total, or pricing from anything but the show's zones, breaks these sums.
//
// Invariant 6 is kept by the create's pricing from show_prices (a client's
// expected_total_minor is only compared) and by the payment webhook, whose amount must
// equal payments.amount_minor. TestCreateOrderHoldsSeatsAndPrices
// (services/orders/orders_test.go) proves it too.
func TestInvariant6_MoneyFromZonePrices(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	u := e.User(1)
	o, err := e.Create(u, e.SeatIDs("A1", "H5", "B2")...)
	if err != nil {
		t.Fatal(err)
	}
	if o.TotalMinor != 4500+6500+4500 || o.Currency != "CNY" {
		t.Errorf("total %d %s, want 15500 CNY", o.TotalMinor, o.Currency)
	}
	prices := map[string]int64{"A1": 4500, "H5": 6500, "B2": 4500}
	for _, s := range o.Seats {
		if s.PriceMinor != prices[s.Label] {
			t.Errorf("seat %s priced %d", s.Label, s.PriceMinor)
		}
	}
	var dbTotal, dbSum int64
	if err := e.DB.Get(&dbTotal, "SELECT total_minor FROM orders WHERE order_no = ?", o.OrderNo); err != nil {
		t.Fatal(err)
	}
	if err := e.DB.Get(&dbSum, "SELECT SUM(price_minor) FROM order_seats WHERE order_id = ?", o.ID); err != nil {
		t.Fatal(err)
	}
	if dbTotal != 15500 || dbSum != 15500 {
		t.Errorf("MySQL total %d, seat sum %d", dbTotal, dbSum)
	}

	v := e.User(2)
	for _, exp := range []int64{0, 10999, 11001, -11000, 1100000} {
		exp := exp
		before := e.State()
		_, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: v, ShowID: e.Show.ID, SeatIDs: e.SeatIDs("C1", "I1"), ExpectedTotalMinor: &exp})
		if services.ErrorCode(err) != services.CodePriceChanged {
			t.Errorf("expected %d: %v, want PRICE_CHANGED", exp, err)
		} else if !strings.Contains(err.Error(), "11000") {
			t.Errorf("PRICE_CHANGED does not give the server total: %v", err)
		}
		if after := e.State(); after != before {
			t.Errorf("expected %d: a PRICE_CHANGED order wrote something:\n%s", exp, testenv.StateDiff(before, after))
		}
	}
	right := int64(11000)
	ok, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: v, ShowID: e.Show.ID, SeatIDs: e.SeatIDs("C1", "I1"), ExpectedTotalMinor: &right})
	if err != nil || ok.TotalMinor != 11000 {
		t.Fatalf("expected total right: %v %v", ok, err)
	}
	two := int64(13000)
	bw, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(3), ShowID: e.Show.ID, Zone: "premium", Quantity: 2, ExpectedTotalMinor: &two})
	if err != nil || bw.TotalMinor != 13000 {
		t.Fatalf("best available with the right total: %v %v", bw, err)
	}

	// the show's price changes: new orders pay the new price, old ones keep theirs
	e.Exec(`UPDATE show_prices p JOIN zones z ON z.id = p.zone_id SET p.price_minor = 4999 WHERE p.show_id = ? AND z.code = 'standard'`, e.Show.ID)
	e.Catalog.ForgetShow(e.Show.ID)
	stale := int64(4500)
	if _, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(4), ShowID: e.Show.ID, SeatIDs: e.SeatIDs("D1"), ExpectedTotalMinor: &stale}); services.ErrorCode(err) != services.CodePriceChanged {
		t.Errorf("an old expected total after a price change: %v, want PRICE_CHANGED", err)
	}
	nw, err := e.Create(e.User(5), e.SeatIDs("D1", "I5")...)
	if err != nil || nw.TotalMinor != 4999+6500 {
		t.Fatalf("order after the price change: %v %v", nw, err)
	}
	if err := e.DB.Get(&dbTotal, "SELECT total_minor FROM orders WHERE order_no = ?", o.OrderNo); err != nil || dbTotal != 15500 {
		t.Errorf("the first order's total became %d (%v)", dbTotal, err)
	}
	var bad int
	if err := e.DB.Get(&bad, `SELECT COUNT(*) FROM orders o WHERE o.total_minor <> (SELECT SUM(price_minor) FROM order_seats os WHERE os.order_id = o.id)`); err != nil || bad != 0 {
		t.Errorf("%d orders whose total is not the sum of their seats (%v)", bad, err)
	}
	e.CheckInvariants()
}
