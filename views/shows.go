package views

import (
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"seatflow/services"
)

// Page is what every page gives the layout: its title, the signed-in user (nil when
// signed out), the request path (for the navigation and the sign-in link's next) and
// the CSRF token every POST form carries.
type Page struct {
	Title string
	User  *services.User
	Path  string
	// CSRF is the request's CSRF token (the value of the CSRFField hidden input); empty
	// when none was issued, e.g. on the page refusing a forged form.
	CSRF string
}

// CSRFField is the hidden form field that carries the CSRF token of every POST form.
const CSRFField = "_csrf"

// IsStaff reports whether the signed-in user may use the console (staff or admin).
func (p Page) IsStaff() bool {
	return p.User != nil && (p.User.Role == services.RoleStaff || p.User.Role == services.RoleAdmin)
}

// IsAdmin reports whether the signed-in user is an admin.
func (p Page) IsAdmin() bool { return p.User != nil && p.User.Role == services.RoleAdmin }

// SignedIn reports whether a user is signed in.
func (p Page) SignedIn() bool { return p.User != nil }

// LoginHref is the sign-in link that brings the user back to this page.
func (p Page) LoginHref() string {
	switch {
	case p.Path == "" || p.Path == "/" || strings.HasPrefix(p.Path, "/login") || strings.HasPrefix(p.Path, "/register"):
		return "/login"
	}
	return LoginURL(p.Path)
}

// RegisterHref is the register link that brings the user back to this page.
func (p Page) RegisterHref() string {
	if h := p.LoginHref(); h != "/login" {
		return "/register" + strings.TrimPrefix(h, "/login")
	}
	return "/register"
}

// LoginURL is the sign-in page that returns to next afterwards.
func LoginURL(next string) string {
	if next == "" || next == "/" {
		return "/login"
	}
	return "/login?next=" + queryEscape(next)
}

// queryEscape escapes a query value, keeping "/" readable ("next=/shows/42").
func queryEscape(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "%2F", "/")
}

// ShowState is a show's sale state as a badge: Label for people, Class for the style.
type ShowState struct {
	Label  string
	Class  string // on-sale, upcoming, sold-out, closed, cancelled
	OnSale bool   // orders are accepted now
	Reason string // a sentence saying why orders are not accepted (empty when they are)
}

// StateOf tells a show's sale state at now (API.md: on sale when status is on_sale and
// now is inside the sale window, and the show has not started), with times in the
// cinema's zone. A show not on sale yet always says when its sale opens, with
// SaleOpensText. Without the seat map it cannot tell held from sold: no free seat reads
// "no seats free" (ShowPageProps.State tells which).
func StateOf(s *services.Show, now time.Time, loc *time.Location) ShowState {
	switch {
	case s.Status == services.ShowCancelled:
		return ShowState{Label: "cancelled", Class: "cancelled", Reason: "This show was cancelled."}
	case !now.Before(s.StartsAt):
		return ShowState{Label: "started", Class: "closed", Reason: "This show started at " + DayTime(s.StartsAt, loc) + "; it can no longer be booked."}
	case s.Status == services.ShowClosed || !now.Before(s.SaleClosesAt):
		return ShowState{Label: "closed", Class: "closed", Reason: "Sales for this show have closed."}
	case (s.Status == services.ShowScheduled || s.Status == services.ShowOnSale) && now.Before(s.SaleOpensAt):
		opens := SaleOpensText(s, loc)
		return ShowState{Label: opens, Class: "upcoming", Reason: sentence(opens) + "."}
	case s.Status != services.ShowOnSale:
		return ShowState{Label: "not on sale yet", Class: "upcoming", Reason: "Not on sale yet (" + SaleOpensText(s, loc) + ")."}
	case s.SeatsLeft <= 0:
		return ShowState{Label: "no seats free", Class: "sold-out", Reason: "No seats are free right now."}
	}
	return ShowState{Label: "on sale", Class: "on-sale", OnSale: true}
}

// SaleOpensText is the one phrase for when a show's sale opens: "sale opens Mon 30 Nov,
// 19:40" (cinema time).
func SaleOpensText(s *services.Show, loc *time.Location) string {
	return "sale opens " + DayTime(s.SaleOpensAt, loc)
}

// sentence capitalises the first letter.
func sentence(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// mapState refines a show with no free seat from its seat map: "all seats held" while
// any seat is only held (they may come back when holds end, within hold), "sold out"
// when every seat is paid.
func mapState(st ShowState, m *services.SeatMap, hold time.Duration) ShowState {
	if st.Class != "sold-out" {
		return st
	}
	for _, state := range m.States {
		if state == services.StateHeld {
			when := "soon"
			if hold > 0 {
				when = "in up to " + Minutes(hold)
			}
			return ShowState{Label: "all seats held", Class: "held-out",
				Reason: "All seats are held by buyers who have not paid yet — seats may come back " + when + "."}
		}
	}
	return ShowState{Label: "sold out", Class: "sold-out", Reason: "This show is sold out: every seat is paid for."}
}

// MinPrice is the lowest zone price of a show, or false when it has none.
func MinPrice(s *services.Show) (int64, bool) {
	var lowest int64
	found := false
	for _, z := range s.Zones {
		if !found || z.PriceMinor < lowest {
			lowest, found = z.PriceMinor, true
		}
	}
	return lowest, found
}

// ShowDay is one local day of the programme.
type ShowDay struct {
	Heading string
	Date    string // YYYY-MM-DD in the cinema's zone
	Shows   []*services.Show
}

// GroupByDay puts shows into the local days starting at today's midnight in loc, for
// days days (empty days included), by start time as given.
func GroupByDay(shows []*services.Show, now time.Time, loc *time.Location, days int) []ShowDay {
	if loc == nil {
		loc = time.UTC
	}
	local := now.In(loc)
	today := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
	out := make([]ShowDay, days)
	index := map[string]int{}
	for i := range out {
		day := today.AddDate(0, 0, i)
		out[i] = ShowDay{Heading: DayHeading(day, today), Date: day.Format(time.DateOnly)}
		index[out[i].Date] = i
	}
	for _, s := range shows {
		if i, ok := index[s.StartsAt.In(loc).Format(time.DateOnly)]; ok {
			out[i].Shows = append(out[i].Shows, s)
		}
	}
	return out
}

// HomeProps are the props of the programme page.
type HomeProps struct {
	Page
	Days []ShowDay
	Now  time.Time
	Zone *time.Location
	// AllDays are the programme's days for the date strip (Days holds only the chosen
	// day when Date is set).
	AllDays []ShowDay
	Date    string // the chosen day (YYYY-MM-DD, cinema time), "" for all days
	Movies  []services.Movie
	MovieID int64 // the chosen movie, 0 for all
}

// BrowseURL is the programme filtered to a day ("" all) and a movie (0 all).
func BrowseURL(date string, movieID int64) string {
	var q []string
	if date != "" {
		q = append(q, "date="+date)
	}
	if movieID > 0 {
		q = append(q, "movie="+i64(movieID))
	}
	if len(q) == 0 {
		return "/"
	}
	return "/?" + strings.Join(q, "&")
}

// StripLabel is a day's short name in the date strip: "Today", "Tomorrow", "Wed 2".
func StripLabel(d ShowDay, i int) string {
	switch i {
	case 0:
		return "Today"
	case 1:
		return "Tomorrow"
	}
	if t, err := time.Parse(time.DateOnly, d.Date); err == nil {
		return t.Format("Mon 2")
	}
	return d.Date
}

// StripDate is a day's date for the strip: "1 Dec".
func StripDate(d ShowDay) string {
	if t, err := time.Parse(time.DateOnly, d.Date); err == nil {
		return t.Format("2 Jan")
	}
	return ""
}

// MoviesOf lists the distinct movies of the shows, by title.
func MoviesOf(shows []*services.Show) []services.Movie {
	seen := map[int64]bool{}
	var out []services.Movie
	for _, s := range shows {
		if !seen[s.Movie.ID] {
			seen[s.Movie.ID] = true
			out = append(out, s.Movie)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Title < out[j].Title })
	return out
}

// ShowPageProps are the props of a show's page with its seat map form.
type ShowPageProps struct {
	Page
	Map       *services.SeatMap
	Now       time.Time
	Zone      *time.Location
	HoldFor   time.Duration
	Selected  map[int64]bool // seats to keep checked (still free)
	Error     string         // a message above the seat map
	JustTaken map[int64]bool // seats the last attempt lost, highlighted
}

// Show returns the page's show.
func (p ShowPageProps) Show() *services.Show { return p.Map.Show }

// State returns the show's sale state.
func (p ShowPageProps) State() ShowState {
	return mapState(StateOf(p.Map.Show, p.Now, p.Zone), p.Map, p.HoldFor)
}

// CanBook reports whether the form may be submitted: signed in and on sale.
func (p ShowPageProps) CanBook() bool { return p.SignedIn() && p.State().OnSale }

// Owned is how many seats of this show the signed-in buyer already holds or owns
// (pending or paid orders): they count against the purchase limit.
func (p ShowPageProps) Owned() int {
	if p.User == nil {
		return 0
	}
	n := 0
	for id, owner := range p.Map.Owners {
		if owner == p.User.ID && (p.Map.States[id] == services.StateHeld || p.Map.States[id] == services.StateSold) {
			n++
		}
	}
	return n
}

// LimitLeft is how many more seats the buyer may pick: the purchase limit less the
// seats already held or owned, at least 0.
func (p ShowPageProps) LimitLeft() int { return max(p.Map.Show.PurchaseLimit-p.Owned(), 0) }

// LimitText explains the purchase limit for this buyer, counting the seats already
// held or owned: "Up to 4 seats per person for this show; you already have 2, so 2
// left."
func (p ShowPageProps) LimitText() string {
	limit := p.Map.Show.PurchaseLimit
	s := "Up to " + Plural(limit, "seat", "seats") + " per person for this show"
	if owned := p.Owned(); owned > 0 {
		s += "; you already have " + itoa(owned) + " (held or paid), so " + itoa(p.LimitLeft()) + " left"
	}
	return s + "."
}

// SelectedCells are the ticked seats, in the hall's order, for the summary.
func (p ShowPageProps) SelectedCells() []SeatCell {
	var out []SeatCell
	for _, c := range SeatCells(p) {
		if c.Checked {
			out = append(out, c)
		}
	}
	return out
}

// SelectedTotal is the sum of the ticked seats' prices, formatted.
func (p ShowPageProps) SelectedTotal() string {
	var sum int64
	for _, c := range p.SelectedCells() {
		sum += c.PriceMinor
	}
	return Money(sum, p.Map.Show.Currency)
}

// ShowURL is the show's page.
func ShowURL(id int64) string { return "/shows/" + i64(id) }

// BookURL is where the seat form posts.
func BookURL(id int64) string { return "/shows/" + i64(id) + "/book" }

// BestURL is where the best-available form posts.
func BestURL(id int64) string { return "/shows/" + i64(id) + "/best" }

// ZoneSlots maps a show's zone codes to their colour slot (0..5) in the order of the
// show's zones, so the legend and the seats agree.
func ZoneSlots(s *services.Show) map[string]int {
	m := make(map[string]int, len(s.Zones))
	for i, z := range s.Zones {
		m[z.Code] = i % 6
	}
	return m
}

// ZoneClass is the colour class of a zone slot.
func ZoneClass(slot int) string { return "zone-" + strconv.Itoa(slot) }

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
	Price      string // formatted in the show's currency
	PriceMinor int64
	Kind       string // standard, wheelchair or companion
	Row, Col   int
}

// SeatCells turns the seat map into cells in the hall's order (row, col).
func SeatCells(p ShowPageProps) []SeatCell {
	m := p.Map
	show := m.Show
	slots := ZoneSlots(show)
	zoneName := map[string]string{}
	for _, z := range show.Zones {
		zoneName[z.Code] = z.Name
	}
	var userID int64
	if p.User != nil {
		userID = p.User.ID
	}
	cells := make([]SeatCell, 0, len(m.Hall.Seats))
	for _, st := range m.Hall.Seats {
		c := SeatCell{
			ID:    i64(st.ID),
			Label: st.Label,
			Text:  seatNumber(st.Label),
			Style: GridPos(st.Row, st.Col),
		}
		price, priced := show.ZonePrice(st.ZoneCode)
		state := m.States[st.ID]
		if !st.Sellable() || state == services.StateBlocked || !priced {
			c.Class = "seat seat-blocked"
			c.Text = "×"
			c.Title = st.Label + " · not for sale"
			cells = append(cells, c)
			continue
		}
		classes := []string{"seat", ZoneClass(slots[st.ZoneCode])}
		kind := ""
		switch st.Kind {
		case services.KindWheelchair:
			classes = append(classes, "seat-wheelchair")
			c.Text = "♿"
			kind = "wheelchair space"
		case services.KindCompanion:
			classes = append(classes, "seat-companion")
			kind = "companion seat"
		}
		c.Selectable = true
		c.Zone, c.Price, c.PriceMinor, c.Kind, c.Row, c.Col = zoneName[st.ZoneCode], Money(price, show.Currency), price, st.Kind, st.Row, st.Col
		desc := []string{"Row " + rowPart(st.Label), "seat " + seatNumber(st.Label)}
		if kind != "" {
			desc = append(desc, kind)
		}
		desc = append(desc, zoneName[st.ZoneCode], Money(price, show.Currency))
		mine := userID != 0 && m.Owners[st.ID] == userID
		switch {
		case state == services.StateFree:
			classes = append(classes, "seat-free")
			c.Checked = p.Selected[st.ID]
			desc = append(desc, "available")
		case mine && state == services.StateSold:
			classes = append(classes, "seat-yours")
			c.Disabled = true
			desc = append(desc, "yours (paid)")
		case mine:
			classes = append(classes, "seat-yours")
			c.Disabled = true
			desc = append(desc, "yours (awaiting payment)")
		case state == services.StateSold:
			classes = append(classes, "seat-sold")
			c.Disabled = true
			desc = append(desc, "sold")
		default: // held, or a state that could not be read: never offered as free
			classes = append(classes, "seat-held")
			c.Disabled = true
			desc = append(desc, "held by another buyer")
		}
		if p.JustTaken[st.ID] {
			classes = append(classes, "seat-just-taken")
			desc = append(desc, "just taken")
		}
		c.Class = strings.Join(classes, " ")
		c.AriaLabel = strings.Join(desc, ", ")
		c.Title = st.Label + " · " + strings.Join(desc[2:], " · ")
		cells = append(cells, c)
	}
	return cells
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

// GridTemplate sizes the seat grid to the hall.
func GridTemplate(rows, cols int) templ.SafeCSS {
	return templ.SafeCSS("grid-template-columns:repeat(" + strconv.Itoa(cols) + ",var(--seat));grid-template-rows:repeat(" + strconv.Itoa(rows) + ",var(--seat));")
}

// RowsTemplate sizes a column of row letters to the hall.
func RowsTemplate(rows int) templ.SafeCSS {
	return templ.SafeCSS("grid-template-rows:repeat(" + strconv.Itoa(rows) + ",var(--seat));")
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

// authSwitchURL links between the sign-in and register forms, keeping next.
func authSwitchURL(path, next string) string {
	if next == "" || next == "/" {
		return path
	}
	return path + "?next=" + queryEscape(next)
}
