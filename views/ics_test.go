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

// TestICS_ControlCharactersNeverReachTheFile: text values holding VT (\x0b), FF (\x0c),
// NUL, ESC, DEL and C1 characters come out without them (RFC 5545's CONTROL), a tab
// stays, line breaks are escaped; Lang adds the LANGUAGE parameter to SUMMARY and
// DESCRIPTION.
func TestICS_ControlCharactersNeverReachTheFile(t *testing.T) {
	ev := CalendarEvent{UID: "X1@seatflow", Stamp: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC),
		Start: time.Date(2026, 11, 30, 11, 0, 0, 0, time.UTC), End: time.Date(2026, 11, 30, 13, 0, 0, 0, time.UTC),
		Summary: "Dune\x0b\x0cPart\x00 Two\x1b\x7f\u0085\u009f\tIMAX", Location: "Hall\x0b1",
		Description: "Hall 1\nSeats A1\x0c", Lang: "zh-Hans"}
	out := string(ICS(ev))
	for i, r := range strings.ReplaceAll(out, "\r\n", "") {
		if (r < 0x20 && r != '\t') || (r >= 0x7f && r <= 0x9f) {
			t.Fatalf("control %U at %d in %q", r, i, out)
		}
	}
	for _, want := range []string{"SUMMARY;LANGUAGE=zh-Hans:DunePart Two\tIMAX\r\n", "LOCATION:Hall1\r\n",
		`DESCRIPTION;LANGUAGE=zh-Hans:Hall 1\nSeats A1` + "\r\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}
