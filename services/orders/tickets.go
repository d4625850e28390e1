package orders

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/store"
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

// Tickets signs and checks ticket references with one secret (SEATFLOW_TICKET_SECRET),
// and keeps the tickets' short codes (WithCodes).
type Tickets struct {
	secret []byte
	db     *sqlx.DB
	clock  services.Clock
	rand   io.Reader
}

// NewTickets returns the ticket signer of secret; an empty secret is replaced by 32
// random bytes of this process (its tickets then stop verifying after a restart).
func NewTickets(secret []byte) *Tickets {
	if len(secret) == 0 {
		secret = make([]byte, 32)
		_, _ = rand.Read(secret)
	}
	return &Tickets{secret: secret, rand: rand.Reader}
}

// WithCodes lets t keep the tickets' short codes in db (table ticket_codes), dated by
// clock (nil: the system clock), and returns t.
func (t *Tickets) WithCodes(db *sqlx.DB, clock services.Clock) *Tickets {
	if clock == nil {
		clock = services.SystemClock{}
	}
	t.db, t.clock = db, clock
	return t
}

// Ref is TicketRef under the signer's secret.
func (t *Tickets) Ref(o *services.Order) string { return TicketRef(t.secret, o) }

// Verify is VerifyTicketRef under the signer's secret.
func (t *Tickets) Verify(ref string, o *services.Order) bool {
	return VerifyTicketRef(t.secret, ref, o)
}

// A ticket code is the short form of a ticket that staff can type at the door:
// TicketCodeLen characters of Crockford's base32 (0-9 and A-Z without I, L, O, U), shown
// as two groups of five ("K3M9P-QR7TX"). The first nine are random (45 bits), drawn in
// the transaction that pays the order (or, for an order paid before that, when its
// ticket is first shown) and stored (ticket_codes, unique), so a code says
// nothing about the order and cannot be guessed from another; the last is a check
// character. Reading a typed code ignores case, spaces and hyphens and takes I and L
// for 1 and O for 0.
//
// The check character: each character is an element of GF(32) (its value in the
// alphabet; addition is XOR, multiplication modulo x^5+x^2+1), and the ten values
// d1..d10 satisfy d1·a^9 + d2·a^8 + ... + d10 = 0 with a = x (of order 31). One mistyped
// character, two neighbours swapped, or two characters one apart swapped always break
// the equation, so such a code is refused before any lookup.
const (
	TicketCodeLen  = 10
	ticketCodeData = TicketCodeLen - 1
	ticketAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	// ticketCodeTries is how many random codes TicketCode draws before it gives up
	// (each collides with probability about issued codes / 2^45).
	ticketCodeTries = 5
)

// ErrTicketCodeCheck is ParseTicketCode's answer for a code of the right shape whose
// check character does not match the others.
var ErrTicketCodeCheck = errors.New("check character does not match: mistyped?")

// ErrNotTicketCode is ParseTicketCode's answer for text that cannot be a ticket code
// (not ten characters of the alphabet once spaces and hyphens are dropped).
var ErrNotTicketCode = errors.New("not a ticket code")

// ticketValue is c's value in the alphabet (with Crockford's aliases, either case), or
// -1 when c is not in it.
func ticketValue(c byte) int {
	switch {
	case c >= 'a' && c <= 'z':
		c -= 'a' - 'A'
	}
	switch c {
	case 'I', 'L':
		c = '1'
	case 'O':
		c = '0'
	}
	return strings.IndexByte(ticketAlphabet, c)
}

// gfTimesA multiplies v (an element of GF(32)) by a = x, modulo x^5+x^2+1.
func gfTimesA(v int) int {
	v <<= 1
	if v&32 != 0 {
		v ^= 0b100101
	}
	return v
}

// ticketSyndrome is the sum d1·a^(n-1) + ... + dn over GF(32) of canonical characters
// s; 0 for a whole code with a matching check character.
func ticketSyndrome(s string) int {
	v := 0
	for i := 0; i < len(s); i++ {
		v = gfTimesA(v) ^ strings.IndexByte(ticketAlphabet, s[i])
	}
	return v
}

// TicketCheckChar is the check character of data, the nine canonical characters
// (upper case, in the alphabet) a code starts with; it panics on anything else.
func TicketCheckChar(data string) byte {
	if len(data) != ticketCodeData {
		panic("orders: TicketCheckChar needs " + strconv.Itoa(ticketCodeData) + " characters")
	}
	for i := 0; i < len(data); i++ {
		if strings.IndexByte(ticketAlphabet, data[i]) < 0 {
			panic("orders: TicketCheckChar: " + strconv.Quote(data) + " is not canonical")
		}
	}
	// d1·a^9+...+d9·a + c = 0, and -c = c in GF(2^5): c = a·(d1·a^8+...+d9).
	return ticketAlphabet[gfTimesA(ticketSyndrome(data))]
}

// NewTicketCode draws a ticket code from r (nine random characters and the check
// character), canonical and without its hyphen. Errors: r's.
func NewTicketCode(r io.Reader) (string, error) {
	var b [ticketCodeData]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", err
	}
	for i := range b {
		b[i] = ticketAlphabet[b[i]&31] // 256 is a multiple of 32: uniform
	}
	data := string(b[:])
	return data + string(TicketCheckChar(data)), nil
}

// ParseTicketCode reads a typed ticket code: case, spaces and hyphens do not matter,
// I and L read as 1 and O as 0. It returns the canonical code (ten characters, upper
// case, no hyphen). Errors: ErrNotTicketCode (not ten characters of the alphabet),
// ErrTicketCodeCheck (the check character does not match: a character mistyped).
func ParseTicketCode(s string) (string, error) {
	if len(s) > 4*TicketCodeLen {
		return "", ErrNotTicketCode
	}
	out := make([]byte, 0, TicketCodeLen)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c == '-' || c == '\t' {
			continue
		}
		v := ticketValue(c)
		if v < 0 || len(out) == TicketCodeLen {
			return "", ErrNotTicketCode
		}
		out = append(out, ticketAlphabet[v])
	}
	if len(out) != TicketCodeLen {
		return "", ErrNotTicketCode
	}
	if ticketSyndrome(string(out)) != 0 {
		return "", ErrTicketCodeCheck
	}
	return string(out), nil
}

// FormatTicketCode shows canonical code as staff read it: two groups of five joined by
// a hyphen ("K3M9P-QR7TX"); anything else comes back as it is.
func FormatTicketCode(code string) string {
	if len(code) != TicketCodeLen {
		return code
	}
	return code[:5] + "-" + code[5:]
}

// Code returns the ticket code of order o (canonical, see FormatTicketCode to show it).
// An order paid since codes are drawn at payment has had one from that transaction on
// (Transition); for one paid before, the code is drawn and stored here the first time:
// a code another order holds is drawn again, and of two requests for the same order the
// first stored wins. It does not look at o's status: callers show it for paid orders
// only. Errors: UNAVAILABLE (the database, the random source, no free code after
// ticketCodeTries draws, or no store: WithCodes was not called).
func (t *Tickets) Code(ctx context.Context, o *services.Order) (string, error) {
	if t.db == nil {
		return "", services.Errorf(services.CodeUnavailable, "ticket codes are not kept on this instance")
	}
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	code, err := drawTicketCode(ctx, t.db, t.rand, o.ID, t.clock.Now().UTC())
	return code, ticketCodeError(err)
}

// errTicketRand wraps a failure of the random source a ticket code is drawn from.
var errTicketRand = errors.New("the random source failed")

// errNoFreeTicketCode is drawTicketCode's answer when each of its ticketCodeTries draws
// was a code another order holds.
var errNoFreeTicketCode = fmt.Errorf("no free ticket code after %d draws", ticketCodeTries)

// drawTicketCode returns the ticket code of order orderID as q sees it, drawing one from
// r and storing it (dated now) when the order has none: a draw another order holds
// (MySQL 1062 on the code) is drawn again, up to ticketCodeTries times; when the order
// got a code meanwhile, that one is read back. q is the pool or the caller's
// transaction (a payment draws its order's code in the transaction that pays it; a
// refused duplicate INSERT does not end a MariaDB transaction). Errors: the database's,
// errTicketRand (wrapping r's), errNoFreeTicketCode.
func drawTicketCode(ctx context.Context, q store.Querier, r io.Reader, orderID int64, now time.Time) (string, error) {
	for range ticketCodeTries {
		code, err := store.TicketCodeOf(ctx, q, orderID)
		if err == nil {
			return code, nil
		}
		if !store.IsNoRows(err) {
			return "", err
		}
		if code, err = NewTicketCode(r); err != nil {
			return "", fmt.Errorf("%w: %w", errTicketRand, err)
		}
		err = store.InsertTicketCode(ctx, q, orderID, code, now)
		if err == nil {
			return code, nil
		}
		if !errors.Is(err, store.ErrDuplicateTicketCode) {
			return "", err
		}
	}
	return "", errNoFreeTicketCode
}

// ticketCodeError maps drawTicketCode's errors to the contract's: UNAVAILABLE naming
// the random source, the exhausted draws or the database; nil stays nil.
func ticketCodeError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errTicketRand):
		return store.Unavailable("the random source", err)
	case errors.Is(err, errNoFreeTicketCode):
		return services.Errorf(services.CodeUnavailable, "%v", err)
	}
	return store.Unavailable("the database", err)
}

// OrderNoOfCode returns the order number of canonical ticket code code (ParseTicketCode's).
// Errors: NOT_FOUND (no order has it), UNAVAILABLE.
func (t *Tickets) OrderNoOfCode(ctx context.Context, code string) (string, error) {
	if t.db == nil {
		return "", services.Errorf(services.CodeUnavailable, "ticket codes are not kept on this instance")
	}
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	no, err := store.TicketCodeOrderNo(ctx, t.db, code)
	if store.IsNoRows(err) {
		return "", services.Errorf(services.CodeNotFound, "no ticket has code %s", FormatTicketCode(code))
	}
	if err != nil {
		return "", store.Unavailable("the database", err)
	}
	return no, nil
}
