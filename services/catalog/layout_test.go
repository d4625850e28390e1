package catalog

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"seatflow/services"
)

// seatList is "label@row,col:kind/zone" for each seat, for compact comparisons.
func seatList(l *Layout) []string {
	out := make([]string, len(l.Seats))
	for i, s := range l.Seats {
		out[i] = fmt.Sprintf("%s@%d,%d:%s/%s", s.Label, s.Row, s.Col, s.Kind, s.Zone)
	}
	return out
}

func TestParseLayout(t *testing.T) {
	cases := []struct {
		name       string
		text       string
		numbering  Numbering
		rows, cols int
		labels     []string // labels in row, col order
		seats      []string // optional: full seat list
	}{
		{name: "one row", text: "SSS", rows: 1, cols: 3, labels: []string{"A1", "A2", "A3"}},
		{name: "gaps skip numbers", text: "SS.SS\nS S", rows: 2, cols: 5, labels: []string{"A1", "A2", "A3", "A4", "B1", "B2"}},
		{name: "right to left", text: "SS.S", numbering: NumberRightToLeft, rows: 1, cols: 4, labels: []string{"A3", "A2", "A1"}},
		{name: "cross aisle takes no label", text: "SS\n\nSS", rows: 3, cols: 2, labels: []string{"A1", "A2", "B1", "B2"}},
		{name: "explicit label continues", text: "SS\nJ|SS\nSS", rows: 3, cols: 2, labels: []string{"A1", "A2", "J1", "J2", "K1", "K2"}},
		{name: "lower case label and cells", text: "aa|sp", rows: 1, cols: 2, labels: []string{"AA1", "AA2"}},
		{name: "windows line ends and trailing blank lines", text: "S\r\nS\r\n\r\n  \r\n", rows: 2, cols: 1, labels: []string{"A1", "B1"}},
		{name: "leading gaps keep columns", text: "..S", rows: 1, cols: 3, labels: []string{"A1"}},
		{name: "after Z comes AA", text: strings.Repeat("S\n", 27), rows: 27, cols: 1},
		{name: "kinds and zones", text: "WCSPVB", rows: 1, cols: 6, seats: []string{
			"A1@1,1:wheelchair/standard", "A2@1,2:companion/standard", "A3@1,3:standard/standard",
			"A4@1,4:standard/premium", "A5@1,5:standard/vip", "A6@1,6:blocked/standard"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := ParseLayout(c.text, c.numbering)
			if err != nil {
				t.Fatal(err)
			}
			if l.Rows != c.rows || l.Cols != c.cols {
				t.Errorf("grid %dx%d, want %dx%d", l.Rows, l.Cols, c.rows, c.cols)
			}
			var labels []string
			for _, s := range l.Seats {
				labels = append(labels, s.Label)
			}
			if c.labels != nil && !reflect.DeepEqual(labels, c.labels) {
				t.Errorf("labels %v, want %v", labels, c.labels)
			}
			if c.seats != nil && !reflect.DeepEqual(seatList(l), c.seats) {
				t.Errorf("seats %v, want %v", seatList(l), c.seats)
			}
		})
	}
	t.Run("27th row is AA", func(t *testing.T) {
		l, _ := ParseLayout(strings.Repeat("S\n", 27), "")
		if got := l.Seats[26].Label; got != "AA1" {
			t.Errorf("27th row %s", got)
		}
	})
}

func TestParseLayout_Errors(t *testing.T) {
	cases := []struct {
		name string
		text string
		num  Numbering
		want []string // each must appear in the error
	}{
		{"unknown character", "SSS\nSS\nSSSSSSx", "", []string{"line 3, column 7: 'x' is not a layout character; use S (standard), P (premium)", "W (wheelchair space), C (companion seat), B (blocked), . or space (aisle/gap)"}},
		{"column counts after the label", "A|SSX", "", []string{"line 1, column 5: 'X'"}},
		{"tab", "S\tS", "", []string{"line 1, column 2: a tab"}},
		{"bad label", "A1|SS", "", []string{"line 1, column 1: row label \"A1\""}},
		{"label too long", "ABCD|SS", "", []string{"line 1, column 1: row label"}},
		{"duplicate label", "A|S\nB|S\nA|S", "", []string{"line 3, column 1: row label A is used on line 1 too"}},
		{"label continues into a used one", "S\nS\nA|S\nS", "", []string{"line 4, column 1: row label B is used on line 2 too"}},
		{"label on empty line", "S\nC|..", "", []string{"line 2, column 1: row label \"C\" is on a line without seats"}},
		{"second bar", "A|S|S", "", []string{"line 1, column 4: '|' may appear once"}},
		{"no seats", "..\n", "", []string{"no seat to sell"}},
		{"only blocked", "BB", "", []string{"no seat to sell"}},
		{"empty", "", "", []string{"no seat to sell"}},
		{"too wide", strings.Repeat("S", MaxHallCols+1), "", []string{"line 1, column 301: a row has at most 300 cells"}},
		{"too long", strings.Repeat("S\n", MaxHallRows+1), "", []string{"line 301: a hall has at most 300 rows"}},
		{"control character", "S\x01", "", []string{"line 1, column 2: character U+0001"}},
		{"bad numbering", "S", "up", []string{"numbering must be"}},
		{"several problems", "x\nSy", "", []string{"line 1, column 1: 'x'", "line 2, column 2: 'y'"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := ParseLayout(c.text, c.num)
			var le *LayoutError
			if !errors.As(err, &le) || l != nil {
				t.Fatalf("want a LayoutError, got %v %v", l, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestFormatLayout(t *testing.T) {
	cases := []struct {
		name, text string
		num        Numbering
		want       string
	}{
		{"plain", "SS.SS\nPP.PP\n", "", "SS.SS\nPP.PP\n"},
		{"spaces become dots, lower case upper", "ss ss\n", "", "SS.SS\n"},
		{"right to left", "SSS\n", NumberRightToLeft, "SSS\n"},
		{"cross aisle kept", "SS\n\nVV\n", "", "SS\n\nVV\n"},
		{"labels written when not A, B, C", "SS\nJ|SS\n", "", "A|SS\nJ|SS\n"},
		{"kinds", "WC.SB\n", "", "WC.SB\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := ParseLayout(c.text, c.num)
			if err != nil {
				t.Fatal(err)
			}
			got, num, err := FormatLayout(l.Hall("x"))
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("text %q, want %q", got, c.want)
			}
			want := c.num
			if want == "" {
				want = NumberLeftToRight
			}
			if num != want {
				t.Errorf("numbering %s, want %s", num, want)
			}
		})
	}
	bad := []struct {
		name string
		seat services.Seat
		want string
	}{
		{"wheelchair in premium", services.Seat{Row: 1, Col: 1, Label: "A1", Kind: services.KindWheelchair, ZoneCode: ZonePremium}, "no layout character"},
		{"unknown zone", services.Seat{Row: 1, Col: 1, Label: "A1", Kind: services.KindStandard, ZoneCode: "balcony"}, "no layout character"},
		{"label without letters", services.Seat{Row: 1, Col: 1, Label: "17", Kind: services.KindStandard, ZoneCode: ZoneStandard}, "row label"},
		{"number not 1", services.Seat{Row: 1, Col: 1, Label: "A2", Kind: services.KindStandard, ZoneCode: ZoneStandard}, "do not run"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := FormatLayout(&services.Hall{Seats: []services.Seat{c.seat}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
	t.Run("mixed directions", func(t *testing.T) {
		h := &services.Hall{Seats: []services.Seat{
			{Row: 1, Col: 1, Label: "A1", Kind: services.KindStandard, ZoneCode: ZoneStandard}, {Row: 1, Col: 2, Label: "A2", Kind: services.KindStandard, ZoneCode: ZoneStandard},
			{Row: 2, Col: 1, Label: "B2", Kind: services.KindStandard, ZoneCode: ZoneStandard}, {Row: 2, Col: 2, Label: "B1", Kind: services.KindStandard, ZoneCode: ZoneStandard},
		}}
		if _, _, err := FormatLayout(h); err == nil || !strings.Contains(err.Error(), "other way") {
			t.Errorf("error %v", err)
		}
	})
}

// FuzzParseLayout checks that whatever parses formats back to text that parses to the
// same seats (parse -> format -> parse), and that parsing never panics.
func FuzzParseLayout(f *testing.F) {
	for _, s := range []string{"SSS", "SS.SS\nPP PP\n", "J|SS\nSS", "WCB\n\nVVV", "x", "A|S|S", "aa|sp\r\n", strings.Repeat("S\n", 30)} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, text string, rtl bool) {
		num := NumberLeftToRight
		if rtl {
			num = NumberRightToLeft
		}
		l, err := ParseLayout(text, num)
		if err != nil {
			var le *LayoutError
			if !errors.As(err, &le) || len(le.Problems) == 0 {
				t.Fatalf("error is no LayoutError: %v", err)
			}
			return
		}
		out, num2, err := FormatLayout(l.Hall("fuzz"))
		if err != nil {
			t.Fatalf("format %q: %v", text, err)
		}
		l2, err := ParseLayout(out, num2)
		if err != nil {
			t.Fatalf("parse of formatted %q (from %q): %v", out, text, err)
		}
		if !reflect.DeepEqual(seatList(l), seatList(l2)) || l.Rows != l2.Rows || l.Cols != l2.Cols {
			t.Fatalf("round trip of %q via %q:\n%v\n%v", text, out, seatList(l), seatList(l2))
		}
	})
}
