package mail_test

import (
	"context"
	"strings"
	"testing"

	"seatflow/services/mail"
	"seatflow/services/orders"
)

// TestFrozen_TicketEmailCarriesTheCodeOfThePayment: the ticket e-mail (order_paid) of
// an order shows, in the reader's language, the ticket code its payment drew: the code
// the ticket page and the API read (Tickets.Code), as staff type it ("K3M9P-QR7TX"), in
// the text and the HTML, for sending and in the development mailbox alike. It is
// written from the facts frozen at the payment: a first SMTP attempt refused (451) and
// the retry deliver the same code, even after the stored code changed. A ticket e-mail
// whose facts were frozen before codes were drawn at payment shows no code and draws
// none.
func TestFrozen_TicketEmailCarriesTheCodeOfThePayment(t *testing.T) {
	for _, tc := range []struct {
		lang, label, hint string
	}{
		{"en", "Code for the door: ", "staff at the door can type this code"},
		{"zh-Hans", "入场码：", "检票员可输入此入场码"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			f := newFixture(t)
			f.sink.failFirst, f.sink.failCode = 1, 451
			ctx := context.Background()
			u := f.user(t, 1, tc.lang)
			o, err := f.e.Create(u, f.e.SeatIDs("E5", "E6")...)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.e.PayOrder(o); err != nil {
				t.Fatal(err)
			}
			code, err := orders.NewTickets(f.secret).WithCodes(f.e.DB, f.e.Clock).Code(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			shown := orders.FormatTicketCode(code)
			row := f.rowOf(t, o.OrderNo, mail.OrderPaid)
			w := f.write(t, row)
			for what, r := range map[string]*mail.Rendered{"as sent": w.sent, "in the mailbox": w.shown} {
				if !strings.Contains(r.Text, tc.label+shown) || !strings.Contains(r.Text, tc.hint) {
					t.Errorf("%s: the text lacks %q and its hint:\n%s", what, tc.label+shown, r.Text)
				}
				if !strings.Contains(r.HTML, `class="ticket-code"`) || !strings.Contains(r.HTML, ">"+shown+"<") {
					t.Errorf("%s: the HTML does not show the code %s", what, shown)
				}
			}

			// the stored code changes (it never does): the e-mail keeps the one it froze
			f.e.Exec("UPDATE ticket_codes SET code = ? WHERE order_id = ?", otherTicketCode(code), o.ID)
			if err := f.d.Deliver(ctx, row.ID); err == nil {
				t.Fatal("the first attempt was not refused")
			}
			f.e.Clock.Advance(mail.RetryDelay(0))
			if err := f.d.Deliver(ctx, row.ID); err != nil {
				t.Fatal(err)
			}
			got := f.sink.messages()
			if len(got) != 1 || f.sink.refused != 1 {
				t.Fatalf("arrived %d, refused %d; want the retry to arrive once", len(got), f.sink.refused)
			}
			if m := got[0]; !strings.Contains(m.Text, tc.label+shown) || !strings.Contains(m.HTML, ">"+shown+"<") ||
				norm(m.Text) != norm(w.sent.Text) || norm(m.HTML) != norm(w.sent.HTML) {
				t.Errorf("the retried send is not the ticket e-mail with code %s as written at the payment:\n%s", shown, m.Text)
			}

			// a ticket e-mail frozen before codes were drawn at payment: no code, no draw
			f.e.Exec("DELETE FROM ticket_codes WHERE order_id = ?", o.ID)
			f.e.Exec("UPDATE mail_outbox SET facts = JSON_REMOVE(facts, '$.order.ticket_code') WHERE id = ?", row.ID)
			old := f.write(t, f.rowOf(t, o.OrderNo, mail.OrderPaid))
			if strings.Contains(old.sent.Text, tc.label) || strings.Contains(old.shown.HTML, `class="ticket-code"`) ||
				!strings.Contains(old.sent.Text, "SF1."+o.OrderNo+".") {
				t.Errorf("an e-mail frozen without a code shows one, or lost its ticket reference:\n%s", old.sent.Text)
			}
			var n int
			if err := f.e.DB.Get(&n, "SELECT COUNT(*) FROM ticket_codes WHERE order_id = ?", o.ID); err != nil || n != 0 {
				t.Errorf("writing an old e-mail drew %d codes (%v)", n, err)
			}
		})
	}
}

// otherTicketCode is a canonical ticket code other than code.
func otherTicketCode(code string) string {
	data := "ZZZZZZZZZ"
	if code[:9] == data {
		data = "YYYYYYYYY"
	}
	return data + string(orders.TicketCheckChar(data))
}
