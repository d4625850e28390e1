package mail_test

import (
	"context"
	"strings"
	"testing"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/mail"
	"seatflow/services/staff"
)

// rowOf returns the outbox row of kind its order's event queued.
func (f *fixture) rowOf(t *testing.T, orderNo string, kind mail.Kind) *mail.Row {
	t.Helper()
	var id int64
	if err := f.e.DB.Get(&id, "SELECT id FROM mail_outbox WHERE order_no = ? AND kind = ?", orderNo, string(kind)); err != nil {
		t.Fatalf("no %s e-mail of %s: %v", kind, orderNo, err)
	}
	r, err := f.outbox.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// written is an e-mail as Render writes it (for sending) and as Preview writes it (for
// the mailbox), and the subject the mailbox lists.
type written struct {
	sent, shown *mail.Rendered
	subject     string
}

func (f *fixture) write(t *testing.T, row *mail.Row) written {
	t.Helper()
	ctx := context.Background()
	sent, err := f.d.Renderer.Render(ctx, row)
	if err != nil {
		t.Fatalf("render e-mail %d: %v", row.ID, err)
	}
	shown, err := f.d.Renderer.Preview(ctx, row)
	if err != nil {
		t.Fatalf("preview e-mail %d: %v", row.ID, err)
	}
	subject, err := f.d.Renderer.Subject(ctx, row)
	if err != nil {
		t.Fatal(err)
	}
	return written{sent, shown, subject}
}

// sameBytes fails unless b is a byte for byte: subject, text, HTML and images.
func sameBytes(t *testing.T, what string, a, b *mail.Rendered) {
	t.Helper()
	if a.Subject != b.Subject || a.Text != b.Text || a.HTML != b.HTML || len(a.Images) != len(b.Images) {
		t.Errorf("%s changed:\nbefore: %q\n%s\nafter: %q\n%s", what, a.Subject, a.Text, b.Subject, b.Text)
		return
	}
	for i := range a.Images {
		if a.Images[i].CID != b.Images[i].CID || string(a.Images[i].PNG) != string(b.Images[i].PNG) {
			t.Errorf("%s: image %s changed", what, a.Images[i].CID)
		}
	}
}

// TestFrozen_EmailsSayWhatTheirEventSaw: an e-mail is written from the facts its event's
// transaction saw, so what it says does not follow the order afterwards. The "seats
// held, pay by" e-mail of an order the buyer cancels later still reads as queued (its
// status "waiting for payment", its pay-by deadline and its Pay now button, never
// "cancelled"); the ticket e-mail of an order refunded later is still the ticket, with
// its QR code; rendering for sending, for the mailbox and the mailbox's subject give
// the same bytes before and after, even after the movie's title is changed.
func TestFrozen_EmailsSayWhatTheirEventSaw(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	en := f.user(t, 1, "en")
	held, err := f.e.Create(en, f.e.SeatIDs("E5", "E6")...)
	if err != nil {
		t.Fatal(err)
	}
	paid, err := f.e.Create(en, f.e.SeatIDs("H3")...)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.e.PayOrder(paid); err != nil {
		t.Fatal(err)
	}
	created, ticket := f.rowOf(t, held.OrderNo, mail.OrderCreated), f.rowOf(t, paid.OrderNo, mail.OrderPaid)
	before := map[string]written{"order_created": f.write(t, created), "order_paid": f.write(t, ticket)}

	if _, err := f.e.Orders.Cancel(ctx, en, held.OrderNo); err != nil {
		t.Fatal(err)
	}
	so := staff.NewStaffOrders(f.e.DB, f.e.Orders, f.e.Payments, f.e.Shows, audit.NewAudit(f.e.DB, f.e.Clock))
	if _, err := so.Refund(ctx, f.e.User(90), paid.OrderNo, "projector broke"); err != nil {
		t.Fatal(err)
	}
	f.e.Exec("UPDATE movies SET title = CONCAT(title, ' (re-release)') WHERE id = ?", f.e.Show.MovieID)
	if st := f.e.OrderStatus(held.OrderNo) + "/" + f.e.OrderStatus(paid.OrderNo); st != "cancelled/refunded" {
		t.Fatalf("orders are %s, want cancelled/refunded", st)
	}
	after := map[string]written{"order_created": f.write(t, created), "order_paid": f.write(t, ticket)}
	for kind, b := range before {
		a := after[kind]
		sameBytes(t, kind+" as sent", b.sent, a.sent)
		sameBytes(t, kind+" in the mailbox", b.shown, a.shown)
		sameBytes(t, kind+": sent and shown", a.sent, a.shown)
		if a.subject != b.subject || a.subject != a.sent.Subject {
			t.Errorf("%s subject %q, before %q, sent %q", kind, a.subject, b.subject, a.sent.Subject)
		}
		if strings.Contains(a.sent.Text, "re-release") {
			t.Errorf("%s follows the movie's new title:\n%s", kind, a.sent.Text)
		}
	}
	c := after["order_created"].sent
	for _, want := range []string{"Status: waiting for payment", "Pay by: ", "Pay now: " + testBaseURL + "/orders/" + held.OrderNo, "E5, E6"} {
		if !strings.Contains(c.Text, want) {
			t.Errorf("the cancelled order's order_created lacks %q:\n%s", want, c.Text)
		}
	}
	if strings.Contains(c.Text, "cancelled") || strings.Contains(c.HTML, "cancelled") {
		t.Errorf("the order_created e-mail tells of the later cancel:\n%s", c.Text)
	}
	p := after["order_paid"].sent
	if !strings.Contains(p.Text, "Status: paid") || strings.Contains(p.Text, "refunded") || len(p.Images) != 1 ||
		!strings.Contains(p.HTML, `src="cid:`+mail.QRContentID+`"`) {
		t.Errorf("the refunded order's ticket e-mail is not the ticket as sent (%d images):\n%s", len(p.Images), p.Text)
	}
}

// TestFrozen_RetryAfterAQuickPaymentSendsTheHeldMail: the order_created e-mail's first
// SMTP attempt is refused (451), the buyer pays, and the retry delivers the e-mail as
// it was queued: "waiting for payment" with its deadline, never "Status: paid"; the
// message that arrives is byte for byte the one written before the payment.
func TestFrozen_RetryAfterAQuickPaymentSendsTheHeldMail(t *testing.T) {
	f := newFixture(t)
	f.sink.failFirst, f.sink.failCode = 1, 451
	ctx := context.Background()
	u := f.user(t, 1, "en")
	o, err := f.e.Create(u, f.e.SeatIDs("C4")...)
	if err != nil {
		t.Fatal(err)
	}
	row := f.rowOf(t, o.OrderNo, mail.OrderCreated)
	queued := f.write(t, row).sent
	if err := f.d.Deliver(ctx, row.ID); err == nil {
		t.Fatal("the first attempt was not refused")
	}
	if err := f.e.PayOrder(o); err != nil {
		t.Fatal(err)
	}
	if st := f.e.OrderStatus(o.OrderNo); st != services.OrderPaid {
		t.Fatalf("order %s", st)
	}
	f.e.Clock.Advance(mail.RetryDelay(0))
	if err := f.d.Deliver(ctx, row.ID); err != nil {
		t.Fatal(err)
	}
	var got *received
	for _, m := range f.sink.messages() {
		if m.MessageID == f.msgID(t, row.ID) {
			got = m
		}
	}
	if got == nil {
		t.Fatalf("the retry did not arrive (%d messages)", len(f.sink.messages()))
	}
	if got.Subject != queued.Subject || norm(got.Text) != norm(queued.Text) || norm(got.HTML) != norm(queued.HTML) {
		t.Errorf("the retry is not the e-mail as queued:\nsubject %q / %q\n%s\n--- queued:\n%s", got.Subject, queued.Subject, got.Text, queued.Text)
	}
	if strings.Contains(got.Text, "Status: paid") || !strings.Contains(got.Text, "Status: waiting for payment") {
		t.Errorf("the held e-mail delivered after the payment says:\n%s", got.Text)
	}
}

// norm is a body as the sink compares it: line ends as LF, the trailing line end
// dropped (SMTP ends every line in CRLF).
func norm(s string) string {
	return strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
}
