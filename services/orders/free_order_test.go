package orders_test

import (
	"context"
	"strings"
	"testing"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// TestPayments_FreeOrderPaidAtOnce: an order a 100 % voucher brings to 0 is paid when
// its buyer pays, at once and without a provider (none need be configured): no payment
// row, the order paid with its order_paid e-mail and its seats sold in Redis, and the
// money adds up at 0 (captured − refunded = the sum of its live paid seats). Paying it
// again is ORDER_STATE; an order that costs something still needs a provider.
func TestPayments_FreeOrderPaidAtOnce(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.MakeVoucher("ALL-FREE", 10, 100)
	none := orders.NewPayments(e.DB, e.Orders, e.Clock, []byte("test-secret"))
	for _, tc := range []struct {
		name     string
		payments *orders.Payments
		seats    []string
	}{
		{"with the demo provider configured", e.Payments, []string{"B1", "B2"}},
		{"with no provider configured", none, []string{"B4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := e.User(len(tc.seats))
			o, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, SeatIDs: e.SeatIDs(tc.seats...), Voucher: "all-free"})
			if err != nil || o.TotalMinor != 0 || o.DiscountMinor == 0 {
				t.Fatalf("order %+v %v, want a total of 0", o, err)
			}
			pay, url, err := tc.payments.Start(ctx, u, o.OrderNo, "")
			if err != nil || pay != nil || url != "/orders/"+o.OrderNo {
				t.Fatalf("Start: %+v %q %v, want no payment and the order's page", pay, url, err)
			}
			got, err := e.Orders.Get(ctx, u, o.OrderNo)
			if err != nil || got.Status != services.OrderPaid || got.PaidAt == nil {
				t.Fatalf("after paying: %+v %v, want paid", got, err)
			}
			if kinds := e.MailKinds(o.OrderNo); kinds != "order_created order_paid" {
				t.Errorf("mails %q, want order_created order_paid", kinds)
			}
			states, err := e.Seats.States(ctx, e.Show.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range e.SeatIDs(tc.seats...) {
				if !strings.HasPrefix(states[id], "S|") {
					t.Errorf("seat %d is %q in Redis, want sold", id, states[id])
				}
			}
			var payments, captured, refunded, paidSeats int64
			e.DB.Get(&payments, "SELECT COUNT(*) FROM payments WHERE order_id = ?", o.ID)
			e.DB.Get(&captured, "SELECT COALESCE(SUM(amount_minor), 0) FROM payments WHERE order_id = ? AND status IN ('approved', 'refunded')", o.ID)
			e.DB.Get(&refunded, "SELECT COALESCE(SUM(amount_minor), 0) FROM refunds WHERE order_id = ?", o.ID)
			e.DB.Get(&paidSeats, `SELECT COALESCE(SUM(os.price_minor), 0) FROM order_seats os JOIN orders o ON o.id = os.order_id
				WHERE o.id = ? AND o.status = 'paid' AND os.live = 1`, o.ID)
			if payments != 0 || captured-refunded != paidSeats || paidSeats != 0 {
				t.Errorf("%d payments; captured %d − refunded %d vs paid seats %d, want no payment and 0 = 0", payments, captured, refunded, paidSeats)
			}
			if _, _, err := tc.payments.Start(ctx, u, o.OrderNo, ""); services.ErrorCode(err) != services.CodeOrderState {
				t.Errorf("paying it again: %v, want ORDER_STATE", err)
			}
		})
	}
	t.Run("an order that costs something still needs a provider", func(t *testing.T) {
		o, err := e.Create(e.User(9), e.SeatIDs("C1")...)
		if err != nil || o.TotalMinor == 0 {
			t.Fatalf("%+v %v", o, err)
		}
		if _, _, err := none.Start(ctx, o.UserID, o.OrderNo, ""); services.ErrorCode(err) != services.CodeUnavailable {
			t.Errorf("Start without providers: %v, want UNAVAILABLE", err)
		}
		if err := e.Payments.PayFree(ctx, o); services.ErrorCode(err) != services.CodeOrderState {
			t.Errorf("PayFree of an order that costs %d: %v, want ORDER_STATE", o.TotalMinor, err)
		}
	})
	e.CheckInvariants()
}
