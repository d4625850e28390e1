package orders_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/mail"
	"seatflow/services/orders"
)

// exchangeTo asks to move order o of its buyer onto the seats labels.
func exchangeTo(e *testenv.TestEnv, o *services.Order, labels ...string) (*services.Order, error) {
	return e.Orders.Exchange(context.Background(), orders.ExchangeRequest{UserID: o.UserID, OrderNo: o.OrderNo, SeatIDs: e.SeatIDs(labels...)})
}

// TestExchange_MovesThePendingOrder: the order is held on its new seats, each keeping its
// old seat's price (zone by zone), the old seats are free, the buyer's count, the total
// and the deadline are the same, and one audit entry and one e-mail tell of it.
func TestExchange_MovesThePendingOrder(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	u := e.User(1)
	o, err := e.Create(u, e.SeatIDs("A1", "H5")...)
	if err != nil {
		t.Fatal(err)
	}
	count := e.UserCount(e.Show.ID, u)
	got, err := exchangeTo(e, o, "H7", "C3")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != services.OrderPending || got.TotalMinor != o.TotalMinor || !got.ExpiresAt.Equal(o.ExpiresAt) {
		t.Fatalf("after the exchange: %+v (before %+v)", got, o)
	}
	prices := map[string]int64{}
	for _, s := range got.Seats {
		prices[s.Label] = s.PriceMinor
	}
	if len(got.Seats) != 2 || prices["C3"] != 4500 || prices["H7"] != 6500 {
		t.Errorf("seats %+v", got.Seats)
	}
	for _, l := range []string{"C3", "H7"} {
		if v := e.SeatVal(e.Show.ID, e.SeatIDs(l)[0]); v != testenv.HeldBy(o) {
			t.Errorf("%s is %q", l, v)
		}
	}
	for _, l := range []string{"A1", "H5"} {
		if v := e.SeatVal(e.Show.ID, e.SeatIDs(l)[0]); v != "F" {
			t.Errorf("%s is %q, not free", l, v)
		}
	}
	if now := e.UserCount(e.Show.ID, u); now != count {
		t.Errorf("purchase-limit count %s, was %s", now, count)
	}
	var audits, mails int
	if err := e.DB.Get(&audits, "SELECT COUNT(*) FROM audit_log WHERE action = 'order.exchange' AND entity_id = ?", o.OrderNo); err != nil {
		t.Fatal(err)
	}
	if err := e.DB.Get(&mails, "SELECT COUNT(*) FROM mail_outbox WHERE kind = 'order_exchanged' AND order_no = ?", o.OrderNo); err != nil {
		t.Fatal(err)
	}
	if audits != 1 || mails != 1 {
		t.Errorf("%d audit entries, %d e-mails; want 1 and 1", audits, mails)
	}
	// the old seats sell to someone else; the order can come back to a seat it had
	if _, err := e.Create(e.User(2), e.SeatIDs("A1")...); err != nil {
		t.Fatalf("an old seat does not sell: %v", err)
	}
	if got, err = exchangeTo(e, got, "H5", "C3"); err != nil || !slices.Contains(orders.Labels(got.Seats), "H5") {
		t.Fatalf("back to H5: %v %v", got, err)
	}
	e.CheckInvariants()
}

// TestExchange_PaidOrderGetsNewTickets: a paid order's new seats are sold; the tickets of
// its old seats no longer admit (the QR reference's signature names the seats, the old
// ticket code is gone) and the new ones do.
func TestExchange_PaidOrderGetsNewTickets(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	tickets := orders.NewTickets([]byte("ticket-secret")).WithCodes(e.DB, e.Clock)
	o, err := e.Create(e.User(1), e.SeatIDs("B1", "B2")...)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.PayOrder(o); err != nil {
		t.Fatal(err)
	}
	if o, err = e.Orders.ByNo(ctx, o.OrderNo); err != nil {
		t.Fatal(err)
	}
	oldCode, err := tickets.Code(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	oldRef := tickets.Ref(o)
	got, err := exchangeTo(e, o, "B2", "E5")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != services.OrderPaid || e.SeatVal(e.Show.ID, e.SeatIDs("E5")[0]) != testenv.SoldTo(o) ||
		e.SeatVal(e.Show.ID, e.SeatIDs("B1")[0]) != "F" || e.SeatVal(e.Show.ID, e.SeatIDs("B2")[0]) != testenv.SoldTo(o) {
		t.Fatalf("after the exchange: %+v", got)
	}
	if tickets.Verify(oldRef, got) {
		t.Error("the old seats' QR reference still verifies")
	}
	if !tickets.Verify(tickets.Ref(got), got) {
		t.Error("the new QR reference does not verify")
	}
	if _, err := tickets.OrderNoOfCode(ctx, oldCode); services.ErrorCode(err) != services.CodeNotFound {
		t.Errorf("the old ticket code still finds the order: %v", err)
	}
	newCode, err := tickets.Code(ctx, got)
	if err != nil || newCode == oldCode {
		t.Fatalf("new code %q (old %q): %v", newCode, oldCode, err)
	}
	if no, err := tickets.OrderNoOfCode(ctx, newCode); err != nil || no != o.OrderNo {
		t.Errorf("the new code finds %q: %v", no, err)
	}
	// the e-mail names the new seats and the old one, and carries the new ticket
	var id int64
	if err := e.DB.Get(&id, "SELECT id FROM mail_outbox WHERE kind = 'order_exchanged' AND order_no = ?", o.OrderNo); err != nil {
		t.Fatal(err)
	}
	row, err := mail.NewOutbox(e.DB, e.Clock).Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	r := &mail.Renderer{Orders: e.Orders, Shows: e.Catalog, Tickets: tickets, BaseURL: "https://seatflow.test", Zone: time.UTC}
	out, err := r.Render(ctx, row)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"B2", "E5", "Previous seats", "B1", orders.FormatTicketCode(newCode)} {
		if !strings.Contains(out.Text, want) {
			t.Errorf("the e-mail does not say %q:\n%s", want, out.Text)
		}
	}
	if len(out.Images) != 1 {
		t.Errorf("the e-mail carries %d images, want the new ticket's QR code", len(out.Images))
	}
	e.CheckInvariants()
}

// TestExchange_Refusals: each refusal answers its code and leaves both stores as they
// were (the order keeps its seats).
func TestExchange_Refusals(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	u := e.User(1)
	o, err := e.Create(u, e.SeatIDs("D1", "H1")...)
	if err != nil {
		t.Fatal(err)
	}
	other, err := e.Create(e.User(2), e.SeatIDs("D5")...)
	if err != nil {
		t.Fatal(err)
	}
	ended, err := e.Create(u, e.SeatIDs("G9")...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Orders.Cancel(context.Background(), u, ended.OrderNo); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		user    int64
		orderNo string
		labels  []string
		code    string
		seats   []string
	}{
		{"another buyer's order", other.UserID, o.OrderNo, []string{"D2", "H2"}, services.CodeNotFound, nil},
		{"an unknown order", u, "NOSUCHORDER0000", []string{"D2", "H2"}, services.CodeNotFound, nil},
		{"fewer seats", u, o.OrderNo, []string{"D2"}, services.CodeInvalidRequest, nil},
		{"more seats", u, o.OrderNo, []string{"D2", "H2", "D3"}, services.CodeInvalidRequest, nil},
		{"another zone", u, o.OrderNo, []string{"D2", "D3"}, services.CodeInvalidRequest, nil},
		{"the same seats", u, o.OrderNo, []string{"H1", "D1"}, services.CodeInvalidRequest, nil},
		{"a seat another order holds", u, o.OrderNo, []string{"D5", "H2"}, services.CodeSeatTaken, []string{"D5"}},
		{"a blocked seat", u, o.OrderNo, []string{"D2", "J1"}, services.CodeSeatNotInShow, []string{"J1"}},
		{"an ended order", u, ended.OrderNo, []string{"G8"}, services.CodeOrderState, nil},
	}
	before := e.State()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.Orders.Exchange(context.Background(), orders.ExchangeRequest{UserID: c.user, OrderNo: c.orderNo, SeatIDs: e.SeatIDs(c.labels...)})
			if services.ErrorCode(err) != c.code {
				t.Fatalf("got %v, want %s", err, c.code)
			}
			var se *services.Error
			if c.seats != nil && (!errors.As(err, &se) || !slices.Equal(se.Seats, c.seats)) {
				t.Errorf("seats %v, want %v", se, c.seats)
			}
			if d := testenv.StateDiff(before, e.State()); d != "" {
				t.Errorf("the refusal changed the stores:\n%s", d)
			}
		})
	}
	t.Run("the show has started", func(t *testing.T) {
		paid, err := e.Create(e.User(3), e.SeatIDs("E1")...)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.PayOrder(paid); err != nil {
			t.Fatal(err)
		}
		e.Clock.Advance(49 * time.Hour)
		defer e.Clock.Advance(-49 * time.Hour)
		before := e.State()
		if _, err := exchangeTo(e, paid, "E2"); services.ErrorCode(err) != services.CodeOrderState {
			t.Fatalf("got %v, want ORDER_STATE", err)
		}
		if d := testenv.StateDiff(before, e.State()); d != "" {
			t.Errorf("the refusal changed the stores:\n%s", d)
		}
	})
	e.CheckInvariants()
}

// TestExchange_SingleSeatRule: under enforce an exchange that would leave a lone empty
// seat its row could have spared is refused (SINGLE_SEAT_GAP), counting the seats the
// order lets go as free, and writes nothing; one that strands none goes through.
func TestExchange_SingleSeatRule(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.Exec("UPDATE shows SET single_seat_rule = 'enforce' WHERE id = ?", e.Show.ID)
	e.Catalog.ForgetShow(e.Show.ID)
	o, err := e.Create(e.User(1), e.SeatIDs("A5")...)
	if err != nil {
		t.Fatal(err)
	}
	before := e.State()
	if _, err := exchangeTo(e, o, "A2"); services.ErrorCode(err) != services.CodeSingleSeatGap {
		t.Fatalf("A5 -> A2 (strands A1): %v, want SINGLE_SEAT_GAP", err)
	}
	if d := testenv.StateDiff(before, e.State()); d != "" {
		t.Errorf("the refusal changed the stores:\n%s", d)
	}
	if _, err := exchangeTo(e, o, "A1"); err != nil {
		t.Fatalf("A5 -> A1: %v", err)
	}
	e.CheckInvariants()
}
