package services

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// TextLines says whether a staff text field may span lines.
type TextLines bool

// The two kinds of staff text field.
const (
	// SingleLine is a field shown on one line wherever it appears (titles, names,
	// reasons): it may hold no control character at all.
	SingleLine TextLines = false
	// MultiLine is a field that is one line per row by nature (a hall's layout text):
	// it may also hold tab, line feed and carriage return.
	MultiLine TextLines = true
)

// CheckText refuses a staff text value that cannot be shown safely everywhere it goes
// (pages, e-mails and their headers, calendar files, CSV): 400 INVALID_REQUEST whose
// message starts with field and names the first offending character and its position
// (characters counted from 1). Refused are text that is not valid UTF-8, every C0 and C1
// control character (U+0000–U+001F, U+007F–U+009F; tab, line feed and carriage return
// are allowed in MultiLine fields), the line and paragraph separators U+2028 and U+2029,
// and the bidirectional embeddings, overrides and isolates (U+202A–U+202E,
// U+2066–U+2069), which make the text around them read in another order than it is
// stored (a title shown backwards in a list or an e-mail). Letters of every script,
// emoji with their joiners, and the left-to-right and right-to-left marks stay allowed.
// It changes nothing: the caller stores value as it was sent (after its own trimming).
func CheckText(field, value string, lines TextLines) error {
	if !utf8.ValidString(value) {
		return Errorf(CodeInvalidRequest, "%s is not valid UTF-8 text", field)
	}
	pos := 0
	for _, r := range value {
		pos++
		if what := refusedRune(r, lines); what != "" {
			return Errorf(CodeInvalidRequest, "%s must not contain %s (U+%04X at character %d); remove it", field, what, r, pos)
		}
	}
	return nil
}

// refusedRune says what kind of character r is when a field of kind lines refuses it,
// or "" when r is allowed.
func refusedRune(r rune, lines TextLines) string {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		if lines == MultiLine {
			return ""
		}
		return "a tab or line break"
	case r < 0x20 || (r >= 0x7f && r <= 0x9f):
		return "a control character"
	case r == 0x2028 || r == 0x2029:
		return "a line or paragraph separator"
	case (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
		return "a bidirectional override"
	}
	return ""
}

// MaxOrderNoLen is the longest order number any search looks up (the orders table's
// column holds 32 ASCII characters).
const MaxOrderNoLen = 32

// SearchableOrderNo returns the order number a staff search for s can match: s with
// surrounding white space trimmed and compatibility characters folded (NFKC: the
// full-width "０ＭＸ３…" typed with a Chinese input method is "0MX3…"). It is false when
// no order can have that number: empty, longer than MaxOrderNoLen, or holding anything
// but printable ASCII after folding. A search for such a value matches nothing; it is
// never sent to the database, whose order_no column is ASCII and cannot compare with
// other text.
func SearchableOrderNo(s string) (string, bool) {
	if len(s) > 4*MaxOrderNoLen || !utf8.ValidString(s) {
		return "", false
	}
	s = strings.TrimSpace(norm.NFKC.String(s))
	if s == "" || len(s) > MaxOrderNoLen {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return "", false
		}
	}
	return s, true
}
