package handlers

import (
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services/reports"
	"seatflow/services/staff"
	"seatflow/views"
)

// reportsPage renders the sales report the query asks for (from, to, by, cinema_id); a
// visit without dates shows the last seven local days by day (the page zone's:
// staff.PageZone). A refused query re-renders the form with why (400, 403, 404).
func (d *Deps) reportsPage(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	sites, err := d.Cinemas.Cinemas(ctx)
	if err != nil {
		return errorPage(c, err)
	}
	scope := cinemaScope(c)
	p := views.ReportsPageProps{Page: page(c, "Reports"), From: utils.CopyString(c.Query("from")), To: utils.CopyString(c.Query("to")),
		By: utils.CopyString(c.Query("by", reports.ByDay)), CinemaID: utils.CopyString(c.Query("cinema_id"))}
	for _, cin := range sites {
		if scope.Allows(cin.ID) {
			p.Sites = append(p.Sites, cin)
		}
	}
	if p.From == "" && p.To == "" {
		today := d.now().In(staff.PageZone(sites, scope, time.UTC))
		p.To = today.Format(time.DateOnly)
		p.From = today.AddDate(0, 0, -6).Format(time.DateOnly)
	}
	status := fiber.StatusOK
	if err := d.fillReport(c, &p); err != nil {
		st, se := pageError(c, err)
		status, p.Error = st, se.Message
	}
	return render(c, status, views.ReportsPage(p))
}

// fillReport reads the report p's form asks for into p: its rows (the first
// views.ReportTableMaxRows), totals and a chart per currency (reports of at most
// views.SalesChartMaxBars rows). Errors: those of reports.Reports.Plan and Stream, and
// INVALID_REQUEST for a cinema_id that is not an id.
func (d *Deps) fillReport(c *fiber.Ctx, p *views.ReportsPageProps) error {
	q := reports.Query{From: p.From, To: p.To, By: p.By}
	if p.CinemaID != "" {
		id, ok := parseID(p.CinemaID)
		if !ok {
			return invalid("cinema_id must be a cinema's id")
		}
		q.CinemaID = id
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	plan, err := d.Reports.Plan(ctx, q)
	if err != nil {
		return err
	}
	p.By = plan.By
	var currencies []string
	var chartRows []views.ReportRow
	totals, err := d.Reports.Stream(ctx, plan, func(r reports.Row) error {
		v := views.ReportRow{Key: r.Key, Label: r.Label, Currency: r.Currency, Orders: r.Orders, Seats: r.Seats,
			GrossMinor: r.GrossMinor, DiscountMinor: r.DiscountMinor, RefundedMinor: r.RefundedMinor, NetMinor: r.NetMinor}
		if p.RowCount++; len(p.Rows) < views.ReportTableMaxRows {
			p.Rows = append(p.Rows, v)
		}
		if p.RowCount <= views.SalesChartMaxBars {
			chartRows = append(chartRows, v)
		}
		if !slices.Contains(currencies, r.Currency) {
			currencies = append(currencies, r.Currency)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, t := range totals {
		p.Totals = append(p.Totals, views.ReportRow{Currency: t.Currency, Orders: t.Orders, Seats: t.Seats, GrossMinor: t.GrossMinor,
			DiscountMinor: t.DiscountMinor, RefundedMinor: t.RefundedMinor, NetMinor: t.NetMinor})
	}
	if p.RowCount <= views.SalesChartMaxBars {
		for _, cur := range currencies {
			p.Charts = append(p.Charts, views.NewSalesChart(chartRows, cur, p.By))
			p.Narrow = append(p.Narrow, views.NewNarrowSalesChart(chartRows, cur, p.By))
		}
	}
	return nil
}

// reportsCSV answers the console's report as CSV (GET /admin/reports/sales.csv, the
// API's query): the same file as GET /api/v1/admin/reports/sales?format=csv. A refused
// query gets the error page (400, 403, 404).
func (d *Deps) reportsCSV(c *fiber.Ctx) error {
	q, _, err := salesQuery(c)
	if err != nil {
		return errorPage(c, err)
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	plan, err := d.Reports.Plan(ctx, q)
	if err != nil {
		return errorPage(c, err)
	}
	d.streamSalesCSV(c, plan)
	return nil
}
