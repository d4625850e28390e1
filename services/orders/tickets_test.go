package orders

import (
	"regexp"
	"strings"
	"testing"

	"seatflow/services"
)

func ticketOrder(no string, show int64, labels ...string) *services.Order {
	o := &services.Order{OrderNo: no, ShowID: show, Status: services.OrderPaid}
	for _, l := range labels {
		o.Seats = append(o.Seats, services.OrderSeat{Label: l})
	}
	return o
}

var ticketRefShape = regexp.MustCompile(`^SF1\.[A-Za-z0-9_-]{1,32}\.[A-Za-z0-9_-]{22}$`)

// flipLastBits changes the last base64url character of ref into one that decodes to the
// same bytes under a lenient decoder (only the unused low bits differ).
func flipLastBits(ref string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	i := strings.IndexByte(alphabet, ref[len(ref)-1])
	return ref[:len(ref)-1] + string(alphabet[i^1])
}

func TestTicketRef_Shape(t *testing.T) {
	secret := []byte("ticket-secret")
	tests := []struct {
		name string
		o    *services.Order
	}{
		{"one seat", ticketOrder("0MI8K2J3LQ2ZKX7", 7, "F7")},
		{"several seats", ticketOrder("0MI8K2J3LQ2ZKX8", 12, "A1", "A2", "AA10")},
		{"no seats", ticketOrder("X", 1)},
		{"longest order number", ticketOrder(strings.Repeat("Z", 32), 1<<40, "ZZZ99")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := TicketRef(secret, tt.o)
			if !ticketRefShape.MatchString(ref) {
				t.Fatalf("TicketRef = %q, not SF1.<order_no>.<22 base64url>", ref)
			}
			if ref != TicketRef(secret, tt.o) {
				t.Fatal("TicketRef is not deterministic")
			}
			if no, ok := TicketOrderNo(ref); !ok || no != tt.o.OrderNo {
				t.Fatalf("TicketOrderNo(%q) = %q, %v", ref, no, ok)
			}
			if !VerifyTicketRef(secret, ref, tt.o) {
				t.Fatal("the order's own reference does not verify")
			}
		})
	}
	t.Run("seat order does not matter", func(t *testing.T) {
		a := TicketRef(secret, ticketOrder("N1", 3, "B2", "A1"))
		b := TicketRef(secret, ticketOrder("N1", 3, "A1", "B2"))
		if a != b {
			t.Fatalf("%q != %q", a, b)
		}
	})
}

func TestVerifyTicketRef(t *testing.T) {
	secret := []byte("ticket-secret")
	o := ticketOrder("0MI8K2J3LQ2ZKX7", 7, "F7", "F8")
	good := TicketRef(secret, o)
	tests := []struct {
		name string
		ref  string
		o    *services.Order
		want bool
	}{
		{"own reference", good, o, true},
		{"another secret", TicketRef([]byte("other-secret"), o), o, false},
		{"empty secret", TicketRef(nil, o), o, false},
		{"another order's reference", TicketRef(secret, ticketOrder("0MI8K2J3LQ2ZKX9", 7, "F7", "F8")), o, false},
		{"the reference checked against another order", good, ticketOrder("0MI8K2J3LQ2ZKX9", 7, "F7", "F8"), false},
		{"another show", good, ticketOrder(o.OrderNo, 8, "F7", "F8"), false},
		{"a seat more", good, ticketOrder(o.OrderNo, 7, "F7", "F8", "F9"), false},
		{"a seat less", good, ticketOrder(o.OrderNo, 7, "F7"), false},
		{"other seats", good, ticketOrder(o.OrderNo, 7, "G7", "G8"), false},
		{"order number swapped in the text", strings.Replace(good, o.OrderNo, "0MI8K2J3LQ2ZKX9", 1), ticketOrder("0MI8K2J3LQ2ZKX9", 7, "F7", "F8"), false},
		{"signature changed", good[:len(good)-5] + "AAAAA", o, false},
		{"non-canonical last character", flipLastBits(good), o, false},
		{"truncated", good[:len(good)-1], o, false},
		{"a character more", good + "A", o, false},
		{"padded", good + "==", o, false},
		{"lower-case version", "sf1" + good[3:], o, false},
		{"other version", "SF2" + good[3:], o, false},
		{"no version", good[4:], o, false},
		{"spaces around", " " + good + " ", o, false},
		{"standard base64 characters", strings.NewReplacer("-", "+", "_", "/").Replace(good), o, !strings.ContainsAny(good[len(good)-22:], "-_")},
		{"empty", "", o, false},
		{"dots only", "..", o, false},
		{"nil order", good, nil, false},
		{"very long", "SF1." + strings.Repeat("A", 10000) + "." + good[len(good)-22:], o, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := VerifyTicketRef(secret, tt.ref, tt.o); got != tt.want {
				t.Fatalf("VerifyTicketRef(%q) = %v, want %v", tt.ref, got, tt.want)
			}
		})
	}
}

func TestTicketOrderNo(t *testing.T) {
	mac := strings.Repeat("A", 22)
	tests := []struct {
		ref  string
		want string
		ok   bool
	}{
		{"SF1.0MI8K2J3LQ2ZKX7." + mac, "0MI8K2J3LQ2ZKX7", true},
		{"SF1.a-b_c." + mac, "a-b_c", true},
		{"SF1.." + mac, "", false},
		{"SF1.0MI8K2J3LQ2ZKX7." + mac[:21], "", false},
		{"SF1.0MI8K2J3LQ2ZKX7." + mac + "A", "", false},
		{"SF1.0MI8/K2J3." + mac, "", false},
		{"SF1.0MI8.K2J3." + mac, "", false},
		{"SF1." + strings.Repeat("A", 33) + "." + mac, "", false},
		{"SF1.ÄÖ." + mac, "", false},
		{"0MI8K2J3LQ2ZKX7." + mac, "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			got, ok := TicketOrderNo(tt.ref)
			if got != tt.want || ok != tt.ok {
				t.Fatalf("TicketOrderNo(%q) = %q, %v; want %q, %v", tt.ref, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestTickets_SignerUsesItsSecret(t *testing.T) {
	o := ticketOrder("N1", 3, "A1")
	a, b := NewTickets([]byte("one")), NewTickets([]byte("two"))
	if ref := a.Ref(o); !a.Verify(ref, o) || b.Verify(ref, o) || ref != TicketRef([]byte("one"), o) {
		t.Fatalf("signer one's reference %q: verified by one %v, by two %v", ref, a.Verify(ref, o), b.Verify(ref, o))
	}
}

func TestNewTickets_EmptySecretIsRandom(t *testing.T) {
	o := ticketOrder("N1", 3, "A1")
	a, b := NewTickets(nil), NewTickets([]byte{})
	if ref := a.Ref(o); ref == TicketRef(nil, o) || b.Verify(ref, o) || !a.Verify(ref, o) {
		t.Fatalf("an empty secret is not replaced by a random one per signer: %q", ref)
	}
}
