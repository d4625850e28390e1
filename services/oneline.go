package services

import (
	"strings"
	"unicode/utf8"
)

// OneLine is s made safe for a one-line output field (an e-mail header such as
// Subject, a value in an e-mail's details): line breaks and tabs (CR, LF, TAB, VT, FF,
// NEL U+0085, LINE SEPARATOR U+2028, PARAGRAPH SEPARATOR U+2029), a run of them
// becoming one space, and every other control character dropped: the rest of C0
// (U+0000–U+001F), DEL (U+007F) and C1 (U+0080–U+009F). Invalid UTF-8 bytes become
// U+FFFD. What is stored is never changed; outputs apply this whatever was accepted.
func OneLine(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || isControlOrBreak(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case lineBreak(r):
			if !space {
				b.WriteByte(' ')
				space = true
			}
			continue
		case isControlOrBreak(r):
			continue
		}
		b.WriteRune(r)
		space = false
	}
	return b.String()
}

// lineBreak reports whether r breaks a line or is a tab (OneLine turns it into a space).
func lineBreak(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', '\u0085', '\u2028', '\u2029':
		return true
	}
	return false
}

// isControlOrBreak reports whether r is a C0 or C1 control, DEL, or a line break.
func isControlOrBreak(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == '\u2028' || r == '\u2029'
}
