package orders

import (
	"bytes"
	"crypto/rand"
	"errors"
	mrand "math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

var ticketCodeShape = regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{10}$`)

// TestTicketCheckChar: the check character makes the code's GF(32) sum zero; known
// values pin the arithmetic (alphabet, a = x, x^5 = x^2+1), so a change of either shows.
func TestTicketCheckChar(t *testing.T) {
	cases := []struct{ data, want string }{
		{"000000000", "0"},
		{"000000001", "2"}, // a·1 = x, value 2
		{"00000000G", "5"}, // G is 16 = x^4; a·x^4 = x^5 = x^2+1, value 5
		{"000000010", "4"}, // a·(a·1) = x^2, value 4
		{"K3M9PQR7T", ""},
		{"ZZZZZZZZZ", ""},
	}
	for _, c := range cases {
		t.Run(c.data, func(t *testing.T) {
			got := TicketCheckChar(c.data)
			if c.want != "" && string(got) != c.want {
				t.Errorf("TicketCheckChar(%q) = %c, want %s", c.data, got, c.want)
			}
			if s := ticketSyndrome(c.data + string(got)); s != 0 {
				t.Errorf("%s%c: sum %d, want 0", c.data, got, s)
			}
		})
	}
}

// TestParseTicketCode: typed codes in any case, with spaces and hyphens and Crockford's
// aliases read as the canonical code; a wrong check character is ErrTicketCodeCheck;
// anything that is not ten characters of the alphabet is ErrNotTicketCode.
func TestParseTicketCode(t *testing.T) {
	code := "K3M9PQR7T" + string(TicketCheckChar("K3M9PQR7T"))
	wrong := code[:9] + string(ticketAlphabet[(strings.IndexByte(ticketAlphabet, code[9])+1)%32])
	one := "100000000" + string(TicketCheckChar("100000000"))
	zero := "000000001" + string(TicketCheckChar("000000001"))
	cases := []struct {
		name, in, want string
		err            error
	}{
		{"canonical", code, code, nil},
		{"as shown", FormatTicketCode(code), code, nil},
		{"lower case", strings.ToLower(FormatTicketCode(code)), code, nil},
		{"spaces", " " + code[:3] + " " + code[3:7] + " - " + code[7:] + " ", code, nil},
		{"I and L are 1", "I" + one[1:], one, nil},
		{"l is 1", "l" + one[1:], one, nil},
		{"O is 0", "O" + zero[1:], zero, nil},
		{"wrong check character", wrong, "", ErrTicketCodeCheck},
		{"one character mistyped", code[:2] + "N" + code[3:], "", ErrTicketCodeCheck},
		{"neighbours swapped", code[:3] + code[4:5] + code[3:4] + code[5:], "", ErrTicketCodeCheck},
		{"empty", "", "", ErrNotTicketCode},
		{"nine characters", code[:9], "", ErrNotTicketCode},
		{"eleven characters", code + "0", "", ErrNotTicketCode},
		{"U is not in the alphabet", "U" + code[1:], "", ErrNotTicketCode},
		{"punctuation", code[:5] + "." + code[5:], "", ErrNotTicketCode},
		{"a signed reference", "SF1.ORDER1.AAAAAAAAAAAAAAAAAAAAAA", "", ErrNotTicketCode},
		{"non-ASCII", "K３M9PQR7T" + code[9:], "", ErrNotTicketCode},
		{"long junk", strings.Repeat("-", 100) + code, "", ErrNotTicketCode},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseTicketCode(c.in)
			if got != c.want || !errors.Is(err, c.err) {
				t.Errorf("ParseTicketCode(%q) = %q, %v; want %q, %v", c.in, got, err, c.want, c.err)
			}
		})
	}
	if ErrTicketCodeCheck.Error() != "check character does not match: mistyped?" {
		t.Errorf("the check error says %q", ErrTicketCodeCheck)
	}
}

// TestTicketCode_EveryTypoIsCaught: for codes drawn from a fixed seed, every single
// character mistyped (31 others at each of the 10 places), every pair of neighbours
// swapped and every pair one apart swapped is refused by the check character.
func TestTicketCode_EveryTypoIsCaught(t *testing.T) {
	src := mrand.NewChaCha8([32]byte{27})
	for range 200 {
		code, err := NewTicketCode(src)
		if err != nil {
			t.Fatal(err)
		}
		for i := range TicketCodeLen {
			for v := range 32 {
				if ticketAlphabet[v] == code[i] {
					continue
				}
				typo := code[:i] + string(ticketAlphabet[v]) + code[i+1:]
				if _, err := ParseTicketCode(typo); !errors.Is(err, ErrTicketCodeCheck) {
					t.Fatalf("%s mistyped as %s: %v, want the check error", code, typo, err)
				}
			}
			for _, gap := range []int{1, 2} {
				j := i + gap
				if j >= TicketCodeLen || code[i] == code[j] {
					continue
				}
				b := []byte(code)
				b[i], b[j] = b[j], b[i]
				if _, err := ParseTicketCode(string(b)); !errors.Is(err, ErrTicketCodeCheck) {
					t.Fatalf("%s typed as %s: %v, want the check error", code, b, err)
				}
			}
		}
	}
}

// TestNewTicketCode_RoundTrip: drawn codes have the shape, read back as themselves as
// stored, as shown and in lower case, and the same random bytes give the same code.
func TestNewTicketCode_RoundTrip(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		code, err := NewTicketCode(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		if !ticketCodeShape.MatchString(code) {
			t.Fatalf("code %q has not the shape", code)
		}
		shown := FormatTicketCode(code)
		if len(shown) != 11 || shown[5] != '-' {
			t.Fatalf("code %q is shown as %q", code, shown)
		}
		for _, in := range []string{code, shown, strings.ToLower(shown)} {
			if got, err := ParseTicketCode(in); got != code || err != nil {
				t.Fatalf("ParseTicketCode(%q) = %q, %v; want %q", in, got, err, code)
			}
		}
		seen[code] = true
	}
	if len(seen) < 1000 {
		t.Errorf("1000 draws gave %d distinct codes", len(seen))
	}
	fixed := bytes.Repeat([]byte{0xff, 0x20}, 5)
	a, _ := NewTicketCode(bytes.NewReader(fixed))
	b, _ := NewTicketCode(bytes.NewReader(fixed))
	if a != b || a[:9] != "Z0Z0Z0Z0Z" {
		t.Errorf("the same bytes gave %q and %q, want Z0Z0Z0Z0Z and its check character", a, b)
	}
	if _, err := NewTicketCode(bytes.NewReader(fixed[:3])); err == nil {
		t.Error("a random source that runs dry gave a code")
	}
}
