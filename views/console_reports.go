package views

import (
	"net/url"
	"strings"

	"seatflow/services"
)

// ReportsURL is the console's sales report page.
const ReportsURL = "/admin/reports"

// ReportRow is one line of a sales report (reports.Row): amounts in minor units of Currency.
type ReportRow struct {
	Key, Label, Currency string
	Orders, Seats        int64
	GrossMinor           int64
	DiscountMinor        int64
	RefundedMinor        int64
	NetMinor             int64
}

// ReportsPageProps is the sales report page: the form's values (From, To, By, CinemaID
// as typed), the cinemas the user may pick, the rows (at most ReportTableMaxRows shown;
// RowCount is all of them) and the totals per currency (Key empty), or Error.
type ReportsPageProps struct {
	Page
	From, To, By, CinemaID string
	Sites                  []services.Cinema
	Error                  string
	Rows                   []ReportRow
	RowCount               int
	Totals                 []ReportRow
	// Charts are a chart per currency, each wide and narrow (CSS shows one by screen width).
	Charts []SalesChart
	Narrow []SalesChart
}

// ReportTableMaxRows is the most rows the page's table lists; the CSV has them all.
const ReportTableMaxRows = 1000

// ReportBys are the groupings the form offers, in order.
var ReportBys = []string{"day", "show", "movie", "ticket_type", "channel"}

// ByLabel is a grouping's name: "day", "show", "movie", "ticket type", "channel".
func ByLabel(by string) string {
	if by == "ticket_type" {
		return "ticket type"
	}
	return by
}

// ByTitle is ByLabel with a capital: a table's first column heading.
func ByTitle(by string) string {
	l := ByLabel(by)
	if l == "" {
		return l
	}
	return strings.ToUpper(l[:1]) + l[1:]
}

// CSVURL is the page's report as a CSV download (the console's route).
func (p ReportsPageProps) CSVURL() string {
	v := url.Values{"from": {p.From}, "to": {p.To}, "by": {p.By}}
	if p.CinemaID != "" {
		v.Set("cinema_id", p.CinemaID)
	}
	return ReportsURL + "/sales.csv?" + v.Encode()
}
