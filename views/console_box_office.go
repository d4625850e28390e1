package views

import (
	"strconv"
	"time"

	"seatflow/services"
)

// CounterSeat is one seat of the counter's seat map: Free when it can be sold now.
type CounterSeat struct {
	ID             int64
	Label, Zone    string
	Row, Col       int
	Free, Sellable bool
}

// CounterForm is what the counter's sale form was sent with (strings as typed).
type CounterForm struct {
	SeatIDs  map[int64]bool
	Mode     string // seats | best
	Zone     string
	Quantity string
	Types    map[string]string // ticket type code -> count typed
	Voucher  string
	Tender   string
	Given    string
	Email    string
	Lang     string
}

// CounterQuote is the priced sale waiting for its money: the total (minor units) and a
// line per seat or ticket.
type CounterQuote struct {
	TotalMinor, DiscountMinor int64
	Currency                  string
	Lines                     []string
}

// CounterDone is a finished counter sale: its order, total, tender, cash given, change
// and the address of its printed tickets.
type CounterDone struct {
	OrderNo                            string
	Seats                              string
	TotalMinor, TenderedMinor, ChangeM int64
	Currency, Tender, TicketPDF        string
	InShift                            bool
}

// ShiftRow is a box-office shift with its cash-up for the console (money in minor
// units of Currency; Counted and Difference nil while open).
type ShiftRow struct {
	ID                                    int64
	Staff, Cinema, Currency, Note         string // Note: written at the opening
	CloseNote                             string // written at the closing
	OpenedAt                              time.Time
	ClosedAt                              *time.Time
	ClosedBy                              string
	Float, CashSalesMinor, CardSalesMinor int64
	CashSales, CardSales                  int
	CashRefunds, CardRefunds              int
	CashRefundsMinor, CardRefundsMinor    int64
	Expected, CardNet                     int64
	Counted, Difference                   *int64
}

// BoxOfficeProps are the props of the box office's show list: the shows the counter
// sells now (today's first, each in its cinema's local day), the staff member's open
// shift (nil: none) and the cinema zone for times.
type BoxOfficeProps struct {
	Page
	Shows []*services.Show
	Shift *ShiftRow
	Zone  *time.Location
	Now   time.Time
}

// BoxOfficeSaleProps are the props of the counter screen of one show.
type BoxOfficeSaleProps struct {
	Page
	Show    *services.Show
	Zone    *time.Location
	Rows    int
	Cols    int
	Seats   []CounterSeat
	Zones   []services.Zone
	Types   []TicketChoice
	Form    CounterForm
	Quote   *CounterQuote
	Done    *CounterDone
	Shift   *ShiftRow
	Error   string
	Refresh int // seconds between refreshes of the seat map (0: none)
}

// ShiftsProps are the props of the shifts page: the signed-in staff member's open shift
// (nil: the open form), the cinemas they may open one at, and the shifts listed.
type ShiftsProps struct {
	Page
	Current *ShiftRow
	Cinemas []services.Cinema
	List    []ShiftRow
	Zone    *time.Location
	Error   string
	Float   string // as typed
	Note    string // the opening note, as typed
}

// ShiftProps are the props of one shift's cash-up page.
type ShiftProps struct {
	Page
	Shift   ShiftRow
	Zone    *time.Location
	Error   string
	Counted string
	Mine    bool
}

// BoxOfficeShowURL is the counter screen of show id.
func BoxOfficeShowURL(id int64) string {
	return "/admin/shows/" + strconv.FormatInt(id, 10) + "/box-office"
}

// ShiftURL is the cash-up page of shift id.
func ShiftURL(id int64) string { return "/admin/shifts/" + strconv.FormatInt(id, 10) }

// seatStyle places a counter seat in the grid.
func seatStyle(s CounterSeat) string {
	return "grid-row:" + strconv.Itoa(s.Row) + ";grid-column:" + strconv.Itoa(s.Col)
}

// gridStyle sizes the counter's seat grid.
func gridStyle(rows, cols int) string {
	return "grid-template-columns:repeat(" + strconv.Itoa(cols) + ",minmax(2.1rem,1fr));grid-template-rows:repeat(" + strconv.Itoa(rows) + ",2.1rem)"
}

// cashDiffClass is the style of a cash-up difference: short (negative), over or exact.
func cashDiffClass(d int64) string {
	switch {
	case d < 0:
		return "cash-diff cash-short"
	case d > 0:
		return "cash-diff cash-over"
	}
	return "cash-diff cash-exact"
}

// diffWords says a difference in words.
func diffWords(d int64, currency string) string {
	switch {
	case d < 0:
		return Money(-d, currency) + " short"
	case d > 0:
		return Money(d, currency) + " over"
	}
	return "exact"
}

// MajorAmount writes minor units as typed in a form ("200.00").
func MajorAmount(minor int64, currency string) string {
	digits := MinorDigits(currency)
	if digits == 0 {
		return strconv.FormatInt(minor, 10)
	}
	s := strconv.FormatInt(minor, 10)
	for len(s) <= digits {
		s = "0" + s
	}
	return s[:len(s)-digits] + "." + s[len(s)-digits:]
}

// moneyPrefix is what Money writes before an amount of currency ("¥").
func moneyPrefix(currency string) string {
	p, _ := MoneyParts(currency)
	return p
}

// tenderName is a tender as the counter says it ("Cash", "Card").
func tenderName(t string) string {
	switch t {
	case "cash":
		return "Cash"
	case "card":
		return "Card"
	}
	return t
}

// countOf is n things ("1 order", "2 orders").
func countOf(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}
