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

// TestWalkInMail_PromisesNothingOfAnAccount: a counter sale's tickets e-mailed to an
// address typed at the box office carry the tickets but no link to an order page (a
// walk-in has no account to see it with), no self-refund cut-off (a buyer without an
// account cannot cancel), and a footer that says where the address came from; a buyer
// with an account gets all three.
func TestWalkInMail_PromisesNothingOfAnAccount(t *testing.T) {
	f := newFixture(t)
	f.e.Exec("UPDATE shows SET self_refund_until_h = 24 WHERE id = ?", f.e.Show.ID)
	buyer := f.user(t, 1, "en")
	for _, tc := range []struct {
		name    string
		walkIn  bool
		present []string
		absent  []string
	}{
		{"account", false, []string{"Cancel and refund until", "/orders/", "your account's activity"}, []string{"box office"}},
		{"walk-in", true, []string{"given at the cinema's box office"}, []string{"Cancel and refund until", "/orders/", "your account's activity"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			row := map[bool]string{false: "A", true: "B"}[tc.walkIn]
			o, err := f.e.Create(buyer, f.e.SeatIDs(row+"1")...)
			if err != nil {
				t.Fatal(err)
			}
			f.e.Pay(o)
			r := f.rowOf(t, o.OrderNo, mail.OrderPaid)
			if tc.walkIn { // as a counter sale writes it: no user, a typed address
				f.e.Exec("UPDATE mail_outbox SET user_id = NULL, to_addr = 'walk.in@example.com' WHERE id = ?", r.ID)
				r = f.rowOf(t, o.OrderNo, mail.OrderPaid)
			}
			text := f.write(t, r).sent.Text
			for _, s := range tc.present {
				if !strings.Contains(text, s) {
					t.Errorf("the e-mail lacks %q:\n%s", s, text)
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(text, s) {
					t.Errorf("the e-mail says %q:\n%s", s, text)
				}
			}
		})
	}
}
