package catalog

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"seatflow/services"
)

// A hall layout as staff type it: one line per row of the grid, the first line the front
// row (nearest the screen), one character per grid cell, left to right as seen from the
// seats facing the screen:
//
//	S  standard seat (zone "standard")
//	P  premium seat (zone "premium")
//	V  VIP seat (zone "vip")
//	W  wheelchair space (zone "standard")
//	C  companion seat, next to a wheelchair space (zone "standard")
//	B  blocked seat: it has a label but is never sold (zone "standard")
//	.  or a space: aisle or gap, no seat
//
// Lower-case letters mean the same. Rows with seats are labelled A, B, C, ... Z, AA, AB
// ... in order; a line may name its row itself with letters and a bar before the cells,
// "J|SSSS.SSSS" (the cells start right after the bar), and the rows after it continue
// from that label (K, L, ...). A line without seats is a cross aisle and takes no label;
// blank lines at the end are ignored. Seats are numbered per row from 1, skipping gaps,
// from the left or from the right (Numbering); a seat's label is row label + number
// ("F7").

// Numbering is the direction seat numbers run along a row.
type Numbering string

// Numbering directions.
const (
	NumberLeftToRight Numbering = "ltr"
	NumberRightToLeft Numbering = "rtl"
)

// Zone codes a layout's characters map to, with their names.
const (
	ZoneStandard = "standard"
	ZonePremium  = "premium"
	ZoneVIP      = "vip"
)

// Limits of a layout.
const (
	MaxHallRows     = 300 // lines (grid rows): a 300 x 300 stadium of 90,000 seats fits
	MaxHallCols     = 300 // cells per line
	maxRowLabel     = 3   // letters of a row label
	maxLayoutErrors = 10  // problems reported at once
)

// LayoutCell is what one character of a layout means: a seat kind in a zone.
type LayoutCell struct {
	Char byte
	Kind string
	Zone string
	Name string // for people: "standard seat", "wheelchair space", ...
}

// LayoutCells are the characters of a layout in legend order (gaps not included).
var LayoutCells = []LayoutCell{
	{'S', services.KindStandard, ZoneStandard, "standard seat"},
	{'P', services.KindStandard, ZonePremium, "premium seat"},
	{'V', services.KindStandard, ZoneVIP, "VIP seat"},
	{'W', services.KindWheelchair, ZoneStandard, "wheelchair space"},
	{'C', services.KindCompanion, ZoneStandard, "companion seat"},
	{'B', services.KindBlocked, ZoneStandard, "blocked seat"},
}

// LayoutZones are the zones a layout can use, in order, with their names.
var LayoutZones = []services.Zone{{Code: ZoneStandard, Name: "Standard"}, {Code: ZonePremium, Name: "Premium"}, {Code: ZoneVIP, Name: "VIP"}}

// ZoneName is the name of a layout zone code ("premium" -> "Premium"), or the code.
func ZoneName(code string) string {
	for _, z := range LayoutZones {
		if z.Code == code {
			return z.Name
		}
	}
	return code
}

// layoutHelp lists the characters for error messages.
const layoutHelp = "use S (standard), P (premium), V (VIP), W (wheelchair space), C (companion seat), B (blocked), . or space (aisle/gap)"

func cellOf(ch rune) (LayoutCell, bool) {
	if ch >= 'a' && ch <= 'z' {
		ch -= 'a' - 'A'
	}
	for _, c := range LayoutCells {
		if rune(c.Char) == ch {
			return c, true
		}
	}
	return LayoutCell{}, false
}

func charOf(kind, zone string) (byte, bool) {
	for _, c := range LayoutCells {
		if c.Kind == kind && c.Zone == zone {
			return c.Char, true
		}
	}
	return 0, false
}

// LayoutSeat is one seat of a parsed layout: Row and Col are the 1-based grid cell,
// RowLabel and Number make its Label, Kind is a Kind* constant and Zone a zone code.
type LayoutSeat struct {
	Row, Col int
	RowLabel string
	Number   int
	Label    string
	Kind     string
	Zone     string
}

// Layout is a parsed hall layout: a Rows x Cols grid (Rows up to the last line with a
// seat, Cols up to the rightmost seat) and its seats ordered by row, then col.
type Layout struct {
	Rows, Cols int
	Numbering  Numbering
	Seats      []LayoutSeat
}

// Seat returns the seat at grid cell (row, col), or false for a gap.
func (l *Layout) Seat(row, col int) (LayoutSeat, bool) {
	i := sort.Search(len(l.Seats), func(i int) bool {
		s := l.Seats[i]
		return s.Row > row || (s.Row == row && s.Col >= col)
	})
	if i < len(l.Seats) && l.Seats[i].Row == row && l.Seats[i].Col == col {
		return l.Seats[i], true
	}
	return LayoutSeat{}, false
}

// ZoneCounts returns the sellable seats per zone code (blocked seats left out) and the
// number of blocked seats.
func (l *Layout) ZoneCounts() (map[string]int, int) {
	out := map[string]int{}
	blocked := 0
	for _, s := range l.Seats {
		if s.Kind == services.KindBlocked {
			blocked++
			continue
		}
		out[s.Zone]++
	}
	return out, blocked
}

// LayoutProblem is one thing wrong with a layout: Line and Col are 1-based positions in
// the text as typed (Col 0 when it is about the whole line, Line 0 about the whole text).
type LayoutProblem struct {
	Line, Col int
	Msg       string
}

// String returns the problem as "line L, column C: message" (without the parts that
// are 0).
func (p LayoutProblem) String() string {
	switch {
	case p.Line == 0:
		return p.Msg
	case p.Col == 0:
		return fmt.Sprintf("line %d: %s", p.Line, p.Msg)
	}
	return fmt.Sprintf("line %d, column %d: %s", p.Line, p.Col, p.Msg)
}

// LayoutError lists the problems of a layout (at most 10, in text order).
type LayoutError struct {
	Problems []LayoutProblem
}

// Error returns every problem of the layout, joined by "; ".
func (e *LayoutError) Error() string {
	s := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		s[i] = p.String()
	}
	return strings.Join(s, "; ")
}

// rowIndex maps a row label to its place in A, B, ... Z, AA, ... (A = 1); 0 if it is
// not 1..maxRowLabel upper-case letters.
func rowIndex(label string) int {
	if label == "" || len(label) > maxRowLabel {
		return 0
	}
	n := 0
	for i := 0; i < len(label); i++ {
		c := label[i]
		if c < 'A' || c > 'Z' {
			return 0
		}
		n = n*26 + int(c-'A'+1)
	}
	return n
}

// rowName is the label of place n in A, B, ... Z, AA, ... (1 -> A, 27 -> AA).
func rowName(n int) string {
	s := ""
	for n > 0 {
		n--
		s = string(rune('A'+n%26)) + s
		n /= 26
	}
	return s
}

// maxRowIndex is the place of the last label of maxRowLabel letters (ZZZ).
var maxRowIndex = rowIndex(strings.Repeat("Z", maxRowLabel))

// ParseLayout reads a layout (see the package comment above Numbering for the syntax)
// numbered by numbering ("" is left to right). It reads nothing else and writes nothing.
// Errors: *LayoutError naming line and column of each problem (an unknown character, a
// bad or repeated row label, a grid over MaxHallRows x MaxHallCols, no seat to sell).
func ParseLayout(text string, numbering Numbering) (*Layout, error) {
	if numbering == "" {
		numbering = NumberLeftToRight
	}
	var probs []LayoutProblem
	add := func(line, col int, format string, a ...any) {
		if len(probs) < maxLayoutErrors {
			probs = append(probs, LayoutProblem{Line: line, Col: col, Msg: fmt.Sprintf(format, a...)})
		}
	}
	if numbering != NumberLeftToRight && numbering != NumberRightToLeft {
		add(0, 0, "numbering must be %q (left to right) or %q (right to left)", NumberLeftToRight, NumberRightToLeft)
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for len(lines) > 0 && strings.Trim(lines[len(lines)-1], " .\r") == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) > MaxHallRows {
		add(MaxHallRows+1, 0, "a hall has at most %d rows", MaxHallRows)
		lines = lines[:MaxHallRows]
	}
	l := &Layout{Numbering: numbering}
	labelLine := map[string]int{}
	prev := 0 // place of the previous seat row's label
	sellable := 0
	for i, line := range lines {
		lineNo := i + 1
		line = strings.TrimSuffix(line, "\r")
		cells, offset, label := line, 0, ""
		if bar := strings.IndexByte(line, '|'); bar >= 0 {
			label = strings.ToUpper(strings.TrimSpace(line[:bar]))
			cells, offset = line[bar+1:], len([]rune(line[:bar]))+1
			if label != "" && rowIndex(label) == 0 {
				add(lineNo, 1, "row label %q must be 1 to %d letters A-Z", strings.TrimSpace(line[:bar]), maxRowLabel)
				label = ""
			}
		}
		var row []LayoutSeat
		col := 0
		for _, ch := range cells {
			col++
			if col > MaxHallCols {
				add(lineNo, offset+col, "a row has at most %d cells", MaxHallCols)
				break
			}
			switch ch {
			case ' ', '.':
				continue
			case '|':
				add(lineNo, offset+col, "'|' may appear once, after the row label")
				continue
			case '\t':
				add(lineNo, offset+col, "a tab is not a layout character; %s", layoutHelp)
				continue
			}
			c, ok := cellOf(ch)
			if !ok {
				add(lineNo, offset+col, "%s is not a layout character; %s", quoteRune(ch), layoutHelp)
				continue
			}
			row = append(row, LayoutSeat{Row: lineNo, Col: col, Kind: c.Kind, Zone: c.Zone})
		}
		if len(row) == 0 {
			if label != "" {
				add(lineNo, 1, "row label %q is on a line without seats", label)
			}
			continue
		}
		if label == "" {
			prev++
			label = rowName(prev)
		} else {
			prev = rowIndex(label)
		}
		if prev > maxRowIndex {
			add(lineNo, 0, "too many rows to label: the last label is %s", rowName(maxRowIndex))
			continue
		}
		if first, dup := labelLine[label]; dup {
			add(lineNo, 1, "row label %s is used on line %d too", label, first)
		}
		labelLine[label] = lineNo
		for j := range row {
			n := j + 1
			if numbering == NumberRightToLeft {
				n = len(row) - j
			}
			row[j].RowLabel, row[j].Number, row[j].Label = label, n, label+strconv.Itoa(n)
			if row[j].Kind != services.KindBlocked {
				sellable++
			}
			l.Cols = max(l.Cols, row[j].Col)
		}
		l.Rows = lineNo
		l.Seats = append(l.Seats, row...)
	}
	if sellable == 0 && len(probs) == 0 {
		add(0, 0, "the layout has no seat to sell; %s", layoutHelp)
	}
	if len(probs) > 0 {
		return nil, &LayoutError{Problems: probs}
	}
	return l, nil
}

// quoteRune shows a character in an error: 'x', or its code point when it is invisible.
func quoteRune(r rune) string {
	if r < 0x20 || r == 0x7f || r == 0xfffd {
		return fmt.Sprintf("character U+%04X", r)
	}
	return "'" + string(r) + "'"
}
