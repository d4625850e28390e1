package catalog

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"seatflow/services"
)

// FormatLayout writes a hall's seats as layout text (the reverse of ParseLayout) with
// the numbering its labels follow, so ParseLayout(text, numbering) gives the same seats
// at the same cells with the same labels, kinds and zones. Row labels are written only
// when they differ from A, B, C, ... Errors: *LayoutError when the hall cannot be written
// as a layout (a seat kind and zone with no character, a label that is not row letters
// and a number, numbers that do not run 1..n along a row in one direction).
func FormatLayout(h *services.Hall) (string, Numbering, error) {
	seats := append([]services.Seat(nil), h.Seats...)
	sort.Slice(seats, func(i, j int) bool {
		if seats[i].Row != seats[j].Row {
			return seats[i].Row < seats[j].Row
		}
		return seats[i].Col < seats[j].Col
	})
	fail := func(format string, a ...any) (string, Numbering, error) {
		return "", "", &LayoutError{Problems: []LayoutProblem{{Msg: fmt.Sprintf(format, a...)}}}
	}
	byRow := map[int][]services.Seat{}
	var rows []int
	for _, s := range seats {
		if s.Row < 1 || s.Col < 1 || s.Row > MaxHallRows || s.Col > MaxHallCols {
			return fail("seat %s is outside a %d x %d grid", s.Label, MaxHallRows, MaxHallCols)
		}
		if len(byRow[s.Row]) == 0 {
			rows = append(rows, s.Row)
		}
		byRow[s.Row] = append(byRow[s.Row], s)
	}
	numbering := Numbering("")
	labels := make(map[int]string, len(rows))
	seen := map[string]bool{}
	for _, r := range rows {
		row := byRow[r]
		label := strings.TrimRight(row[0].Label, "0123456789")
		if rowIndex(label) == 0 {
			return fail("seat %s: its row label is not 1 to %d letters A-Z", row[0].Label, maxRowLabel)
		}
		if seen[label] {
			return fail("row %s appears on two grid rows", label)
		}
		seen[label] = true
		runs := func(dir Numbering) bool {
			for j, s := range row {
				n := j + 1
				if dir == NumberRightToLeft {
					n = len(row) - j
				}
				if s.Label != label+strconv.Itoa(n) || (j > 0 && s.Col == row[j-1].Col) {
					return false
				}
			}
			return true
		}
		dir := NumberLeftToRight
		if !runs(dir) {
			dir = NumberRightToLeft
			if !runs(dir) {
				return fail("row %s: seat numbers do not run 1 to %d along the row", label, len(row))
			}
		}
		if len(row) > 1 {
			if numbering != "" && numbering != dir {
				return fail("row %s: seat numbers run the other way than in the rows before", label)
			}
			numbering = dir
		}
		labels[r] = label
	}
	if numbering == "" {
		numbering = NumberLeftToRight
	}
	explicit := false
	prev := 0
	for _, r := range rows {
		prev++
		if labels[r] != rowName(prev) {
			explicit = true
			break
		}
	}
	var sb strings.Builder
	last := 0
	if len(rows) > 0 {
		last = rows[len(rows)-1]
	}
	for r := 1; r <= last; r++ {
		row := byRow[r]
		if len(row) > 0 && explicit {
			sb.WriteString(labels[r] + "|")
		}
		col := 1
		for _, s := range row {
			for ; col < s.Col; col++ {
				sb.WriteByte('.')
			}
			ch, ok := charOf(s.Kind, s.ZoneCode)
			if !ok {
				return fail("seat %s: a %s seat in zone %s has no layout character", s.Label, s.Kind, s.ZoneCode)
			}
			sb.WriteByte(ch)
			col++
		}
		sb.WriteByte('\n')
	}
	return sb.String(), numbering, nil
}

// Hall returns the layout as an unsaved hall named name (ids 0): its grid, the zones its
// seats use (in LayoutZones order) and its seats.
func (l *Layout) Hall(name string) *services.Hall {
	h := &services.Hall{Name: name, Rows: l.Rows, Cols: l.Cols}
	used := map[string]bool{}
	for _, s := range l.Seats {
		used[s.Zone] = true
		h.Seats = append(h.Seats, services.Seat{ZoneCode: s.Zone, Row: s.Row, Col: s.Col, Label: s.Label, Kind: s.Kind})
	}
	for _, z := range LayoutZones {
		if used[z.Code] {
			h.Zones = append(h.Zones, z)
		}
	}
	h.Index()
	return h
}
