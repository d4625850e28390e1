package orders

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"sort"
	"strconv"
	"strings"

	"seatflow/services"
)

// A ticket reference is what a paid order's ticket (its QR code) carries:
//
//	SF1.<order_no>.<mac>
//
// mac is the first ticketMACBytes bytes of HMAC-SHA256(secret,
// "ticket|<order_no>|<show_id>|<seat labels sorted, joined by ",">"), in unpadded
// base64url (22 characters). The reference names the order; the signature binds it to
// the order's show and seats, so a reference cannot be made up or moved to other seats
// without the secret. Whether the order is still paid is the order's business, not the
// reference's: staff read the order to know that.
const (
	ticketRefVersion = "SF1"
	ticketMACBytes   = 16
	maxTicketRefLen  = len(ticketRefVersion) + 1 + maxOrderNoLen + 1 + 22
	maxOrderNoLen    = 32
)

var ticketMACEncoding = base64.RawURLEncoding.Strict()

// TicketRef returns the signed ticket reference of order o (the shape above) under
// secret. It does not look at o's status: callers show it for paid orders only.
func TicketRef(secret []byte, o *services.Order) string {
	return ticketRefVersion + "." + o.OrderNo + "." + ticketMACEncoding.EncodeToString(ticketMAC(secret, o))
}

// TicketOrderNo reads the order number out of a ticket reference of TicketRef's shape,
// without checking the signature; false when ref cannot be a ticket reference.
func TicketOrderNo(ref string) (string, bool) {
	orderNo, _, ok := splitTicketRef(ref)
	return orderNo, ok
}

// VerifyTicketRef reports whether ref is order o's ticket reference under secret: the
// reference names o's order number and its signature matches o's show and seats
// (compared in constant time). It never panics, whatever ref holds.
func VerifyTicketRef(secret []byte, ref string, o *services.Order) bool {
	orderNo, mac, ok := splitTicketRef(ref)
	if !ok || o == nil || orderNo != o.OrderNo {
		return false
	}
	return hmac.Equal(mac, ticketMAC(secret, o))
}

// splitTicketRef splits ref into its order number and decoded signature; false unless
// ref is "SF1.", an order number (1..32 of A-Z a-z 0-9 - _), ".", and 22 characters
// of canonical unpadded base64url.
func splitTicketRef(ref string) (string, []byte, bool) {
	if len(ref) > maxTicketRefLen {
		return "", nil, false
	}
	rest, ok := strings.CutPrefix(ref, ticketRefVersion+".")
	if !ok {
		return "", nil, false
	}
	orderNo, enc, ok := strings.Cut(rest, ".")
	if !ok || !validOrderNo(orderNo) || len(enc) != ticketMACEncoding.EncodedLen(ticketMACBytes) {
		return "", nil, false
	}
	mac, err := ticketMACEncoding.DecodeString(enc)
	if err != nil || len(mac) != ticketMACBytes {
		return "", nil, false
	}
	return orderNo, mac, true
}

// validOrderNo reports whether s can be an order number: 1..32 characters of
// A-Z a-z 0-9 - _.
func validOrderNo(s string) bool {
	if s == "" || len(s) > maxOrderNoLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !(b >= '0' && b <= '9' || b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b == '-' || b == '_') {
			return false
		}
	}
	return true
}

// ticketMAC is the truncated HMAC of o's order number, show and seat labels (sorted, so
// the order the seats were read in does not matter).
func ticketMAC(secret []byte, o *services.Order) []byte {
	labels := make([]string, len(o.Seats))
	for i, s := range o.Seats {
		labels[i] = s.Label
	}
	sort.Strings(labels)
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("ticket|" + o.OrderNo + "|" + strconv.FormatInt(o.ShowID, 10) + "|" + strings.Join(labels, ",")))
	return m.Sum(nil)[:ticketMACBytes]
}

// Tickets signs and checks ticket references with one secret (SEATFLOW_TICKET_SECRET).
type Tickets struct{ secret []byte }

// NewTickets returns the ticket signer of secret; an empty secret is replaced by 32
// random bytes of this process (its tickets then stop verifying after a restart).
func NewTickets(secret []byte) *Tickets {
	if len(secret) == 0 {
		secret = make([]byte, 32)
		_, _ = rand.Read(secret)
	}
	return &Tickets{secret: secret}
}

// Ref is TicketRef under the signer's secret.
func (t *Tickets) Ref(o *services.Order) string { return TicketRef(t.secret, o) }

// Verify is VerifyTicketRef under the signer's secret.
func (t *Tickets) Verify(ref string, o *services.Order) bool {
	return VerifyTicketRef(t.secret, ref, o)
}
