package mail_test

import (
	"context"
	"strings"
	"testing"

	"seatflow/services/audit"
	"seatflow/services/mail"
	"seatflow/services/staff"
)

// TestRefundMails_NameTheSeatsAndTheCutoff: the ticket e-mail of a show that lets buyers
// refund themselves tells until when (in the show's cinema's zone, in the reader's
// language); a refund of part of an order sends order_part_refunded naming the seats
// and the money, one e-mail per refund; the refund of the rest tells what it gave back.
func TestRefundMails_NameTheSeatsAndTheCutoff(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.e.Exec("UPDATE shows SET self_refund_until_h = 24 WHERE id = ?", f.e.Show.ID)
	so := staff.NewStaffOrders(f.e.DB, f.e.Orders, f.e.Payments, f.e.Shows, audit.NewAudit(f.e.DB, f.e.Clock))
	for _, tc := range []struct {
		lang, cutoff, part, seats string
	}{
		{"en", "Cancel and refund until", "were refunded: ¥90.00 goes back", "Seats refunded: A1, A2"},
		{"zh-Hans", "可自助取消并退款至", "已退款，¥90.00 将原路退回", "已退座位：A1, A2"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			buyer := f.user(t, map[string]int{"en": 1, "zh-Hans": 2}[tc.lang], tc.lang)
			row := map[string]string{"en": "A", "zh-Hans": "B"}[tc.lang]
			o, err := f.e.Create(buyer, f.e.SeatIDs(row+"1", row+"2", row+"3")...)
			if err != nil {
				t.Fatal(err)
			}
			f.e.Pay(o)
			paid := f.write(t, f.rowOf(t, o.OrderNo, mail.OrderPaid))
			// the show starts at 10:00 UTC two days on; 24 hours before is 18:00 in Shanghai
			if !strings.Contains(paid.sent.Text, tc.cutoff) || !strings.Contains(paid.sent.Text, "18:00") {
				t.Errorf("the ticket e-mail does not tell the cut-off:\n%s", paid.sent.Text)
			}
			if _, err := so.RefundSeats(ctx, f.e.User(9), o.OrderNo, "", f.e.SeatIDs(row+"1", row+"2")); err != nil {
				t.Fatal(err)
			}
			part := f.write(t, f.rowOf(t, o.OrderNo, mail.OrderPartRefunded))
			want := strings.NewReplacer("A1", row+"1", "A2", row+"2").Replace(tc.seats)
			if !strings.Contains(part.sent.Text, tc.part) || !strings.Contains(part.sent.Text, want) {
				t.Errorf("the part refund's e-mail:\n%s\nwant %q and %q", part.sent.Text, tc.part, want)
			}
			if strings.Contains(part.sent.Text, "ended the order") || strings.Contains(part.sent.Text, "结束了订单") {
				t.Errorf("the part refund's e-mail says the order ended; it goes on:\n%s", part.sent.Text)
			}
			if _, err := so.RefundSeats(ctx, f.e.User(9), o.OrderNo, "", nil); err != nil {
				t.Fatal(err)
			}
			rest := f.write(t, f.rowOf(t, o.OrderNo, mail.OrderRefunded))
			if !strings.Contains(rest.sent.Text, "¥45.00") {
				t.Errorf("the refund of the rest does not tell the ¥45.00 it gave back:\n%s", rest.sent.Text)
			}
		})
	}
}
