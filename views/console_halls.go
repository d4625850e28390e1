package views

import (
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"seatflow/services"
)

// HallListProps is the console's list of halls; Saved names a hall just saved.
type HallListProps struct {
	Page  Page
	Halls []*services.Hall
	Saved string
	// Cinemas names the halls' cinemas by id.
	Cinemas map[int64]string
}

// HallFormProps is the create or edit form of a hall: ID 0 for a new hall; Name, Layout
// and Numbering as typed; Error for the whole form (a conflict); Preview of the layout.
type HallFormProps struct {
	Page      Page
	ID        int64
	Name      string
	Layout    string
	Numbering string
	Error     string
	Preview   HallPreviewProps
	Prices    map[string]string // new-zone prices as typed (edit only), zone code -> amount
	Currency  string
	// Zones are the zones a layout may use, for the new-zone prices; Legend the layout
	// characters.
	Zones  []services.Zone
	Legend []LayoutCell
	// Cinemas a new hall may go in (the signed-in user's); with more than one the form
	// picks CinemaID.
	Cinemas  []services.Cinema
	CinemaID int64
}

// HallPreviewProps is a layout's preview: the parsed Layout, or the Problems naming line
// and column ("line 2, column 3: ..."); neither when the text is empty.
type HallPreviewProps struct {
	Layout   *HallLayout
	Problems []string
}

// HallURL is the edit page of a hall.
func HallURL(id int64) string { return "/admin/halls/" + strconv.FormatInt(id, 10) }

// HallFormAction is where the hall form posts: /admin/halls for a new hall.
func HallFormAction(id int64) string {
	if id == 0 {
		return "/admin/halls"
	}
	return HallURL(id)
}

// ZoneCount is a zone and its sellable seats.
type ZoneCount struct {
	Code, Name string
	Seats      int
}

// HallZoneCounts lists a hall's zones with their sellable seats, and its blocked seats.
func HallZoneCounts(h *services.Hall) ([]ZoneCount, int) {
	n := map[string]int{}
	blocked := 0
	for _, s := range h.Seats {
		if s.Sellable() {
			n[s.ZoneCode]++
		} else {
			blocked++
		}
	}
	out := make([]ZoneCount, 0, len(h.Zones))
	for _, z := range h.Zones {
		out = append(out, ZoneCount{Code: z.Code, Name: z.Name, Seats: n[z.Code]})
	}
	return out, blocked
}

// LayoutZoneCounts lists the zones a layout uses with their sellable seats, the total
// and the blocked seats.
func LayoutZoneCounts(l *HallLayout) ([]ZoneCount, int, int) {
	return l.Zones, l.Total, l.Blocked
}

// SeatCount is "1 seat" or "n seats".
func SeatCount(n int) string {
	if n == 1 {
		return "1 seat"
	}
	return strconv.Itoa(n) + " seats"
}

// PreviewCell is one seat of a layout preview, placed on the grid (column 1 holds the
// row labels).
type PreviewCell struct {
	Text, Title, Class string
	Style              templ.SafeCSS
}

// PreviewCells places the seats and row labels of a layout on the preview grid.
func PreviewCells(l *HallLayout) []PreviewCell {
	out := make([]PreviewCell, 0, len(l.Seats)+l.Rows)
	lastRow := 0
	for _, s := range l.Seats {
		if s.Row != lastRow {
			lastRow = s.Row
			out = append(out, PreviewCell{Text: s.RowLabel, Class: "hall-row-label", Style: GridPos(s.Row, 1)})
		}
		class := []string{"hall-cell", "hall-zone-" + s.Zone, "hall-kind-" + s.Kind}
		desc := []string{s.Label, s.ZoneName}
		text := strconv.Itoa(s.Number)
		switch s.Kind {
		case services.KindWheelchair:
			desc = append(desc, "wheelchair space")
			text = "♿"
		case services.KindCompanion:
			desc = append(desc, "companion seat")
		case services.KindBlocked:
			desc = []string{s.Label, "blocked"}
			text = "×"
		}
		out = append(out, PreviewCell{Text: text, Title: strings.Join(desc, " · "), Class: strings.Join(class, " "), Style: GridPos(s.Row, s.Col+1)})
	}
	return out
}

// CompactPreview reports whether a layout is previewed as runs of seats (PreviewRuns)
// rather than seat by seat: a layout of more than SectionedSeats seats (a stadium's
// 90,000 cells would be megabytes of preview).
func CompactPreview(l *HallLayout) bool { return len(l.Seats) > SectionedSeats }

// PreviewRuns are a layout's seats as runs: the seats side by side in a row of one zone
// and kind, each a bar on a grid of small cells (PreviewRunsGrid), named by its first
// and last seat.
func PreviewRuns(l *HallLayout) []PreviewCell {
	var out []PreviewCell
	for i := 0; i < len(l.Seats); {
		first := l.Seats[i]
		j := i + 1
		for j < len(l.Seats) && l.Seats[j].Row == first.Row && l.Seats[j].Col == l.Seats[j-1].Col+1 &&
			l.Seats[j].Zone == first.Zone && l.Seats[j].Kind == first.Kind {
			j++
		}
		last := l.Seats[j-1]
		name := first.ZoneName
		if first.Kind != services.KindStandard {
			name += ", " + first.Kind
		}
		out = append(out, PreviewCell{Title: span(first.Label, last.Label) + " · " + name,
			Class: "hall-run hall-zone-" + first.Zone + " hall-kind-" + first.Kind,
			Style: templ.SafeCSS("grid-row:" + strconv.Itoa(first.Row) + ";grid-column:" + strconv.Itoa(first.Col) + "/" + strconv.Itoa(last.Col+1) + ";")})
		i = j
	}
	return out
}

// PreviewRunsGrid sizes the compact preview: one small cell per grid cell.
func PreviewRunsGrid(l *HallLayout) templ.SafeCSS {
	return templ.SafeCSS("grid-template-columns:repeat(" + strconv.Itoa(l.Cols) + ",3px);grid-template-rows:repeat(" + strconv.Itoa(l.Rows) + ",3px);")
}

// PreviewGrid sizes the preview grid: a label column and the layout's columns.
func PreviewGrid(l *HallLayout) templ.SafeCSS {
	return templ.SafeCSS("grid-template-columns:repeat(" + strconv.Itoa(l.Cols+1) + ",1.6rem);grid-template-rows:repeat(" + strconv.Itoa(l.Rows) + ",1.6rem);")
}

// CharString is one byte as a string.
func CharString(b byte) string { return string(rune(b)) }

// ProblemsTitle heads the list of a layout's problems.
func ProblemsTitle(n int) string {
	if n == 1 {
		return "The layout has a problem:"
	}
	return "The layout has " + strconv.Itoa(n) + " problems:"
}
