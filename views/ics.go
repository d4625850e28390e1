package views

import (
	"strings"
	"time"
	"unicode/utf8"
)

// CalendarEvent is one event of an iCalendar file (RFC 5545): UID names it for good (a
// calendar that imports the file again updates the event instead of adding one), Stamp
// is DTSTAMP, Start and End its times (written in UTC with Z).
type CalendarEvent struct {
	UID         string
	Stamp       time.Time
	Start, End  time.Time
	Summary     string
	Location    string
	Description string
}

// ICS is the iCalendar file (RFC 5545, text/calendar) of one event: a VCALENDAR with a
// VEVENT, lines ended by CRLF and folded at 75 octets (never inside a UTF-8 character),
// text values escaped (backslash, semicolon, comma, newline; section 3.3.11).
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
	line("SUMMARY", icsText(ev.Summary))
	if ev.Location != "" {
		line("LOCATION", icsText(ev.Location))
	}
	if ev.Description != "" {
		line("DESCRIPTION", icsText(ev.Description))
	}
	line("END", "VEVENT")
	line("END", "VCALENDAR")
	return []byte(b.String())
}

// icsTime is t as an RFC 5545 UTC date-time: 20261130T194000Z.
func icsTime(t time.Time) string { return t.UTC().Format("20060102T150405Z") }

// icsText escapes a TEXT value (RFC 5545 section 3.3.11).
var icsEscaper = strings.NewReplacer(`\`, `\\`, ";", `\;`, ",", `\,`, "\r\n", `\n`, "\n", `\n`, "\r", `\n`)

func icsText(s string) string { return icsEscaper.Replace(s) }

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
