package handlers

import (
	"bufio"
	"context"
	"encoding/csv"
	"log/slog"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"
	"github.com/valyala/fasthttp"

	"seatflow/services/reports"
)

// ReportService is what the handlers need of reports.Reports: a report's plan (checked
// against the caller's cinemas) and its rows as they are read.
type ReportService interface {
	Plan(ctx context.Context, q reports.Query) (*reports.Plan, error)
	Stream(ctx context.Context, plan *reports.Plan, emit func(reports.Row) error) ([]reports.Totals, error)
}

// salesCSVHeader is the header row of a sales report's CSV: the JSON rows' fields.
var salesCSVHeader = []string{"key", "label", "orders", "seats", "gross_minor", "discount_minor", "refunded_minor", "net_minor", "currency"}

// csvFlushEvery is how many CSV rows are written between flushes of the response.
const csvFlushEvery = 500

// salesQuery parses a sales report's query string: from, to, by, cinema_id, format
// (json or csv). Errors: INVALID_REQUEST (a cinema_id not a positive id, an unknown format).
func salesQuery(c *fiber.Ctx) (reports.Query, string, error) {
	q := reports.Query{From: utils.CopyString(c.Query("from")), To: utils.CopyString(c.Query("to")), By: utils.CopyString(c.Query("by"))}
	if s := c.Query("cinema_id"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			return q, "", invalid("cinema_id must be a cinema's id")
		}
		q.CinemaID = n
	}
	format := c.Query("format", "json")
	if format != "json" && format != "csv" {
		return q, "", invalid("format must be json or csv")
	}
	return q, format, nil
}

// GET /api/v1/admin/reports/sales?from=YYYY-MM-DD&to=YYYY-MM-DD&by=day|show|movie|ticket_type|channel
// [&cinema_id=][&format=csv] answers the sales report (API.md "Reports"): 200
// {"from","to","by","cinema_id","rows":[R],"totals":T,"totals_by_currency":[T]}, or
// text/csv (a header row, the rows, then a totals line per currency with an empty key),
// streamed as it is read. Errors: 400 (by, dates, range, format, cinema_id), 403
// (another cinema's), 404 (no such cinema), 503.
func (d *Deps) apiAdminSalesReport(c *fiber.Ctx) error {
	q, format, err := salesQuery(c)
	if err != nil {
		return err
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	plan, err := d.Reports.Plan(ctx, q)
	if err != nil {
		return err
	}
	if format == "csv" {
		d.streamSalesCSV(c, plan)
		return nil
	}
	out := salesReportJSON{From: plan.From, To: plan.To, By: plan.By, Rows: []salesRowJSON{}, TotalsByCurrency: []salesTotalsJSON{}}
	if plan.CinemaID != 0 {
		s := id(plan.CinemaID)
		out.CinemaID = &s
	}
	rctx, rcancel := context.WithTimeout(c.UserContext(), reports.ReadTimeout)
	defer rcancel()
	totals, err := d.Reports.Stream(rctx, plan, func(r reports.Row) error {
		out.Rows = append(out.Rows, salesRowJSON{Key: r.Key, Label: r.Label, Orders: r.Orders, Seats: r.Seats,
			GrossMinor: r.GrossMinor, DiscountMinor: r.DiscountMinor, RefundedMinor: r.RefundedMinor, NetMinor: r.NetMinor, Currency: r.Currency})
		return nil
	})
	if err != nil {
		return err
	}
	out.Totals, out.TotalsByCurrency = salesTotalsOut(totals, plan.Currencies)
	return c.JSON(out)
}

// salesTotalsOut is the report's "totals" and "totals_by_currency": one currency (or
// none read, the cinemas sharing one) gives its sums; several give the orders and seats
// of all with the money fields and currency null (see totals_by_currency).
func salesTotalsOut(totals []reports.Totals, currencies []string) (salesTotalsJSON, []salesTotalsJSON) {
	by := make([]salesTotalsJSON, 0, len(totals))
	for _, t := range totals {
		cur := t.Currency
		by = append(by, salesTotalsJSON{Orders: t.Orders, Seats: t.Seats, GrossMinor: &t.GrossMinor, DiscountMinor: &t.DiscountMinor,
			RefundedMinor: &t.RefundedMinor, NetMinor: &t.NetMinor, Currency: &cur})
	}
	switch {
	case len(by) == 1:
		return by[0], by
	case len(by) == 0:
		var zero int64
		out := salesTotalsJSON{GrossMinor: &zero, DiscountMinor: &zero, RefundedMinor: &zero, NetMinor: &zero}
		if len(currencies) == 1 {
			out.Currency = &currencies[0]
		}
		return out, by
	}
	var out salesTotalsJSON
	for _, t := range by {
		out.Orders += t.Orders
		out.Seats += t.Seats
	}
	return out, by
}

// salesCSVName is the report's file name: sales-<by>-<from>-<to>[-cinema-<id>].csv.
func salesCSVName(p *reports.Plan) string {
	name := "sales-" + p.By + "-" + p.From + "-" + p.To
	if p.CinemaID != 0 {
		name += "-cinema-" + id(p.CinemaID)
	}
	return csvFileName(name) + ".csv"
}

// streamSalesCSV answers plan's report as CSV, each row written as it is read and the
// response flushed every csvFlushEvery rows; a read that fails after the first bytes
// ends the file with a line whose key is "error".
func (d *Deps) streamSalesCSV(c *fiber.Ctx, plan *reports.Plan) {
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+salesCSVName(plan)+`"`)
	c.Set(fiber.HeaderCacheControl, "no-store")
	rs := d.Reports
	// the stream outlives the handler and its Fiber context: nothing below may touch c
	c.Context().SetBodyStreamWriter(fasthttp.StreamWriter(func(w *bufio.Writer) {
		if err := writeSalesCSV(context.Background(), w, rs, plan); err != nil {
			slog.Warn("sales report: the CSV stream ended early", "err", err)
		}
	}))
}

// writeSalesCSV writes plan's report as CSV to w: the header, the rows as Stream reads
// them, then a totals line per currency (key "", label "Total"). A failed read ends it
// with a line whose key is "error" and whose label tells why; it is returned.
func writeSalesCSV(ctx context.Context, w *bufio.Writer, rs ReportService, plan *reports.Plan) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(salesCSVHeader)
	n := 0
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	totals, err := rs.Stream(ctx, plan, func(r reports.Row) error {
		_ = cw.Write([]string{r.Key, csvSafe(r.Label), i64(r.Orders), i64(r.Seats), i64(r.GrossMinor), i64(r.DiscountMinor),
			i64(r.RefundedMinor), i64(r.NetMinor), r.Currency})
		if n++; n%csvFlushEvery == 0 {
			cw.Flush()
			if err := cw.Error(); err != nil {
				return err
			}
			return w.Flush()
		}
		return nil
	})
	if err != nil {
		_ = cw.Write([]string{"error", err.Error(), "", "", "", "", "", "", ""})
	}
	for _, t := range totals {
		_ = cw.Write([]string{"", "Total", i64(t.Orders), i64(t.Seats), i64(t.GrossMinor), i64(t.DiscountMinor),
			i64(t.RefundedMinor), i64(t.NetMinor), t.Currency})
	}
	cw.Flush()
	if err != nil {
		return err
	}
	if err := cw.Error(); err != nil {
		return err
	}
	return w.Flush()
}

// csvSafe keeps a spreadsheet from reading a label as a formula: one starting with =, +,
// -, @, a tab or a carriage return gets a leading apostrophe.
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

type salesReportJSON struct {
	From             string            `json:"from"`
	To               string            `json:"to"`
	By               string            `json:"by"`
	CinemaID         *string           `json:"cinema_id"`
	Rows             []salesRowJSON    `json:"rows"`
	Totals           salesTotalsJSON   `json:"totals"`
	TotalsByCurrency []salesTotalsJSON `json:"totals_by_currency"`
}

type salesRowJSON struct {
	Key           string `json:"key"`
	Label         string `json:"label"`
	Orders        int64  `json:"orders"`
	Seats         int64  `json:"seats"`
	GrossMinor    int64  `json:"gross_minor"`
	DiscountMinor int64  `json:"discount_minor"`
	RefundedMinor int64  `json:"refunded_minor"`
	NetMinor      int64  `json:"net_minor"`
	Currency      string `json:"currency"`
}

type salesTotalsJSON struct {
	Orders        int64   `json:"orders"`
	Seats         int64   `json:"seats"`
	GrossMinor    *int64  `json:"gross_minor"`
	DiscountMinor *int64  `json:"discount_minor"`
	RefundedMinor *int64  `json:"refunded_minor"`
	NetMinor      *int64  `json:"net_minor"`
	Currency      *string `json:"currency"`
}
