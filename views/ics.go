package views

import (
	"strings"
	"time"
	"unicode/utf8"
)

// CalendarEvent is one event of an iCalendar file (RFC 5545): UID names it for good (a
// calendar that imports the file again updates the event instead of adding one), Stamp
// is DTSTAMP, Start and End its times (written in UTC with Z). Lang, when set, is the
// language of SUMMARY and DESCRIPTION (their LANGUAGE parameter, e.g. "zh-Hans").
type CalendarEvent struct {
	UID         string
	Stamp       time.Time
	Start, End  time.Time
	Summary     string
	Location    string
	Description string
	Lang        string
}

// ICS is the iCalendar file (RFC 5545, text/calendar) of one event: a VCALENDAR with a
// VEVENT, lines ended by CRLF and folded at 75 octets (never inside a UTF-8 character),
// text values escaped (backslash, semicolon, comma, newline; section 3.3.11) and rid of
// the control characters TEXT may not hold (icsText), whatever was stored.
func ICS(ev CalendarEvent) []byte {
	var b strings.Builder
	line := func(name, value string) { writeFolded(&b, name+":"+value) }
	line("BEGIN", "VCALENDAR")
	line("VERSION", "2.0")
	line("PRODID", "-//seatflow//tickets//EN")
	line("CALSCALE", "GREGORIAN")
	line("METHOD", "PUBLISH")
	line("BEGIN", "VEVENT")
	line("UID", icsText(ev.UID))
	line("DTSTAMP", icsTime(ev.Stamp))
	line("DTSTART", icsTime(ev.Start))
	line("DTEND", icsTime(ev.End))
	text := func(name string) string { return name }
	if ev.Lang != "" && icsLangTag(ev.Lang) {
		text = func(name string) string { return name + ";LANGUAGE=" + ev.Lang }
	}
	line(text("SUMMARY"), icsText(ev.Summary))
	if ev.Location != "" {
		line("LOCATION", icsText(ev.Location)) // a name: no language
	}
	if ev.Description != "" {
		line(text("DESCRIPTION"), icsText(ev.Description))
	}
	line("END", "VEVENT")
	line("END", "VCALENDAR")
	return []byte(b.String())
}

// icsTime is t as an RFC 5545 UTC date-time: 20261130T194000Z.
func icsTime(t time.Time) string { return t.UTC().Format("20060102T150405Z") }

// icsEscaper escapes a TEXT value (RFC 5545 section 3.3.11).
var icsEscaper = strings.NewReplacer(`\`, `\\`, ";", `\;`, ",", `\,`, "\r\n", `\n`, "\n", `\n`, "\r", `\n`)

// icsText is s as a TEXT value: line breaks (CR, LF, CRLF) escaped as \n, HTAB kept
// (TSAFE-CHAR allows it), and every other control character dropped: the rest of C0,
// DEL and C1 (U+0080-U+009F), which RFC 5545's CONTROL forbids and strict clients
// reject; invalid UTF-8 becomes U+FFFD.
func icsText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return r
		}
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			return -1
		}
		return r
	}, s)
	return icsEscaper.Replace(s)
}

// icsLangTag reports whether tag may stand as a LANGUAGE parameter unquoted: a BCP 47
// tag of letters, digits and hyphens.
func icsLangTag(tag string) bool {
	for _, r := range tag {
		if !(r == '-' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') {
			return false
		}
	}
	return len(tag) <= 35
}

// writeFolded writes one content line, folded so no line is longer than 75 octets
// (continuation lines start with a space), each ended by CRLF (RFC 5545 section 3.1).
func writeFolded(b *strings.Builder, s string) {
	limit := 75
	for len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		b.WriteString(s[:cut])
		b.WriteString("\r\n ")
		s = s[cut:]
		limit = 74 // the leading space counts
	}
	b.WriteString(s)
	b.WriteString("\r\n")
}
