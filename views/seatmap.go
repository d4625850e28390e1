package views

import (
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"seatflow/services"
)

// SeatCell is one cell of the seat map, ready to render.
type SeatCell struct {
	ID         string // seat id (the checkbox value)
	Label      string // e.g. "F7"
	Text       string // what the seat shows: its number, or ♿
	Title      string // tooltip: label, zone, price, state
	AriaLabel  string
	Style      templ.SafeCSS // grid-row / grid-column from the seat's row and col
	Class      string
	Selectable bool // a checkbox is rendered (a sellable seat of this show)
	Disabled   bool // held, sold or yours
	Checked    bool
	Zone       string // zone name
	ZoneCode   string // zone code (the ticket types' prices are by code)
	Price      string // formatted in the show's currency
	PriceMinor int64
	Kind       string // standard, wheelchair or companion
	Row, Col   int
	Ticket     string // a ticked seat's ticket type code when not adult (SelectedCells)
}

// SeatCells turns the seat map into cells in the hall's order (row, col).
func SeatCells(p ShowPageProps) []SeatCell {
	m := newCellMaker(p)
	cells := make([]SeatCell, 0, len(p.Map.Hall.Seats))
	for i := range p.Map.Hall.Seats {
		st := &p.Map.Hall.Seats[i]
		cells = append(cells, m.cell(st, st.Row, st.Col))
	}
	return cells
}

// cellMaker turns seats of one page's seat map into cells.
type cellMaker struct {
	p        ShowPageProps
	slots    map[string]int
	zoneName map[string]string
	userID   int64
}

func newCellMaker(p ShowPageProps) *cellMaker {
	m := &cellMaker{p: p, slots: ZoneSlots(p.Map.Show), zoneName: map[string]string{}}
	for _, z := range p.Map.Show.Zones {
		m.zoneName[z.Code] = z.Name
	}
	if p.User != nil {
		m.userID = p.User.ID
	}
	return m
}

// cell is seat st as a cell placed at grid row and col (the hall's own, or a
// section's).
func (m *cellMaker) cell(st *services.Seat, row, col int) SeatCell {
	p, l, show := m.p, m.p.Lang, m.p.Map.Show
	c := SeatCell{
		ID:    i64(st.ID),
		Label: st.Label,
		Text:  seatNumber(st.Label),
		Style: GridPos(row, col),
	}
	price, priced := show.ZonePrice(st.ZoneCode)
	state := p.Map.States[st.ID]
	if !st.Sellable() || state == services.StateBlocked || !priced {
		c.Class = "seat seat-blocked"
		c.Text = "×"
		c.Title = st.Label + " · " + l.T("seat.not_for_sale", nil)
		return c
	}
	classes := []string{"seat", ZoneClass(m.slots[st.ZoneCode])}
	kind := ""
	switch st.Kind {
	case services.KindWheelchair:
		classes = append(classes, "seat-wheelchair")
		c.Text = "♿"
		kind = l.SeatKindName(st.Kind)
	case services.KindCompanion:
		classes = append(classes, "seat-companion")
		kind = l.SeatKindName(st.Kind)
	}
	c.Selectable = true
	c.Zone, c.Price, c.PriceMinor, c.Kind, c.Row, c.Col = m.zoneName[st.ZoneCode], Money(price, show.Currency), price, st.Kind, st.Row, st.Col
	c.ZoneCode = st.ZoneCode
	var desc []string // the place, kind, zone, price and state, for the accessible name
	if kind != "" {
		desc = append(desc, kind)
	}
	desc = append(desc, m.zoneName[st.ZoneCode], l.Money(price, show.Currency))
	mine := m.userID != 0 && p.Map.Owners[st.ID] == m.userID
	switch {
	case p.Exchange != nil && p.Exchange.Seats[st.ID]: // the order's own seat: kept while ticked
		classes = append(classes, "seat-free", "seat-current")
		c.Checked = p.Selected[st.ID]
		desc = append(desc, l.T("seat.current", nil))
	case state == services.StateFree:
		classes = append(classes, "seat-free")
		c.Checked = p.Selected[st.ID]
		if c.Checked { // static/js/seatmap.js swaps the two words as the seat is ticked
			desc = append(desc, l.T("seat.selected", nil))
		} else {
			desc = append(desc, l.T("seat.available", nil))
		}
	case mine && state == services.StateSold:
		classes = append(classes, "seat-yours")
		c.Disabled = true
		desc = append(desc, l.T("seat.yours_paid", nil))
	case mine:
		classes = append(classes, "seat-yours")
		c.Disabled = true
		desc = append(desc, l.T("seat.yours_pending", nil))
	case state == services.StateSold:
		classes = append(classes, "seat-sold")
		c.Disabled = true
		desc = append(desc, l.T("seat.sold", nil))
	default: // held, or a state that could not be read: never offered as free
		classes = append(classes, "seat-held")
		c.Disabled = true
		desc = append(desc, l.T("seat.held", nil))
	}
	if p.JustTaken[st.ID] {
		classes = append(classes, "seat-just-taken")
		desc = append(desc, l.T("seat.just_taken", nil))
	}
	c.Class = strings.Join(classes, " ")
	c.AriaLabel = l.SeatName(st.Label) + l.T("list.sep", nil) + strings.Join(desc, l.T("list.sep", nil))
	c.Title = st.Label + " · " + strings.Join(desc, " · ")
	return c
}

// SeatName is a seat's place for people in l: "Row F, seat 7", Chinese "F排7座".
func (l Lang) SeatName(label string) string {
	return l.T("seat.name", D{"Row": rowPart(label), "Number": seatNumber(label)})
}

// HallCols gives the hall its column count for the fit-to-screen seat size.
func HallCols(cols int) templ.SafeCSS {
	return templ.SafeCSS("--cols:" + strconv.Itoa(max(cols, 1)) + ";")
}

// FirstRow is the letter of the row nearest the screen.
func FirstRow(rows []RowLetter) string {
	if len(rows) == 0 {
		return "A"
	}
	return rows[0].Letter
}

// HasWheelchairSpaces reports whether the hall has a free wheelchair space to offer.
func (p ShowPageProps) HasWheelchairSpaces() bool {
	for _, st := range p.Map.Hall.Seats {
		if st.Kind == services.KindWheelchair && p.Map.States[st.ID] == services.StateFree {
			return true
		}
	}
	return false
}

// GridPos places a cell on the hall grid: grid-row from the seat's row, grid-column from
// its col (aisles are the columns no seat uses).
func GridPos(row, col int) templ.SafeCSS {
	return templ.SafeCSS("grid-row:" + strconv.Itoa(row) + ";grid-column:" + strconv.Itoa(col) + ";")
}

// HallGridTemplate sizes the hall's one grid: a column of row letters (--label-w wide)
// on each side of cols seat columns, and rows seat rows, every seat var(--seat) square.
// The row letters and the seats are subgrids of it (static/css/app.css), so a letter
// always shares its row's track and a number its seat's, at any seat size or zoom.
func HallGridTemplate(rows, cols int) templ.SafeCSS {
	return templ.SafeCSS("grid-template-columns:var(--label-w) repeat(" + strconv.Itoa(max(cols, 1)) + ",var(--seat)) var(--label-w);grid-template-rows:repeat(" + strconv.Itoa(max(rows, 1)) + ",var(--seat));")
}

// RowLetter is a row's letter at grid row Row.
type RowLetter struct {
	Row    int
	Letter string
	Style  templ.SafeCSS
}

// RowLetters names each row of the hall from its seats' labels ("F7" -> "F"); a row
// without seats falls back to its alphabetical letter.
func RowLetters(h *services.Hall) []RowLetter {
	byRow := map[int]string{}
	for _, s := range h.Seats {
		if _, ok := byRow[s.Row]; !ok {
			if l := rowPart(s.Label); l != "" {
				byRow[s.Row] = l
			}
		}
	}
	out := make([]RowLetter, 0, h.Rows)
	for r := 1; r <= h.Rows; r++ {
		l, ok := byRow[r]
		if !ok && r <= 26 {
			l = string(rune('A' + r - 1))
		}
		out = append(out, RowLetter{Row: r, Letter: l, Style: templ.SafeCSS("grid-row:" + strconv.Itoa(r) + ";")})
	}
	return out
}

// rowPart is the label without its trailing number: "F7" -> "F".
func rowPart(label string) string {
	return strings.TrimRight(label, "0123456789")
}

// seatNumber is the label's trailing number: "F7" -> "7" (the whole label if none).
func seatNumber(label string) string {
	if n := label[len(rowPart(label)):]; n != "" {
		return n
	}
	return label
}
