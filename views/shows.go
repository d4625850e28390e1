package views

import (
	"net/url"
	"strconv"
	"strings"
	"time"

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
	// URI is the request's path and query, for the language switcher's links ("" reads
	// as Path).
	URI string
	// Lang is the page's language (the zero value reads as English), the same one the
	// render context carries.
	Lang Lang
}

// IsConsole reports whether the page belongs to the staff console (/admin...), which
// is English only and has no language switcher.
func (p Page) IsConsole() bool { return p.Path == "/admin" || strings.HasPrefix(p.Path, "/admin/") }

// here is the page's own address: URI, or Path without it.
func (p Page) here() string {
	if p.URI != "" {
		return p.URI
	}
	return p.Path
}

// LangURL is uri (a local path with an optional query) with its lang parameter set to
// l: the language switcher's link for the page at uri.
func LangURL(uri string, l Lang) string {
	path, query, _ := strings.Cut(uri, "?")
	if path == "" || path[0] != '/' {
		path = "/"
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		q = url.Values{}
	}
	q.Del(LangParam)
	out := path + "?" + LangParam + "=" + url.QueryEscape(string(l))
	if rest := q.Encode(); rest != "" {
		out += "&" + rest
	}
	return out
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

// MinPrice is the lowest price a show sells a seat at ("from" on the home page): of its
// zones' adult prices and its other ticket types' prices in those zones; false when it
// has none.
func MinPrice(s *services.Show) (int64, bool) {
	var lowest int64
	found := false
	take := func(p int64) {
		if !found || p < lowest {
			lowest, found = p, true
		}
	}
	sold := make(map[string]bool, len(s.Zones))
	for _, z := range s.Zones {
		take(z.PriceMinor)
		sold[z.Code] = true
	}
	for _, p := range s.TicketPrices {
		if sold[p.Zone] { // a type is sold only in a zone the show sells
			take(p.PriceMinor)
		}
	}
	return lowest, found
}

// ShowSeatMap is a show's seat map: the show, its hall, each seat's state (seat id ->
// services.State*) and the user holding or owning it (seat id -> user id).
type ShowSeatMap struct {
	Show   *services.Show
	Hall   *services.Hall
	States map[int64]string
	Owners map[int64]int64
	// Partial: States and Owners hold only some seats (a large hall's section page reads
	// its section alone); Owned is then the buyer's seats held or owned in the show.
	Partial bool
	Owned   int
}

// The single-seat rule's values (services.Show.SingleSeatRule; the catalog package's
// Rule* constants), mildest first.
const (
	SeatRuleOff     = "off"
	SeatRuleWarn    = "warn"
	SeatRuleEnforce = "enforce"
)

// ShowPageProps are the props of a show's page with its seat map form.
type ShowPageProps struct {
	Page
	Map  *ShowSeatMap
	Now  time.Time
	Zone *time.Location
	// CinemaName is the show's cinema when the install has more than one; "" otherwise.
	CinemaName string
	HoldFor    time.Duration
	Selected   map[int64]bool // seats to keep checked (still free)
	Error      string         // a message above the seat map
	JustTaken  map[int64]bool // seats the last attempt lost, highlighted
	// Section is the section of a large hall (more than SectionedSeats seats) the page
	// shows, 1-based (HallSections); 0 shows the overview of its sections. A small hall
	// is always shown whole.
	Section int
	// Waitlist is the show's waiting-list panel (nil: none).
	Waitlist *WaitlistView
	// CancelNote is what staff wrote for buyers when they cancelled the show ("" when
	// nothing, or the show is not cancelled).
	CancelNote string
	// Steps is the step-through selection (zone, then row, then seats from lists)
	// shown instead of the seat map; nil shows the map.
	Steps *StepThrough
	// TicketCounts are how many of the Selected seats are of each ticket type other
	// than adult (the seat form's counts, kept when the page comes back); nil: all adult.
	TicketCounts map[string]int
	// Voucher is the code typed in the seat form, kept when the page comes back (a
	// refusal, "Show the total" without JavaScript); VoucherResult what it saves on the
	// Selected seats, or why it cannot be used (nil: not checked).
	Voucher       string
	VoucherResult *VoucherPreviewProps
	// Exchange, when set, is the seat picker of an order changing its seats (the order's
	// seats shown as its own and selectable, the form posting to the exchange).
	Exchange *ExchangeView
}

// Show returns the page's show.
func (p ShowPageProps) Show() *services.Show { return p.Map.Show }

// State returns the show's sale state. For a buyer the waiting list holds seats for
// (an offer to pay) it says so, not that every seat is held or gone.
func (p ShowPageProps) State() ShowState {
	st := mapState(p.Lang, p.Lang.StateOf(p.Map.Show, p.Now, p.Zone), p.Map, p.HoldFor)
	if p.Waitlist.Offered() && (st.Class == "held-out" || st.Class == "sold-out") {
		l := p.Lang
		return ShowState{Label: l.T("state.offered", nil), Class: "offered",
			Reason: l.T("state.offered_reason", D{"Seats": p.Waitlist.OfferSeats(), "Time": l.DayTime(p.Waitlist.Offer.ExpiresAt, p.Zone)})}
	}
	return st
}

// Owned is how many seats of this show the signed-in buyer already holds or owns
// (pending or paid orders): they count against the purchase limit.
func (p ShowPageProps) Owned() int {
	if p.User == nil {
		return 0
	}
	if p.Map.Partial {
		return p.Map.Owned
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
	l, limit := p.Lang, p.Map.Show.PurchaseLimit
	if owned := p.Owned(); owned > 0 {
		return l.N("limit.text_owned", limit, D{"Owned": owned, "Left": p.LimitLeft()})
	}
	return l.N("limit.text", limit, nil)
}

// RulesText is the show's booking rules under its prices: the purchase limit and, while
// the show can still be booked, how long a buyer has to pay.
func (p ShowPageProps) RulesText(st ShowState) string {
	l := p.Lang
	hold := ""
	if p.HoldFor > 0 && st.Class != "cancelled" && st.Class != "closed" {
		hold = l.T("show.hold_for", D{"Minutes": l.Minutes(p.HoldFor)})
	}
	return l.Sentences(l.N("show.limit", p.Map.Show.PurchaseLimit, nil), hold)
}

// SelectedCells are the ticked seats, in the hall's order, for the summary: each at
// the price of the ticket type TicketCounts deal it (Show.DealTicketCounts), its code
// in Ticket unless adult.
func (p ShowPageProps) SelectedCells() []SeatCell {
	cells, _ := p.selectedTickets()
	return cells
}

// selectedTickets are SelectedCells, and whether TicketCounts fit them (no more
// tickets than seats, every type dealt; otherwise the cells not dealt stay adult).
func (p ShowPageProps) selectedTickets() ([]SeatCell, bool) {
	var out []SeatCell
	m := newCellMaker(p)
	for _, i := range p.selectedIndexes() {
		st := &p.Map.Hall.Seats[i]
		if c := m.cell(st, st.Row, st.Col); c.Checked {
			out = append(out, c)
		}
	}
	if p.Exchange != nil {
		p.Exchange.ExchangePrices(out, p.Show().Currency)
		return out, true
	}
	if len(p.TicketCounts) == 0 {
		return out, true
	}
	zones := make([]string, len(out))
	asked := 0
	for i, c := range out {
		zones[i] = c.ZoneCode
	}
	for _, n := range p.TicketCounts {
		asked += n
	}
	show := p.Show()
	types, _, short := show.DealTicketCounts(zones, p.TicketCounts)
	for i, t := range types {
		if t == services.TicketAdult {
			continue
		}
		price, _ := show.TicketPrice(t, zones[i])
		out[i].PriceMinor, out[i].Price = price, Money(price, show.Currency)
		out[i].Ticket = t
	}
	return out, short == 0 && asked <= len(out)
}

// selectedIndexes are the indexes in the hall's Seats of the Selected seats, in the
// hall's order.
func (p ShowPageProps) selectedIndexes() []int {
	if len(p.Selected) == 0 {
		return nil
	}
	var out []int
	for i, st := range p.Map.Hall.Seats {
		if p.Selected[st.ID] {
			out = append(out, i)
		}
	}
	return out
}

// SelectedTotal is the sum of the ticked seats' prices at their ticket types
// (SelectedCells), formatted; "—" when the ticket counts do not fit the seats.
func (p ShowPageProps) SelectedTotal() string {
	cells, fits := p.selectedTickets()
	if !fits {
		return "—"
	}
	var sum int64
	for _, c := range cells {
		sum += c.PriceMinor
	}
	return Money(sum, p.Map.Show.Currency)
}

// CheckedVoucher is the voucher check that prices the selection summary (the server's
// "Show the total" without JavaScript): VoucherResult when it applies to ticked seats
// whose counts fit, nil otherwise (no code, a problem, nothing ticked).
func (p ShowPageProps) CheckedVoucher() *VoucherPreviewProps {
	if p.VoucherResult == nil || p.VoucherResult.Problem != "" || p.VoucherResult.Total == "" || len(p.Selected) == 0 || !p.TicketsFit() {
		return nil
	}
	return p.VoucherResult
}

// TicketsFit reports whether the ticket counts fit the ticked seats (see SelectedTotal).
func (p ShowPageProps) TicketsFit() bool {
	_, fits := p.selectedTickets()
	return fits
}

// ShowURL is the show's page.
func ShowURL(id int64) string { return "/shows/" + i64(id) }

// MovieShowtimesURL is a movie's public page with its showtimes.
func MovieShowtimesURL(id int64) string { return "/movies/" + i64(id) }

// LiveURL is a show's live seat-change stream (Server-Sent Events) that keeps its open
// seat map current.
func LiveURL(id int64) string { return "/shows/" + i64(id) + "/live" }

// BookURL is where the seat form posts.
func BookURL(id int64) string { return "/shows/" + i64(id) + "/book" }

// BestURL is where the best-available form posts.
func BestURL(id int64) string { return "/shows/" + i64(id) + "/best" }

// ZoneSlots maps a show's zone codes to their colour slot (0..5): standard, premium and
// vip always take slots 0, 1 and 2 (as in the hall editor), other zones the next free
// slots in the show's order, so the legend, the seats and the console agree.
func ZoneSlots(s *services.Show) map[string]int {
	m := make(map[string]int, len(s.Zones))
	used := map[int]bool{}
	for _, z := range s.Zones { // the layout's zones keep their colour everywhere
		if slot, ok := fixedZoneSlots[z.Code]; ok {
			m[z.Code], used[slot] = slot, true
		}
	}
	next := 0
	for _, z := range s.Zones {
		if _, ok := m[z.Code]; ok {
			continue
		}
		for used[next%6] && len(used) < 6 {
			next++
		}
		m[z.Code], used[next%6] = next%6, true
	}
	return m
}

// fixedZoneSlots are the colours of the zones the hall layout editor names (S, P, V),
// the same in the console and on the seat map.
var fixedZoneSlots = map[string]int{"standard": 0, "premium": 1, "vip": 2}

// ZoneClass is the colour class of a zone slot.
func ZoneClass(slot int) string { return "zone-" + strconv.Itoa(slot) }

// authSwitchURL links between the sign-in and register forms, keeping next.
func authSwitchURL(path, next string) string {
	if next == "" || next == "/" {
		return path
	}
	return path + "?next=" + queryEscape(next)
}
