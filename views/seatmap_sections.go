package views

import (
	"sort"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"seatflow/services"
)

// MapView is the part of a hall one seat grid shows: the whole hall, or one section.
type MapView struct {
	Rows, Cols int         // the grid's size in cells
	Letters    []RowLetter // each grid row's letter, placed on the grid
	Cells      []SeatCell  // the seats, placed on the grid
	FirstRow   string      // the letter of the hall's front row (for the screen note)
	Front      bool        // the grid starts at the hall's front: the screen is right before it
	LiveURL    string      // the stream of these seats' changes
	Elsewhere  []SeatCell  // seats ticked in other sections, carried along unseen
}

// Sectioned reports whether the page shows the hall in sections (more than
// SectionedSeats seats).
func (p ShowPageProps) Sectioned() bool { return len(p.Map.Hall.Seats) > SectionedSeats }

// CurrentSection returns the section the page shows, or false for the overview (or a
// hall shown whole).
func (p ShowPageProps) CurrentSection() (*Section, bool) {
	if !p.Sectioned() || p.Section == 0 {
		return nil, false
	}
	return SectionsOf(p.Map.Hall).Find(p.Section)
}

// WholeView is the whole hall on one grid.
func (p ShowPageProps) WholeView() MapView {
	h := p.Map.Hall
	rows := RowLetters(h)
	return MapView{Rows: h.Rows, Cols: h.Cols, Letters: rows, Cells: SeatCells(p), FirstRow: FirstRow(rows),
		Front: true, LiveURL: LiveURL(p.Map.Show.ID)}
}

// SectionPage is one section's page: its grid, what it is, and where to go from it.
type SectionPage struct {
	MapView
	Title       string        // "Rows AA–AY, seats 26–50"
	FreeText    string        // "312 of 625 seats free"
	OverviewURL string        // back to every section
	Neighbours  []SectionStep // nearer the screen, left, right, further back
}

// SectionStep is a link to the section next to this one in one direction (Dir front,
// left, right or back); URL is empty when there is none that way.
type SectionStep struct {
	Dir, Text, Title, URL string
}

// SectionView is section sec of the hall on its own grid, with the seats ticked in
// other sections carried along.
func (p ShowPageProps) SectionView(sec *Section) SectionPage {
	h, l := p.Map.Hall, p.Lang
	all := RowLetters(h)
	v := MapView{Rows: sec.Bottom - sec.Top + 1, Cols: sec.Right - sec.Left + 1, FirstRow: FirstRow(all),
		Front: sec.Band == 0, LiveURL: LiveURL(p.Map.Show.ID) + "?section=" + strconv.Itoa(sec.Index)}
	for _, r := range all[sec.Top-1 : sec.Bottom] {
		v.Letters = append(v.Letters, RowLetter{Row: r.Row - sec.Top + 1, Letter: r.Letter, Style: templ.SafeCSS("grid-row:" + strconv.Itoa(r.Row-sec.Top+1) + ";")})
	}
	m := newCellMaker(p)
	for _, i := range sec.Seats {
		st := &h.Seats[i]
		v.Cells = append(v.Cells, m.cell(st, st.Row-sec.Top+1, st.Col-sec.Left+1))
	}
	v.Elsewhere = p.PicksElsewhere(sec)
	free, total := p.sectionFree(sec)
	out := SectionPage{MapView: v, OverviewURL: ShowSectionURL(p.Map.Show.ID, 0, p.picks()),
		Title:    l.T("section.title", D{"Rows": sectionRows(h, sec), "Seats": sectionNumbers(h, sec.Seats)}),
		FreeText: l.T("section.free", D{"Free": free, "Total": total})}
	hs := SectionsOf(h)
	for _, d := range []struct {
		dir, key, arrow string
		db, dk          int
	}{
		{"front", "section.front", "↑", -1, 0}, {"left", "section.left", "←", 0, -1},
		{"right", "section.right", "→", 0, 1}, {"back", "section.back", "↓", 1, 0},
	} {
		step := SectionStep{Dir: d.dir, Text: d.arrow + " " + l.T(d.key, nil)}
		if d.dir == "right" {
			step.Text = l.T(d.key, nil) + " " + d.arrow
		}
		for b, k := sec.Band+d.db, sec.Block+d.dk; ; b, k = b+d.db, k+d.dk {
			next, ok := hs.At(b, k)
			if !ok {
				break
			}
			if len(next.Seats) > 0 {
				step.URL = ShowSectionURL(p.Map.Show.ID, next.Index, p.picks())
				step.Title = p.sectionLabel(next)
				break
			}
		}
		out.Neighbours = append(out.Neighbours, step)
	}
	return out
}

// PicksElsewhere are the ticked seats outside sec (every ticked seat for nil), as
// cells without a grid place.
func (p ShowPageProps) PicksElsewhere(sec *Section) []SeatCell {
	var out []SeatCell
	m := newCellMaker(p)
	for _, i := range p.selectedIndexes() {
		st := &p.Map.Hall.Seats[i]
		if sec != nil && st.Row >= sec.Top && st.Row <= sec.Bottom && st.Col >= sec.Left && st.Col <= sec.Right {
			continue
		}
		if c := m.cell(st, st.Row, st.Col); c.Selectable && c.Checked {
			out = append(out, c)
		}
	}
	return out
}

// picks are the ticked seats' ids, ascending, for the links between sections.
func (p ShowPageProps) picks() []int64 {
	out := make([]int64, 0, len(p.Selected))
	for id, ok := range p.Selected {
		if ok {
			out = append(out, id)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// sectionFree counts the seats of sec on sale for this show (sellable and priced) and
// how many of them are free.
func (p ShowPageProps) sectionFree(sec *Section) (free, total int) {
	show := p.Map.Show
	for _, i := range sec.Seats {
		st := &p.Map.Hall.Seats[i]
		if _, priced := show.ZonePrice(st.ZoneCode); !priced || !st.Sellable() || p.Map.States[st.ID] == services.StateBlocked {
			continue
		}
		total++
		if p.Map.States[st.ID] == services.StateFree {
			free++
		}
	}
	return free, total
}

// sectionRead reports whether the page read the states of sec's seats: always for a
// whole map; on a section's page (a partial map) only for its own section.
func (p ShowPageProps) sectionRead(sec *Section) bool {
	if !p.Map.Partial {
		return true
	}
	for _, i := range sec.Seats {
		if _, ok := p.Map.States[p.Map.Hall.Seats[i].ID]; !ok {
			return false
		}
	}
	return true
}

// sectionZones are the zone classes of the zones sec has seats in, in the show's order.
func (p ShowPageProps) sectionZones(sec *Section) []string {
	slots := ZoneSlots(p.Map.Show)
	has := map[string]bool{}
	for _, i := range sec.Seats {
		has[p.Map.Hall.Seats[i].ZoneCode] = true
	}
	var out []string
	for _, z := range p.Map.Show.Zones {
		if has[z.Code] {
			out = append(out, ZoneClass(slots[z.Code]))
		}
	}
	return out
}

// sectionLabel names a section for people: its rows, seat numbers, free seats and zones
// (without free seats when the page did not read them, sectionRead).
func (p ShowPageProps) sectionLabel(sec *Section) string {
	h, l := p.Map.Hall, p.Lang
	free, total := p.sectionFree(sec)
	var zones []string
	seen := map[string]bool{}
	for _, z := range p.Map.Show.Zones {
		for _, i := range sec.Seats {
			if h.Seats[i].ZoneCode == z.Code && !seen[z.Code] {
				seen[z.Code] = true
				zones = append(zones, z.Name)
			}
		}
	}
	key := "section.tile"
	if !p.sectionRead(sec) {
		key = "section.tile_unread"
	}
	return l.T(key, D{"Rows": sectionRows(h, sec), "Seats": sectionNumbers(h, sec.Seats), "Free": free, "Total": total,
		"Zones": strings.Join(zones, l.T("list.sep", nil))})
}

// sectionRows is the range of row letters of sec's seats: "AA–AY", or "F" for one row.
func sectionRows(h *services.Hall, sec *Section) string {
	if len(sec.Seats) == 0 {
		return ""
	}
	return span(rowPart(h.Seats[sec.Seats[0]].Label), rowPart(h.Seats[sec.Seats[len(sec.Seats)-1]].Label))
}

// sectionNumbers is the range of seat numbers among seats (indexes into h.Seats): "26–50".
func sectionNumbers(h *services.Hall, seats []int) string {
	lo, hi := 0, 0
	for _, i := range seats {
		n, err := strconv.Atoi(seatNumber(h.Seats[i].Label))
		if err != nil {
			continue
		}
		if lo == 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	if lo == 0 {
		return ""
	}
	return span(strconv.Itoa(lo), strconv.Itoa(hi))
}

// span is "a–b", or a when both ends are the same.
func span(a, b string) string {
	if a == b {
		return a
	}
	return a + "–" + b
}

// SectionOverview is the overview of a large hall's sections: a grid with the screen
// on top, a head for each block (seat numbers) and band (rows), and a tile per section;
// the same tiles make the small map on a section's page.
type SectionOverview struct {
	GridStyle, ScreenStyle, MiniStyle templ.SafeCSS
	BandHeads, BlockHeads             []SectionHead
	Tiles                             []SectionTile
}

// SectionHead is a band's rows or a block's seat numbers, placed on the overview grid.
type SectionHead struct {
	Text  string
	Style templ.SafeCSS
}

// SectionTile is one section on the overview: its free seats among those on sale, a
// class saying how full it is (section-many, -some, -few, -full; section-unread on
// a section's page for the sections it did not read), its link and name,
// and its places on the overview and on the small map.
type SectionTile struct {
	Index, Free, Seats int
	Class, Label, URL  string
	Style, MiniStyle   templ.SafeCSS
	Zones              []string // the zone classes (ZoneClass) of its seats, in the show's zone order
}

// Overview is the hall's sections as an overview.
func (p ShowPageProps) Overview() SectionOverview {
	h := p.Map.Hall
	hs := SectionsOf(h)
	cols := strconv.Itoa(hs.Blocks)
	o := SectionOverview{
		GridStyle:   templ.SafeCSS("--blocks:" + cols + ";grid-template-columns:auto repeat(" + cols + ",var(--tile-w));"),
		ScreenStyle: templ.SafeCSS("grid-row:1;grid-column:2/" + strconv.Itoa(hs.Blocks+2) + ";"),
		MiniStyle:   templ.SafeCSS("--blocks:" + cols + ";grid-template-columns:repeat(" + cols + ",var(--mini));"),
	}
	picks := p.picks()
	for k := 0; k < hs.Blocks; k++ {
		var seats []int
		for b := 0; b < hs.Bands; b++ {
			sec, _ := hs.At(b, k)
			seats = append(seats, sec.Seats...)
		}
		o.BlockHeads = append(o.BlockHeads, SectionHead{Text: sectionNumbers(h, seats), Style: gridAt(2, k+2)})
	}
	for b := 0; b < hs.Bands; b++ {
		text := ""
		for k := 0; k < hs.Blocks && text == ""; k++ {
			sec, _ := hs.At(b, k)
			text = sectionRows(h, sec)
		}
		o.BandHeads = append(o.BandHeads, SectionHead{Text: text, Style: gridAt(b+3, 1)})
	}
	for i := range hs.List {
		sec := &hs.List[i]
		free, total := p.sectionFree(sec)
		t := SectionTile{Index: sec.Index, Free: free, Seats: len(sec.Seats), Style: gridAt(sec.Band+3, sec.Block+2),
			MiniStyle: gridAt(sec.Band+1, sec.Block+1), URL: ShowSectionURL(p.Map.Show.ID, sec.Index, picks)}
		switch {
		case !p.sectionRead(sec):
			t.Class = "section-unread" // a section page reads its own section only
		case free == 0:
			t.Class = "section-full"
		case free*10 < total:
			t.Class = "section-few"
		case free*10 < total*4:
			t.Class = "section-some"
		default:
			t.Class = "section-many"
		}
		if len(sec.Seats) > 0 {
			t.Label = p.sectionLabel(sec)
			t.Zones = p.sectionZones(sec)
		}
		o.Tiles = append(o.Tiles, t)
	}
	return o
}

// gridAt places an element at grid row and column.
func gridAt(row, col int) templ.SafeCSS {
	return templ.SafeCSS("grid-row:" + strconv.Itoa(row) + ";grid-column:" + strconv.Itoa(col) + ";")
}
