package orders

import (
	"strings"
	"testing"
)

// FuzzVerifyTicketRef: for any order (number, show, seats) and any reference text,
// VerifyTicketRef never panics and accepts exactly the reference TicketRef made for
// that order under that secret: nothing else, and not under another secret.
func FuzzVerifyTicketRef(f *testing.F) {
	secret := []byte("fuzz-ticket-secret")
	o := ticketOrder("0MI8K2J3LQ2ZKX7", 7, "F7", "F8")
	good := TicketRef(secret, o)
	f.Add(o.OrderNo, int64(7), "F7 F8", good)
	f.Add(o.OrderNo, int64(7), "F7 F8", flipLastBits(good))
	f.Add(o.OrderNo, int64(8), "F7 F8", good)
	f.Add("X", int64(1), "", "SF1.X.AAAAAAAAAAAAAAAAAAAAAA")
	f.Add("", int64(0), "", "SF1..")
	f.Add("a.b", int64(-1), "A1", "SF1.a.b.AAAAAAAAAAAAAAAAAAAAAA")
	f.Fuzz(func(t *testing.T, orderNo string, showID int64, labels, ref string) {
		order := ticketOrder(orderNo, showID, strings.Fields(labels)...)
		own := TicketRef(secret, order)
		if got, want := VerifyTicketRef(secret, own, order), validOrderNo(orderNo); got != want {
			t.Fatalf("own reference %q of order %q verifies: %v, want %v", own, orderNo, got, want)
		}
		if got := VerifyTicketRef(secret, ref, order); got && ref != own {
			t.Fatalf("VerifyTicketRef(%q) accepted for order %q (its reference is %q)", ref, orderNo, own)
		}
		if VerifyTicketRef([]byte("another secret"), own, order) {
			t.Fatalf("reference %q verifies under another secret", own)
		}
		if no, ok := TicketOrderNo(ref); ok && !validOrderNo(no) {
			t.Fatalf("TicketOrderNo(%q) = %q, not an order number", ref, no)
		}
	})
}
