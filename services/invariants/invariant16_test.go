package invariants

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/internal/testenv"
	"seatflow/services/mail"
	"seatflow/services/orders"
	"seatflow/services/staff"
	"seatflow/services/waitlist"
)

// wantMail is one outbox row a test expects for an order: its kind and Data (nil: none).
type wantMail struct {
	kind string
	data map[string]string
}

// checkMails fails the test unless the outbox holds exactly want for order, in order,
// each addressed to the order's buyer and naming its show.
func checkMails(t *testing.T, e *testenv.TestEnv, o *services.Order, want ...wantMail) {
	t.Helper()
	got := e.MailsOf(o.OrderNo)
	if len(got) != len(want) {
		t.Fatalf("order %s has e-mails %q, want %d: %v", o.OrderNo, e.MailKinds(o.OrderNo), len(want), want)
	}
	for i, w := range want {
		g := got[i]
		if g.Kind != w.kind || g.UserID != o.UserID || g.ShowID != o.ShowID || !maps.Equal(g.Data, w.data) {
			t.Errorf("e-mail %d of order %s: %s to user %d about show %d with %v; want %s to user %d about show %d with %v",
				i, o.OrderNo, g.Kind, g.UserID, g.ShowID, g.Data, w.kind, o.UserID, o.ShowID, w.data)
		}
	}
}

var created = wantMail{kind: string(mail.OrderCreated)}

// TestInvariant16_EveryOrderEventQueuesOneMail drives each order event through the real
// services and finds exactly one outbox row of its kind, for the order's buyer, with its
// reason codes; the repeat, the replay or the loser of each transition writes none.
//
// Invariant 16 is kept by mail.Queue inside the deciding transaction, only on the
// winner's path of the conditional update (invariant 5): the group commit (one multi-row
// INSERT for a batch's committed orders), the end of an order (its caller gives the kind
// and reason), the payment's approval and the staff refund. The outbox's dedupe key
// (kind:order_no; a late payment's refund kind:payment_id) makes an event written twice
// one row; Data carries reason codes a renderer translates (services/mail/reasons.go).
// Besides this file, TestGroupCommit_BatchQueuesOneCreatedMailPerCommittedOrder
// (services/orders/created_mail_test.go) proves it.
func TestInvariant16_EveryOrderEventQueuesOneMail(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.QuietLogs()
	ctx := context.Background()
	au := audit.NewAudit(e.DB, e.Clock)
	so := staff.NewStaffOrders(e.DB, e.Orders, e.Payments, e.Shows, au)
	staffID := e.User(0)
	create := func(t *testing.T, labels ...string) *services.Order {
		t.Helper()
		o, err := e.Create(e.User(1), e.SeatIDs(labels...)...)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	startPay := func(t *testing.T, o *services.Order) *orders.Payment {
		t.Helper()
		p, _, err := e.Payments.Start(ctx, o.UserID, o.OrderNo, "demo")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	approve := func(t *testing.T, p *orders.Payment) {
		t.Helper()
		if _, err := e.Payments.DemoDecide(ctx, p.PaymentID, true); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("created", func(t *testing.T) {
		o := create(t, "A1", "A2")
		checkMails(t, e, o, created)
	})
	t.Run("paid, and the replayed webhook writes nothing", func(t *testing.T) {
		o := create(t, "A3")
		p := startPay(t, o)
		approve(t, p)
		approve(t, p) // the provider sends the event again
		checkMails(t, e, o, created, wantMail{kind: string(mail.OrderPaid)})
	})
	t.Run("cancelled by the buyer, twice", func(t *testing.T) {
		o := create(t, "A5")
		for range 2 {
			if _, err := e.Orders.Cancel(ctx, o.UserID, o.OrderNo); err != nil {
				t.Fatal(err)
			}
		}
		checkMails(t, e, o, created, wantMail{string(mail.OrderCancelled), map[string]string{"reason": "buyer"}})
	})
	t.Run("expired, twice", func(t *testing.T) {
		o := create(t, "A7")
		e.Clock.Advance(16 * time.Minute)
		for range 2 {
			if _, err := e.Orders.Expire(ctx, o.OrderNo); err != nil {
				t.Fatal(err)
			}
		}
		checkMails(t, e, o, created, wantMail{string(mail.OrderExpired), map[string]string{"reason": "deadline"}})
	})
	t.Run("an expire that lost to pay writes nothing", func(t *testing.T) {
		o := create(t, "A9")
		e.Pay(o)
		e.Clock.Advance(16 * time.Minute)
		if won, err := e.Orders.Expire(ctx, o.OrderNo); won || err != nil {
			t.Fatalf("expire of a paid order: won %v, %v", won, err)
		}
		checkMails(t, e, o, created, wantMail{kind: string(mail.OrderPaid)})
	})
	t.Run("a cancel that lost to pay writes nothing", func(t *testing.T) {
		o := create(t, "B1")
		e.Pay(o)
		if _, err := e.Orders.Cancel(ctx, o.UserID, o.OrderNo); services.ErrorCode(err) != services.CodeOrderState {
			t.Fatalf("cancel of a paid order: %v", err)
		}
		checkMails(t, e, o, created, wantMail{kind: string(mail.OrderPaid)})
	})
	t.Run("payment after the cancel is refunded, once", func(t *testing.T) {
		o := create(t, "B3")
		p := startPay(t, o)
		if _, err := e.Orders.Cancel(ctx, o.UserID, o.OrderNo); err != nil {
			t.Fatal(err)
		}
		approve(t, p)
		approve(t, p) // replayed
		checkMails(t, e, o, created, wantMail{string(mail.OrderCancelled), map[string]string{"reason": "buyer"}},
			wantMail{string(mail.OrderRefunded), map[string]string{"reason": "late_payment"}})
	})
	t.Run("second payment of a paid order is refunded", func(t *testing.T) {
		o := create(t, "B5")
		p1, p2 := startPay(t, o), startPay(t, o)
		approve(t, p1)
		approve(t, p2)
		checkMails(t, e, o, created, wantMail{kind: string(mail.OrderPaid)},
			wantMail{string(mail.OrderRefunded), map[string]string{"reason": "already_paid"}})
	})
	t.Run("refunded by staff, twice", func(t *testing.T) {
		o := create(t, "B7")
		e.Pay(o)
		if _, err := so.Refund(ctx, staffID, o.OrderNo, "double booking"); err != nil {
			t.Fatal(err)
		}
		if _, err := so.Refund(ctx, staffID, o.OrderNo, "again"); services.ErrorCode(err) != services.CodeOrderState {
			t.Fatalf("second refund: %v", err)
		}
		checkMails(t, e, o, created, wantMail{kind: string(mail.OrderPaid)},
			wantMail{string(mail.OrderRefunded), map[string]string{"reason": "staff", "note": "double booking", "refunded_minor": "4500"}})
	})
	t.Run("refunded by staff without a reason", func(t *testing.T) {
		o := create(t, "B9")
		e.Pay(o)
		if _, err := so.Refund(ctx, staffID, o.OrderNo, ""); err != nil {
			t.Fatal(err)
		}
		checkMails(t, e, o, created, wantMail{kind: string(mail.OrderPaid)},
			wantMail{string(mail.OrderRefunded), map[string]string{"reason": "staff", "refunded_minor": "4500"}})
	})
	t.Run("some seats refunded, then the rest: one e-mail per refund", func(t *testing.T) {
		o := create(t, "G1", "G2", "G3")
		e.Pay(o)
		if _, err := so.RefundSeats(ctx, staffID, o.OrderNo, "", e.SeatIDs("G1")); err != nil {
			t.Fatal(err)
		}
		if _, err := so.RefundSeats(ctx, staffID, o.OrderNo, "", e.SeatIDs("G1")); services.ErrorCode(err) != services.CodeOrderState {
			t.Fatalf("the same seat again: %v", err)
		}
		if _, err := so.RefundSeats(ctx, staffID, o.OrderNo, "", e.SeatIDs("G2")); err != nil {
			t.Fatal(err)
		}
		if _, err := so.Refund(ctx, staffID, o.OrderNo, ""); err != nil {
			t.Fatal(err)
		}
		part := func(seat string) wantMail {
			return wantMail{string(mail.OrderPartRefunded), map[string]string{"seats": seat, "refunded_minor": "4500"}}
		}
		checkMails(t, e, o, created, wantMail{kind: string(mail.OrderPaid)}, part("G1"), part("G2"),
			wantMail{string(mail.OrderRefunded), map[string]string{"reason": "staff", "refunded_minor": "4500"}})
	})
	t.Run("cancelled by staff releasing its seat", func(t *testing.T) {
		o := create(t, "C1")
		ss := staff.NewShowSeats(e.DB, e.Orders, au, time.Minute)
		if _, err := ss.Release(ctx, staffID, e.Show.ID, o.Seats[0].SeatID, o.OrderNo, "stuck at the till"); err != nil {
			t.Fatal(err)
		}
		checkMails(t, e, o, created, wantMail{string(mail.OrderCancelled), map[string]string{"reason": "staff", "note": "stuck at the till"}})
	})
	t.Run("show cancelled: one show_cancelled e-mail per order, saying what happened", func(t *testing.T) {
		show := e.OnSaleShow(e.Hall.ID, 1)
		mk := func(label string) *services.Order {
			o, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(2), ShowID: show.ID, SeatIDs: e.SeatIDs(label)})
			if err != nil {
				t.Fatal(err)
			}
			return o
		}
		pending, paid, ended := mk("D1"), mk("D3"), mk("D5")
		e.Pay(paid)
		if _, err := e.Orders.Cancel(ctx, ended.UserID, ended.OrderNo); err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second cancel ends nothing
			if _, err := so.CancelShow(ctx, staffID, show.ID, "projector broken"); err != nil {
				t.Fatal(err)
			}
		}
		checkMails(t, e, pending, created, wantMail{string(mail.ShowCancelled), map[string]string{"outcome": "cancelled", "note": "projector broken"}})
		checkMails(t, e, paid, created, wantMail{kind: string(mail.OrderPaid)},
			wantMail{string(mail.ShowCancelled), map[string]string{"outcome": "refunded", "note": "projector broken", "refunded_minor": "4500"}})
		checkMails(t, e, ended, created, wantMail{string(mail.OrderCancelled), map[string]string{"reason": "buyer"}})
	})
	t.Run("waiting-list offer: the offer's e-mail instead of order_created", func(t *testing.T) {
		h := e.MakeLayout("Offer hall", testenv.RowSpec{Zone: "standard", Seats: "SSSS"})
		show := e.OnSaleShow(h.ID, 0)
		first, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(3), ShowID: show.ID, SeatIDs: testenv.HallSeatIDs(t, h, "A1", "A2", "A3", "A4")})
		if err != nil {
			t.Fatal(err)
		}
		l := waitlist.NewLists(e.DB, e.Orders, nil)
		waiter := e.User(4)
		if _, err := l.Join(ctx, waiter, show.ID, 2, "", ""); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Orders.Cancel(ctx, first.UserID, first.OrderNo); err != nil {
			t.Fatal(err)
		}
		if n, err := l.Serve(ctx, show.ID); err != nil || n != 1 {
			t.Fatalf("serve: %d offers, %v", n, err)
		}
		en, err := l.Mine(ctx, waiter, show.ID)
		if err != nil || en.OrderNo == "" {
			t.Fatalf("the place after the serve: %+v, %v", en, err)
		}
		offer, err := e.Orders.ByNo(ctx, en.OrderNo)
		if err != nil {
			t.Fatal(err)
		}
		checkMails(t, e, offer, wantMail{kind: string(mail.WaitlistOffer)})
	})
	e.CheckInvariants()
}

// TestInvariant16_RacingCancelsAndPaymentsOneTerminalMail: buyers' cancels and payments
// of one order race (each round with a fresh order; in odd rounds the cancels start a
// few milliseconds late, so both sides win some rounds); exactly one of order_paid and
// order_cancelled is queued, matching the order's final status, and every payment that
// lost has its own order_refunded e-mail.
func TestInvariant16_RacingCancelsAndPaymentsOneTerminalMail(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.QuietLogs()
	ctx := context.Background()
	const rounds, racers = 6, 8
	for r := range rounds {
		o, err := e.Create(e.User(r), e.SeatIDs(fmt.Sprintf("E%d", r+1))...)
		if err != nil {
			t.Fatal(err)
		}
		pays := make([]*orders.Payment, racers/2)
		for i := range pays {
			if pays[i], _, err = e.Payments.Start(ctx, o.UserID, o.OrderNo, "demo"); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if i%2 == 0 {
					e.Payments.DemoDecide(ctx, pays[i/2].PaymentID, true)
					return
				}
				if r%2 == 1 {
					time.Sleep(time.Duration(r) * time.Millisecond) // let the payments get ahead
				}
				e.Orders.Cancel(ctx, o.UserID, o.OrderNo)
			}()
		}
		close(start)
		wg.Wait()
		var terminal []string
		refunds := 0
		for _, m := range e.MailsOf(o.OrderNo) {
			switch mail.Kind(m.Kind) {
			case mail.OrderPaid, mail.OrderCancelled, mail.OrderExpired:
				terminal = append(terminal, m.Kind)
			case mail.OrderRefunded:
				refunds++
			}
		}
		var refunded int
		if err := e.DB.Get(&refunded, "SELECT COUNT(*) FROM payments WHERE order_id = ? AND status = 'refunded'", o.ID); err != nil {
			t.Fatal(err)
		}
		status := e.OrderStatus(o.OrderNo)
		t.Logf("round %d: order %s, e-mails %s", r, status, e.MailKinds(o.OrderNo))
		if len(terminal) != 1 || terminal[0] != "order_"+status {
			t.Errorf("round %d: order is %s, terminal e-mails %v; want exactly [order_%s]", r, status, terminal, status)
		}
		if refunds != refunded {
			t.Errorf("round %d: %d refund e-mails for %d refunded payments", r, refunds, refunded)
		}
	}
	e.CheckInvariants()
}
