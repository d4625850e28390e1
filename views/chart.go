package views

import (
	"strconv"
	"time"
)

// MinuteChart is the orders-per-minute bar chart as SVG geometry, in the units of its
// viewBox (Width x Height): one bar per minute (orders created), a darker bar inside it
// for the orders paid in that minute, the time axis in the cinema's zone and the scale.
type MinuteChart struct {
	// ID prefixes the ids of the chart's <title> and <desc>; unique per page.
	ID            string
	Width, Height float64
	// the plot area inside the axes
	Left, Top, PlotW, PlotH float64
	Bars                    []ChartBar
	Ticks                   []ChartTick
	Max                     int    // the largest per-minute count (created or paid), the top of the scale
	MaxLabel                string // "12/min"
	Total, Paid             int    // orders created and paid in the hour
	Peak                    int    // the largest created count of one minute
	PeakAt                  string // its local time "14:32"; "" when Peak is 0
	Title, Desc, Summary    string
}

// ChartBar is one minute: the created bar (X, Y, W, H) and the paid bar (PaidY, PaidH)
// on the same X, and the text a pointer or a screen reader gets.
type ChartBar struct {
	X, Y, W, H   float64
	PaidY, PaidH float64
	Created      int
	Paid         int
	Label        string // "14:32: 3 orders, 2 paid"
}

// ChartTick is a label of the time axis at X: a local time "14:15".
type ChartTick struct {
	X    float64
	Text string
}

// chart geometry (viewBox units): the wide chart is chartW x chartH, the narrow one
// (for phones, same margins) chartNarrowW x chartNarrowH
const (
	chartW       = 760
	chartH       = 220
	chartNarrowW = 400
	chartNarrowH = 260
	chartLeft    = 30
	chartRight   = 12
	chartTop     = 30
	chartBottom  = 34
	chartGap     = 0.2 // share of a slot left between bars
)

// NewMinuteChart lays out buckets (oldest first, one per minute, as
// DashboardSnapshot.Minutes holds them) as a bar chart whose heights are
// proportional to the counts, with the time axis in loc (UTC when nil): a tick every
// 15 minutes of local time that falls in the range, or the first bucket's time when
// none does. An empty hour draws no bars above the axis.
func NewMinuteChart(buckets []MinuteCount, loc *time.Location) MinuteChart {
	return newMinuteChart("minute-chart", buckets, loc, chartW, chartH)
}

// NewNarrowMinuteChart is NewMinuteChart drawn taller than wide screens' chart, for
// narrow screens.
func NewNarrowMinuteChart(buckets []MinuteCount, loc *time.Location) MinuteChart {
	return newMinuteChart("minute-chart-narrow", buckets, loc, chartNarrowW, chartNarrowH)
}

func newMinuteChart(id string, buckets []MinuteCount, loc *time.Location, w, h float64) MinuteChart {
	c := MinuteChart{ID: id, Width: w, Height: h, Left: chartLeft, Top: chartTop,
		PlotW: w - chartLeft - chartRight, PlotH: h - chartTop - chartBottom}
	peakIdx := -1
	for i, b := range buckets {
		c.Total += b.Created
		c.Paid += b.Paid
		c.Max = max(c.Max, b.Created, b.Paid)
		if b.Created > c.Peak {
			c.Peak, peakIdx = b.Created, i
		}
	}
	scale := max(c.Max, 1)
	c.MaxLabel = strconv.Itoa(c.Max) + "/min"
	slot := c.PlotW / float64(max(len(buckets), 1))
	barW := slot * (1 - chartGap)
	base := c.Top + c.PlotH
	for i, b := range buckets {
		x := c.Left + float64(i)*slot + (slot-barW)/2
		h := c.PlotH * float64(b.Created) / float64(scale)
		ph := c.PlotH * float64(b.Paid) / float64(scale)
		at := ClockTime(b.Start, loc)
		c.Bars = append(c.Bars, ChartBar{X: x, Y: base - h, W: barW, H: h, PaidY: base - ph, PaidH: ph,
			Created: b.Created, Paid: b.Paid,
			Label: at + ": " + Plural(b.Created, "order", "orders") + ", " + strconv.Itoa(b.Paid) + " paid"})
		if inZone(b.Start, loc).Minute()%15 == 0 {
			c.Ticks = append(c.Ticks, ChartTick{X: x + barW/2, Text: at})
		}
	}
	if len(c.Ticks) == 0 && len(buckets) > 0 {
		c.Ticks = append(c.Ticks, ChartTick{X: c.Bars[0].X + barW/2, Text: ClockTime(buckets[0].Start, loc)})
	}
	c.Title = "Orders per minute, last hour"
	switch {
	case len(buckets) == 0:
		c.Summary = "No order figures for the last hour."
	case c.Total == 0:
		c.Summary = "No orders in the last hour."
	default:
		c.PeakAt = ClockTime(buckets[peakIdx].Start, loc)
		c.Summary = Plural(c.Total, "order", "orders") + " in the last hour, peak " +
			strconv.Itoa(c.Peak) + "/min at " + c.PeakAt + "."
	}
	if len(buckets) > 0 {
		c.Desc = "Bar chart of orders created per minute from " + ClockTime(buckets[0].Start, loc) + " to " +
			ClockTime(buckets[len(buckets)-1].Start.Add(time.Minute), loc) + " (cinema time), " +
			strconv.Itoa(c.Paid) + " of them paid. " + c.Summary
	} else {
		c.Desc = c.Summary
	}
	return c
}

// Base is the y of the time axis.
func (c MinuteChart) Base() float64 { return c.Top + c.PlotH }

// Right is the x where the plot ends.
func (c MinuteChart) Right() float64 { return c.Left + c.PlotW }

// ViewBox is the SVG viewBox attribute.
func (c MinuteChart) ViewBox() string { return "0 0 " + num(c.Width) + " " + num(c.Height) }

// num formats an SVG coordinate with one decimal.
func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
