package orders_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// failingReader is a random source that always fails: a ticket code drawn from it
// cannot be made, so a read that succeeds did not draw.
type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("no draws expected") }

// paidCode is what the database holds of order o's ticket code: the stored code ("" for
// none), how many ticket_codes rows name the order, and the code its order_paid
// e-mail's facts froze ("" when there is no such e-mail or its facts have no code).
type paidCode struct {
	stored string
	rows   int
	frozen string
}

func paidCodeOf(t *testing.T, e *testenv.TestEnv, o *services.Order) paidCode {
	t.Helper()
	var c paidCode
	if err := e.DB.Get(&c.rows, "SELECT COUNT(*) FROM ticket_codes WHERE order_id = ?", o.ID); err != nil {
		t.Fatal(err)
	}
	if c.rows > 0 {
		if err := e.DB.Get(&c.stored, "SELECT code FROM ticket_codes WHERE order_id = ?", o.ID); err != nil {
			t.Fatal(err)
		}
	}
	var facts []string
	if err := e.DB.Select(&facts, "SELECT COALESCE(facts, '{}') FROM mail_outbox WHERE order_no = ? AND kind = 'order_paid'", o.OrderNo); err != nil {
		t.Fatal(err)
	}
	if len(facts) > 1 {
		t.Fatalf("%d order_paid e-mails of %s", len(facts), o.OrderNo)
	}
	if len(facts) == 1 {
		var f struct {
			Order struct {
				TicketCode string `json:"ticket_code"`
			} `json:"order"`
		}
		if err := json.Unmarshal([]byte(facts[0]), &f); err != nil {
			t.Fatalf("facts of %s: %v", o.OrderNo, err)
		}
		c.frozen = f.Order.TicketCode
	}
	return c
}

// TestPayment_DrawsTheTicketCodeInItsTransaction: the approval that pays an order draws
// its ticket code in the payment's transaction, so the ticket e-mail queued there
// freezes it: right after the payment the order has one code, canonical, and the
// order_paid facts carry the same; reading it (Tickets.Code, what the API and ticket
// page call) returns that code without drawing, however often, and the webhook delivered
// again draws nothing. A draw another order holds is drawn again inside the payment. An
// approval refused as late pays nothing and draws nothing. An order paid before codes
// were drawn at payment (no row) still gets one on its first read, kept after.
func TestPayment_DrawsTheTicketCodeInItsTransaction(t *testing.T) {
	ctx := context.Background()
	first, second := bytes.Repeat([]byte{7}, 9), bytes.Repeat([]byte{9}, 9)
	want1, _ := orders.NewTicketCode(bytes.NewReader(first))
	want2, _ := orders.NewTicketCode(bytes.NewReader(second))
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, e *testenv.TestEnv, tk *orders.Tickets)
	}{
		{"approval draws once; reads and a repeated webhook draw nothing", func(t *testing.T, e *testenv.TestEnv, tk *orders.Tickets) {
			o, err := e.Create(e.User(1), e.SeatIDs("E5", "E6")...)
			if err != nil {
				t.Fatal(err)
			}
			p, _, err := e.Payments.Start(ctx, o.UserID, o.OrderNo, "demo")
			if err != nil {
				t.Fatal(err)
			}
			if c := paidCodeOf(t, e, o); c.rows != 0 {
				t.Fatalf("a pending order has %d ticket codes", c.rows)
			}
			if _, err := e.Payments.DemoDecide(ctx, p.PaymentID, true); err != nil {
				t.Fatal(err)
			}
			c := paidCodeOf(t, e, o)
			if parsed, err := orders.ParseTicketCode(c.stored); c.rows != 1 || err != nil || parsed != c.stored {
				t.Fatalf("after the payment: %d rows, code %q (%v), want one canonical code", c.rows, c.stored, err)
			}
			if c.frozen != c.stored {
				t.Errorf("the ticket e-mail froze code %q, the order has %q", c.frozen, c.stored)
			}
			tk.SetRand(failingReader{})
			for i := range 2 {
				if got, err := tk.Code(ctx, o); got != c.stored || err != nil {
					t.Errorf("read %d: %q, %v; want %q without a draw", i+1, got, err, c.stored)
				}
			}
			e.Orders.SetTicketRand(failingReader{})
			if _, err := e.Payments.DemoDecide(ctx, p.PaymentID, true); err != nil {
				t.Fatalf("the webhook again: %v", err)
			}
			if again := paidCodeOf(t, e, o); again != c {
				t.Errorf("after the webhook again: %+v, want %+v", again, c)
			}
		}},
		{"a draw another order holds is drawn again in the payment", func(t *testing.T, e *testenv.TestEnv, _ *orders.Tickets) {
			o1, err := e.Create(e.User(1), e.SeatIDs("A1")...)
			if err != nil {
				t.Fatal(err)
			}
			o2, err := e.Create(e.User(2), e.SeatIDs("A2")...)
			if err != nil {
				t.Fatal(err)
			}
			e.Orders.SetTicketRand(bytes.NewReader(first))
			if err := e.PayOrder(o1); err != nil {
				t.Fatal(err)
			}
			e.Orders.SetTicketRand(bytes.NewReader(append(append([]byte{}, first...), second...)))
			if err := e.PayOrder(o2); err != nil {
				t.Fatal(err)
			}
			for _, w := range []struct {
				o    *services.Order
				want string
			}{{o1, want1}, {o2, want2}} {
				if c := paidCodeOf(t, e, w.o); c.stored != w.want || c.frozen != w.want || c.rows != 1 {
					t.Errorf("order %s: %+v, want code %s stored once and frozen", w.o.OrderNo, c, w.want)
				}
			}
			if st := e.OrderStatus(o2.OrderNo); st != services.OrderPaid {
				t.Errorf("the order whose first draw collided is %s, want paid", st)
			}
		}},
		{"a late approval pays nothing and draws nothing", func(t *testing.T, e *testenv.TestEnv, _ *orders.Tickets) {
			o, err := e.Create(e.User(1), e.SeatIDs("B3")...)
			if err != nil {
				t.Fatal(err)
			}
			p, _, err := e.Payments.Start(ctx, o.UserID, o.OrderNo, "demo")
			if err != nil {
				t.Fatal(err)
			}
			e.Clock.Advance(15*time.Minute + orders.PaymentGrace + time.Minute)
			if _, err := e.Payments.DemoDecide(ctx, p.PaymentID, true); err != nil {
				t.Fatal(err)
			}
			if st, c := e.OrderStatus(o.OrderNo), paidCodeOf(t, e, o); st == services.OrderPaid || c.rows != 0 || c.frozen != "" {
				t.Errorf("late approval: order %s, codes %+v; want not paid and no code", st, c)
			}
		}},
		{"an order paid before codes were drawn at payment gets one on its first read", func(t *testing.T, e *testenv.TestEnv, tk *orders.Tickets) {
			o, err := e.Create(e.User(1), e.SeatIDs("C4")...)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.PayOrder(o); err != nil {
				t.Fatal(err)
			}
			e.Exec("DELETE FROM ticket_codes WHERE order_id = ?", o.ID)
			tk.SetRand(bytes.NewReader(second))
			if got, err := tk.Code(ctx, o); got != want2 || err != nil {
				t.Fatalf("first read: %q, %v; want %q drawn now", got, err, want2)
			}
			tk.SetRand(failingReader{})
			if got, err := tk.Code(ctx, o); got != want2 || err != nil {
				t.Errorf("second read: %q, %v; want %q kept", got, err, want2)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := testenv.NewTestEnv(t, testenv.Unlimited)
			e.QuietLogs()
			tc.run(t, e, orders.NewTickets([]byte("secret")).WithCodes(e.DB, e.Clock))
			e.CheckInvariants()
		})
	}
}
