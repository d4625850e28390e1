package views

import (
	"strconv"
	"sync"

	"seatflow/services"
)

// A hall with more than SectionedSeats seats is shown in sections: the show's page
// first renders an overview of the hall cut into sections (HallSections), each a link
// that says how many of its seats are free; a section's page renders only its seats, so
// a 90,000-seat stadium is a few hundred checkboxes a page, not tens of megabytes.
const SectionedSeats = 3000

// The most grid lines and columns one section spans: a block between aisles that is
// longer or wider is cut into near-equal parts no larger than this.
const (
	maxSectionRows = 25
	maxSectionCols = 30
)

// Section is one block of a hall's seats shown on its own page: grid lines Top..Bottom
// and columns Left..Right (1-based, inclusive), at Band (from the front) and Block (from
// the left) in the overview. Seats are indexes into the hall's Seats in hall order (row,
// then column); a section may have none (a corner of an irregular hall).
type Section struct {
	Index       int // 1-based, in reading order: front to back, left to right
	Band, Block int // 0-based place in the overview grid
	Top, Bottom int
	Left, Right int
	Seats       []int
}

// HallSectioning is a hall cut into Bands x Blocks sections, listed band by band.
type HallSectioning struct {
	Bands, Blocks int
	List          []Section
}

// HallSections cuts h into sections that follow its aisles: its grid lines without
// seats (cross aisles) separate bands, its columns without seats separate blocks, and a
// band or block larger than maxSectionRows x maxSectionCols is cut into near-equal
// parts. A hall without seats has one empty section.
func HallSections(h *services.Hall) *HallSectioning {
	rowUsed := make([]bool, h.Rows+2)
	colUsed := make([]bool, h.Cols+2)
	for _, s := range h.Seats {
		if s.Row >= 1 && s.Row <= h.Rows && s.Col >= 1 && s.Col <= h.Cols {
			rowUsed[s.Row], colUsed[s.Col] = true, true
		}
	}
	bands, rowBand := spans(rowUsed, h.Rows, maxSectionRows)
	blocks, colBlock := spans(colUsed, h.Cols, maxSectionCols)
	out := &HallSectioning{Bands: len(bands), Blocks: len(blocks)}
	for b, band := range bands {
		for k, block := range blocks {
			out.List = append(out.List, Section{Index: len(out.List) + 1, Band: b, Block: k,
				Top: band[0], Bottom: band[1], Left: block[0], Right: block[1]})
		}
	}
	for i, s := range h.Seats {
		if s.Row < 1 || s.Row > h.Rows || s.Col < 1 || s.Col > h.Cols {
			continue
		}
		j := rowBand[s.Row]*len(blocks) + colBlock[s.Col]
		out.List[j].Seats = append(out.List[j].Seats, i)
	}
	return out
}

// sectionCache keeps the sections of the halls cut last: a hall's layout is cached and
// shared (catalog.Catalog.Hall), so the same pointer is the same layout.
var sectionCache struct {
	sync.Mutex
	halls [8]*services.Hall
	cuts  [8]*HallSectioning
	next  int
}

// SectionsOf is HallSections(h), remembered for the last few halls.
func SectionsOf(h *services.Hall) *HallSectioning {
	c := &sectionCache
	c.Lock()
	for i, hall := range c.halls {
		if hall == h {
			s := c.cuts[i]
			c.Unlock()
			return s
		}
	}
	c.Unlock()
	s := HallSections(h)
	c.Lock()
	c.halls[c.next], c.cuts[c.next] = h, s
	c.next = (c.next + 1) % len(c.halls)
	c.Unlock()
	return s
}

// spans cuts 1..n into spans of used positions: a run of used positions between unused
// ones is one span, cut into near-equal parts of at most most; unused positions belong
// to the span before them (the first ones to the first span). It returns the spans
// (first and last position) and each position's span.
func spans(used []bool, n, most int) ([][2]int, []int) {
	var runs [][2]int
	for i := 1; i <= n; {
		if !used[i] {
			i++
			continue
		}
		j := i
		for j+1 <= n && used[j+1] {
			j++
		}
		runs = append(runs, [2]int{i, j})
		i = j + 1
	}
	if len(runs) == 0 {
		runs = [][2]int{{1, max(n, 1)}}
	}
	var out [][2]int
	for _, r := range runs {
		length := r[1] - r[0] + 1
		parts := (length + most - 1) / most
		for p := 0; p < parts; p++ {
			from := r[0] + p*length/parts
			to := r[0] + (p+1)*length/parts - 1
			out = append(out, [2]int{from, to})
		}
	}
	of := make([]int, n+2)
	k := 0
	for i := 1; i <= n; i++ {
		for k+1 < len(out) && i >= out[k+1][0] {
			k++
		}
		of[i] = k
	}
	return out, of
}

// Find returns the section with that 1-based index, or false.
func (hs *HallSectioning) Find(index int) (*Section, bool) {
	if index < 1 || index > len(hs.List) {
		return nil, false
	}
	return &hs.List[index-1], true
}

// At returns the section at band and block, or false outside the grid.
func (hs *HallSectioning) At(band, block int) (*Section, bool) {
	if band < 0 || band >= hs.Bands || block < 0 || block >= hs.Blocks {
		return nil, false
	}
	return &hs.List[band*hs.Blocks+block], true
}

// Of returns the index of the section of h (the hall hs was cut from) holding the seat
// with that id, or 0.
func (hs *HallSectioning) Of(h *services.Hall, seatID int64) int {
	for _, st := range h.Seats {
		if st.ID != seatID {
			continue
		}
		for _, sec := range hs.List {
			if st.Row >= sec.Top && st.Row <= sec.Bottom && st.Col >= sec.Left && st.Col <= sec.Right {
				return sec.Index
			}
		}
	}
	return 0
}

// SectionSeatIDs returns the ids of the seats of section index of h (nil for none).
func SectionSeatIDs(h *services.Hall, index int) map[int64]bool {
	sec, ok := SectionsOf(h).Find(index)
	if !ok {
		return nil
	}
	out := make(map[int64]bool, len(sec.Seats))
	for _, i := range sec.Seats {
		out[h.Seats[i].ID] = true
	}
	return out
}

// ShowSectionURL is a show's page opened at section index of its hall (0: the
// overview), with picks (seat ids to keep ticked) in the query. Without a section in
// its address, a page with picks opens at the section of the first pick.
func ShowSectionURL(showID int64, index int, picks []int64) string {
	u := ShowURL(showID) + "?section=" + strconv.Itoa(index)
	for _, id := range picks {
		u += "&seat=" + i64(id)
	}
	return u
}
