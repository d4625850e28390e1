package services

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// MaxEmailBytes is the longest canonical email address accepted (RFC 5321 path limit).
const MaxEmailBytes = 254

// maxEmailInputBytes bounds the work spent on one raw address; it leaves room for an
// address spelt in 4-byte compatibility letters (e.g. mathematical bold) that
// normalise to ASCII.
const maxEmailInputBytes = 4 * MaxEmailBytes

// emailFold is Unicode full case folding; a folding Caser is stateless and safe for
// concurrent use.
var emailFold = cases.Fold()

// CanonicalEmail returns the one form of an email address under which seatflow stores
// an account, looks it up at sign-in and counts sign-in attempts. Two spellings are the
// same account exactly when their canonical forms are equal byte for byte (the email
// column has a binary collation, so MySQL compares the same way).
//
// The form is the Unicode "compatibility caseless match" of D146 (The Unicode Standard,
// section 3.13): NFKC(Fold(NFKC(Fold(NFD(s))))), after trimming surrounding white space.
// So:
//   - letter case is folded with full case folding ("ANNA" = "anna", "Straße" =
//     "strasse", final sigma = sigma);
//   - compatibility variants become their plain letters: full-width "ａｎｎａ" and
//     "＠" are "anna" and "@", ligatures are split;
//   - precomposed and decomposed accents are the same ("á" = "a" + U+0301), but an
//     accent is never dropped: "ánna" and "anna" stay different addresses.
//
// strings.ToLower alone would neither fold full-width letters to ASCII nor fold every
// case pair (e.g. final sigma), hence NFKC with case folding.
//
// It refuses, with 400 INVALID_REQUEST "not a usable email address", a string that is
// not valid UTF-8; that contains, before or after normalisation, a character that is not
// a letter, mark, digit, punctuation or symbol (controls Cc, format characters Cf such as
// zero-width spaces, joiners and bidi controls, white space inside the address,
// separators, private-use, surrogate and unassigned code points), a default-ignorable
// character (e.g. Hangul fillers, variation selectors, the combining grapheme joiner)
// or the blank Braille pattern; that has not exactly one "@", or an empty part before or
// after it; or whose canonical form is longer than MaxEmailBytes bytes.
//
// It checks only what makes an address ambiguous; whether it is a syntactically valid
// mailbox is checked where accounts are created.
func CanonicalEmail(s string) (string, error) {
	if len(s) > maxEmailInputBytes || !utf8.ValidString(s) {
		return "", unusableEmail()
	}
	s = strings.TrimSpace(s)
	if !UsableEmailRunes(s) {
		return "", unusableEmail()
	}
	c := CanonicalForm(s)
	// the checks hold for the result too: normalisation can bring in a space (e.g.
	// U+00A8 DIAERESIS is a space and a combining mark), and the form must be a fixed
	// point, so that the stored form of an address canonicalises to itself
	if len(c) > MaxEmailBytes || !UsableEmailRunes(c) || CanonicalForm(c) != c {
		return "", unusableEmail()
	}
	at := strings.IndexByte(c, '@')
	if at <= 0 || at == len(c)-1 || strings.IndexByte(c[at+1:], '@') >= 0 {
		return "", unusableEmail()
	}
	return c, nil
}

func unusableEmail() *Error {
	return Errorf(CodeInvalidRequest, "not a usable email address")
}

// CanonicalForm is NFKC(Fold(NFKC(Fold(NFD(s))))).
func CanonicalForm(s string) string {
	s = norm.NFD.String(s)
	s = norm.NFKC.String(emailFold.String(s))
	return norm.NFKC.String(emailFold.String(s))
}

// UsableEmailRunes reports whether every rune of s is one an address may contain: a
// letter, mark, number, punctuation or symbol that is visible (not default-ignorable).
func UsableEmailRunes(s string) bool {
	for _, r := range s {
		if !usableEmailRune(r) {
			return false
		}
	}
	return true
}

func usableEmailRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r > ' ' && r < 0x7f // printable ASCII without the space
	}
	switch {
	case r == utf8.RuneError, r == '\u2800': // replacement character, blank Braille pattern
		return false
	case !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S):
		return false // Cc, Cf, Co, Cs, Z*, unassigned
	case unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector):
		return false
	}
	return true
}
