package staff_test

import (
	"context"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
	"seatflow/services/staff"
)

// TestEndReason_EveryWayAnOrderEnds drives real orders into each way an order can end
// (and two that have not ended) through the services that end them, then reads each
// back with Orders.Get and checks the reason services.DecideEndReason gave it: the
// code, staff's note, and whether a payment was refunded. A show's cancellation is
// told as such for a pending order, a paid one and one whose payment arrived after the
// show was cancelled — never as a late payment.
func TestEndReason_EveryWayAnOrderEnds(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	so := staffOrders(e)
	seatsSvc := staff.NewShowSeats(e.DB, e.Orders, audit.NewAudit(e.DB, e.Clock), 0)
	staffID := e.User(0)
	n := 0
	newBuyer := func() int64 { n++; return e.User(n) }
	create := func(t *testing.T, show *services.Show, buyer int64, labels ...string) *services.Order {
		t.Helper()
		o, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: buyer, ShowID: show.ID, SeatIDs: e.SeatIDs(labels...)})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	must := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	shows := 0
	otherShow := func() *services.Show { // a show of its own to cancel, starting at another time
		shows++
		return e.MakeShow(e.Hall.ID, services.ShowOnSale, e.Clock.Now().Add(-time.Hour), e.Clock.Now().Add(72*time.Hour+time.Duration(shows)*time.Hour))
	}
	type want struct {
		status, code, note string
		refunded           bool
		none               bool
	}
	cases := []struct {
		name string
		run  func(t *testing.T, buyer int64) *services.Order // returns the order to read back
		want want
	}{
		{"pending has no reason", func(t *testing.T, b int64) *services.Order {
			return create(t, e.Show, b, "A1")
		}, want{status: services.OrderPending, none: true}},
		{"paid has no reason", func(t *testing.T, b int64) *services.Order {
			o := create(t, e.Show, b, "A2")
			must(t, e.PayOrder(o))
			return o
		}, want{status: services.OrderPaid, none: true}},
		{"cancelled by the buyer", func(t *testing.T, b int64) *services.Order {
			o := create(t, e.Show, b, "A3")
			_, err := e.Orders.Cancel(ctx, b, o.OrderNo)
			must(t, err)
			return o
		}, want{status: services.OrderCancelled, code: services.EndCancelledByBuyer}},
		{"deadline passed", func(t *testing.T, b int64) *services.Order {
			o := create(t, e.Show, b, "A4")
			e.Clock.Advance(16 * time.Minute)
			_, err := e.Orders.Expire(ctx, o.OrderNo)
			must(t, err)
			return o
		}, want{status: services.OrderExpired, code: services.EndExpired}},
		{"waiting-list offer lapsed", func(t *testing.T, b int64) *services.Order {
			no := services.NewOrderNo(e.Clock.Now())
			now := e.Clock.Now()
			e.Exec(`INSERT INTO waitlist_entries (show_id, user_id, quantity, status, active, order_no, offered_at, created_at, updated_at)
				VALUES (?, ?, 1, 'offered', 1, ?, ?, ?, ?)`, e.Show.ID, b, no, now, now, now)
			o, err := e.Orders.CreateOffer(ctx, orders.Offer{UserID: b, ShowID: e.Show.ID, SeatIDs: e.SeatIDs("A5"), OrderNo: no, HoldFor: 10 * time.Minute})
			must(t, err)
			e.Clock.Advance(11 * time.Minute)
			_, err = e.Orders.Expire(ctx, o.OrderNo)
			must(t, err)
			return o
		}, want{status: services.OrderExpired, code: services.EndOfferLapsed}},
		{"payment after the deadline refunded", func(t *testing.T, b int64) *services.Order {
			o := create(t, e.Show, b, "A6")
			p, _, err := e.Payments.Start(ctx, b, o.OrderNo, "demo")
			must(t, err)
			e.Clock.Advance(15*time.Minute + orders.PaymentGrace + time.Second)
			_, err = e.Payments.DemoDecide(ctx, p.PaymentID, true)
			must(t, err)
			return o
		}, want{status: services.OrderExpired, code: services.EndLatePaymentRefunded, refunded: true}},
		{"refunded by staff with their reason", func(t *testing.T, b int64) *services.Order {
			o := create(t, e.Show, b, "A7")
			must(t, e.PayOrder(o))
			_, err := so.Refund(ctx, staffID, o.OrderNo, "customer asked")
			must(t, err)
			return o
		}, want{status: services.OrderRefunded, code: services.EndRefundedByStaff, note: "customer asked", refunded: true}},
		{"cancelled by staff releasing a seat", func(t *testing.T, b int64) *services.Order {
			o := create(t, e.Show, b, "A8")
			_, err := seatsSvc.Release(ctx, staffID, e.Show.ID, o.Seats[0].SeatID, o.OrderNo, "stuck at the box office")
			must(t, err)
			return o
		}, want{status: services.OrderCancelled, code: services.EndCancelledByStaff, note: "stuck at the box office"}},
		{"show cancelled while pending", func(t *testing.T, b int64) *services.Order {
			s := otherShow()
			o := create(t, s, b, "B1")
			_, err := so.CancelShow(ctx, staffID, s.ID, "")
			must(t, err)
			return o
		}, want{status: services.OrderCancelled, code: services.EndShowCancelled}},
		{"show cancelled after paying, with staff's words", func(t *testing.T, b int64) *services.Order {
			s := otherShow()
			o := create(t, s, b, "B2")
			must(t, e.PayOrder(o))
			_, err := so.CancelShow(ctx, staffID, s.ID, "projector broken")
			must(t, err)
			return o
		}, want{status: services.OrderRefunded, code: services.EndShowCancelled, note: "projector broken", refunded: true}},
		{"show cancelled while the buyer was paying", func(t *testing.T, b int64) *services.Order {
			s := otherShow()
			o := create(t, s, b, "B3")
			p, _, err := e.Payments.Start(ctx, b, o.OrderNo, "demo")
			must(t, err)
			_, err = so.CancelShow(ctx, staffID, s.ID, "")
			must(t, err)
			_, err = e.Payments.DemoDecide(ctx, p.PaymentID, true)
			must(t, err)
			return o
		}, want{status: services.OrderCancelled, code: services.EndShowCancelled, refunded: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			buyer := newBuyer()
			o := tc.run(t, buyer)
			got, err := e.Orders.Get(ctx, buyer, o.OrderNo)
			must(t, err)
			if got.Status != tc.want.status {
				t.Fatalf("status %s, want %s", got.Status, tc.want.status)
			}
			if tc.want.none {
				if got.End != nil {
					t.Fatalf("end reason %+v, want none", *got.End)
				}
				return
			}
			if got.End == nil {
				t.Fatal("no end reason")
			}
			w := services.EndReason{Code: tc.want.code, Note: tc.want.note, PaymentRefunded: tc.want.refunded}
			if *got.End != w {
				t.Errorf("end reason %+v, want %+v", *got.End, w)
			}
			list, err := e.Orders.List(ctx, buyer, 10)
			must(t, err)
			if len(list) != 1 || list[0].End == nil || *list[0].End != w {
				t.Errorf("the order list gives %+v, want one order with %+v", list, w)
			}
		})
	}
}
