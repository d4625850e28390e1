package views

import (
	"strconv"

	"github.com/a-h/templ"

	"seatflow/services"
)

// The staff seat map of a large hall (more than SectionedSeats seats) works by section,
// as the buyers' map does (a stadium's every seat is some 20 MB of page): the
// page first shows an overview of the hall's sections with each one's free, held, sold
// and house seats, and ?section=N shows that section's seats alone, to block or
// unblock, with the orders holding them. A small hall's page is the whole hall, as ever.

// StaffSections is the section part of a large hall's staff page: the section shown
// (Index, 0 for the overview) with its Title, the way back, and a tile per section.
type StaffSections struct {
	Index       int
	Title       string // "Rows AA–AY, seats 26–50" (empty on the overview)
	OverviewURL string
	GridStyle   templ.SafeCSS
	Tiles       []StaffSectionTile
}

// StaffSectionTile is one section on the staff overview: its seats per state, its
// link, its name, whether it is the section shown (Here), and its place on the grid.
type StaffSectionTile struct {
	Index                   int
	Free, Held, Sold, House int
	Seats                   int
	Label, URL              string
	Here                    bool
	Style                   templ.SafeCSS
}

// StaffSectioned reports whether m's staff page works by section.
func StaffSectioned(m *StaffSeatMap) bool { return len(m.Hall.Seats) > SectionedSeats }

// AdminShowSeatsSectionURL is the staff seat map of a show at section index of its
// hall (0: the overview).
func AdminShowSeatsSectionURL(showID int64, index int) string {
	if index <= 0 {
		return AdminShowSeatsURL(showID)
	}
	return AdminShowSeatsURL(showID) + "?section=" + strconv.Itoa(index)
}

// StaffSectionPart cuts a large hall's staff seat map to section index: the overview
// of its sections and, for a section (index > 0), a map of that section's seats alone on
// a grid of its own (rows and columns counted from the section's corner; the hall's
// row letters kept), sharing the show and the counts of the whole show. ok is false for
// a small hall or a section the hall does not have.
func StaffSectionPart(m *StaffSeatMap, index int) (part *StaffSeatMap, sections *StaffSections, ok bool) {
	if !StaffSectioned(m) {
		return nil, nil, false
	}
	h := m.Hall
	hs := SectionsOf(h)
	if index < 0 || index > len(hs.List) {
		return nil, nil, false
	}
	at := make(map[int64]int, len(m.Seats)) // seat id -> index in m.Seats
	for i, s := range m.Seats {
		at[s.ID] = i
	}
	cols := strconv.Itoa(hs.Blocks)
	sections = &StaffSections{Index: index, OverviewURL: AdminShowSeatsURL(m.Show.ID),
		GridStyle: templ.SafeCSS("--blocks:" + cols + ";grid-template-columns:repeat(" + cols + ",3rem);")}
	for i := range hs.List {
		sec := &hs.List[i]
		t := StaffSectionTile{Index: sec.Index, Seats: len(sec.Seats), Here: sec.Index == index,
			URL: AdminShowSeatsSectionURL(m.Show.ID, sec.Index), Style: gridAt(sec.Band+1, sec.Block+1)}
		for _, k := range sec.Seats {
			j, found := at[h.Seats[k].ID]
			if !found {
				continue
			}
			switch m.Seats[j].State {
			case services.StateFree:
				t.Free++
			case services.StateHeld:
				t.Held++
			case services.StateSold:
				t.Sold++
			case SeatStateHouse:
				t.House++
			}
		}
		if len(sec.Seats) > 0 {
			t.Label = "Rows " + sectionRows(h, sec) + ", seats " + sectionNumbers(h, sec.Seats) + ": " +
				strconv.Itoa(t.Free) + " free, " + strconv.Itoa(t.Held) + " held, " + strconv.Itoa(t.Sold) + " sold, " +
				Plural(t.House, "house seat", "house seats")
		}
		sections.Tiles = append(sections.Tiles, t)
	}
	if index == 0 {
		return nil, sections, true
	}
	sec := &hs.List[index-1]
	sections.Title = "Rows " + sectionRows(h, sec) + ", seats " + sectionNumbers(h, sec.Seats)
	grid := &services.Hall{ID: h.ID, Name: h.Name, Rows: sec.Bottom - sec.Top + 1, Cols: sec.Right - sec.Left + 1}
	part = &StaffSeatMap{Show: m.Show, Hall: grid, Counts: m.Counts, Editable: m.Editable,
		Seats: make([]StaffSeat, 0, len(sec.Seats))}
	for _, k := range sec.Seats {
		j, found := at[h.Seats[k].ID]
		if !found {
			continue
		}
		s := m.Seats[j]
		s.Row, s.Col = s.Row-sec.Top+1, s.Col-sec.Left+1
		part.Seats = append(part.Seats, s)
		grid.Seats = append(grid.Seats, s.Seat)
	}
	return part, sections, true
}

// StaffTileClass is the class of a staff overview tile: how much of the section is free
// to sell (the buyers' overview's classes), and whether it holds house seats.
func StaffTileClass(t StaffSectionTile) string {
	c := "section-many"
	total := t.Free + t.Held + t.Sold + t.House
	switch {
	case t.Free == 0:
		c = "section-full"
	case t.Free*10 < total:
		c = "section-few"
	case t.Free*10 < total*4:
		c = "section-some"
	}
	if t.House > 0 {
		c += " staff-section-house"
	}
	return c
}
