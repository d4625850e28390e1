package views

import (
	"strconv"
	"time"
)

// SalesChart is a sales report's bar chart as SVG geometry (viewBox units, as
// MinuteChart): one bar per row of the chart's currency, its gross (list prices) with the
// net inside it (a negative net, a day of refunds only, draws no net bar), the first
// rows' keys on the axis and the scale's top.
type SalesChart struct {
	ID                      string
	Width, Height           float64
	Left, Top, PlotW, PlotH float64
	Bars                    []SalesBar
	Ticks                   []ChartTick
	MaxLabel                string
	Currency                string
	Title, Desc, Summary    string
}

// SalesBar is one row: the gross bar (X, Y, W, H), the net bar (NetY, NetH) and the text
// a pointer or a screen reader gets.
type SalesBar struct {
	X, Y, W, H float64
	NetY, NetH float64
	Label      string
}

// SalesChartMaxBars is the most rows a chart draws; a longer report is a table only.
const SalesChartMaxBars = 400

// NewSalesChart lays out the rows of currency (in report order) as bars proportional to
// their gross, with ticks of at most 8 keys (4 on the narrow chart) spread along the axis (a day as "24 Oct").
// by names the grouping for the title.
func NewSalesChart(rows []ReportRow, currency, by string) SalesChart {
	return newSalesChart("sales-chart-"+currency, rows, currency, by, chartW, chartH)
}

// NewNarrowSalesChart is NewSalesChart drawn taller than wide, for narrow screens (as
// NewNarrowMinuteChart).
func NewNarrowSalesChart(rows []ReportRow, currency, by string) SalesChart {
	return newSalesChart("sales-chart-narrow-"+currency, rows, currency, by, chartNarrowW, chartNarrowH)
}

func newSalesChart(id string, rows []ReportRow, currency, by string, w, h float64) SalesChart {
	c := SalesChart{ID: id, Width: w, Height: h, Left: chartLeft + 40, Top: chartTop,
		PlotW: w - chartLeft - 40 - chartRight, PlotH: h - chartTop - chartBottom, Currency: currency}
	var mine []ReportRow
	var maxG, gross, net int64
	for _, r := range rows {
		if r.Currency == currency {
			mine = append(mine, r)
			maxG = max(maxG, r.GrossMinor)
			gross += r.GrossMinor
			net += r.NetMinor
		}
	}
	c.MaxLabel = Money(maxG, currency)
	c.Title = "Gross and net by " + ByLabel(by) + " (" + currency + ")"
	c.Summary = strconv.Itoa(len(mine)) + " rows: gross " + Money(gross, currency) + ", net " + Money(net, currency) + "."
	c.Desc = "Bar chart of each row's gross with its net inside it. " + c.Summary
	scale := float64(max(maxG, 1))
	slot := c.PlotW / float64(max(len(mine), 1))
	barW := slot * (1 - chartGap)
	base := c.Top + c.PlotH
	ticks := 8
	if w < chartW {
		ticks = 4
	}
	every := max(1, (len(mine)+ticks-1)/ticks)
	for i, r := range mine {
		x := c.Left + float64(i)*slot + (slot-barW)/2
		h := c.PlotH * float64(r.GrossMinor) / scale
		nh := c.PlotH * float64(max(r.NetMinor, 0)) / scale
		c.Bars = append(c.Bars, SalesBar{X: x, Y: base - h, W: barW, H: h, NetY: base - nh, NetH: nh,
			Label: r.Label + ": gross " + Money(r.GrossMinor, currency) + ", net " + Money(r.NetMinor, currency)})
		if i%every == 0 {
			c.Ticks = append(c.Ticks, ChartTick{X: x + barW/2, Text: tickText(by, r)})
		}
	}
	return c
}

// tickText is a row's axis label: a day as "24 Oct", else its label cut to 10 characters.
func tickText(by string, r ReportRow) string {
	if by == "day" {
		if d, err := time.Parse(time.DateOnly, r.Key); err == nil {
			return d.Format("2 Jan")
		}
	}
	s := []rune(r.Label)
	if len(s) > 10 {
		return string(s[:9]) + "…"
	}
	return r.Label
}

// Base is the y of the axis.
func (c SalesChart) Base() float64 { return c.Top + c.PlotH }

// Right is the x where the plot ends.
func (c SalesChart) Right() float64 { return c.Left + c.PlotW }

// ViewBox is the SVG viewBox attribute.
func (c SalesChart) ViewBox() string { return "0 0 " + num(c.Width) + " " + num(c.Height) }
