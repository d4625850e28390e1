package views

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestICS_OneEventInRFC5545Form: the file is a VCALENDAR with one VEVENT; every line
// ends in CRLF and is at most 75 octets; times are UTC with Z; text is escaped; a long
// value is folded (never inside a UTF-8 character) and unfolds to the escaped value.
func TestICS_OneEventInRFC5545Form(t *testing.T) {
	shanghai, _ := time.LoadLocation("Asia/Shanghai")
	start := time.Date(2026, 11, 30, 19, 40, 0, 0, shanghai)
	ev := CalendarEvent{UID: "0MX3MJDHC13W8AZ@seatflow", Stamp: time.Date(2026, 11, 30, 9, 0, 5, 0, time.UTC),
		Start: start, End: start.Add(148 * time.Minute), Summary: "Dune; Part Two, \\ the end\nnext",
		Location: "seatflow", Description: strings.Repeat("影院 Hall 1, seats A1 A2 ", 6)}
	out := string(ICS(ev))
	if !strings.HasSuffix(out, "\r\n") || strings.Contains(strings.ReplaceAll(out, "\r\n", ""), "\n") {
		t.Fatalf("lines not all ended by CRLF:\n%q", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\r\n"), "\r\n")
	for _, l := range lines {
		if len(l) > 75 {
			t.Errorf("line of %d octets: %q", len(l), l)
		}
	}
	unfolded := strings.ReplaceAll(out, "\r\n ", "")
	for _, want := range []string{
		"BEGIN:VCALENDAR\r\nVERSION:2.0\r\n",
		"BEGIN:VEVENT\r\nUID:0MX3MJDHC13W8AZ@seatflow\r\n",
		"DTSTAMP:20261130T090005Z\r\n",
		"DTSTART:20261130T114000Z\r\n", // 19:40 in Shanghai
		"DTEND:20261130T140800Z\r\n",   // + 148 minutes
		`SUMMARY:Dune\; Part Two\, \\ the end\nnext` + "\r\n",
		"LOCATION:seatflow\r\n",
		"DESCRIPTION:" + strings.ReplaceAll(ev.Description, ",", `\,`) + "\r\n",
		"END:VEVENT\r\nEND:VCALENDAR\r\n",
	} {
		if !strings.Contains(unfolded, want) {
			t.Errorf("no %q in\n%s", want, unfolded)
		}
	}
	if len(lines) <= 14 {
		t.Errorf("the long description was not folded: %d lines", len(lines))
	}
	for _, l := range lines {
		if !utf8.ValidString(l) {
			t.Errorf("a fold split a UTF-8 character: %q", l)
		}
	}
}
