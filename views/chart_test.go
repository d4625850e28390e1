package views

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// hourOf returns 60 minute buckets starting at start with the given created counts
// (the rest zero) and paid counts.
func hourOf(start time.Time, created, paid map[int]int) []MinuteCount {
	out := make([]MinuteCount, 60)
	for i := range out {
		out[i] = MinuteCount{Start: start.Add(time.Duration(i) * time.Minute), Created: created[i], Paid: paid[i]}
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

func TestNewMinuteChart(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 30, 6, 1, 0, 0, time.UTC) // 14:01 in Shanghai

	t.Run("bar heights are proportional to the counts", func(t *testing.T) {
		c := NewMinuteChart(hourOf(start, map[int]int{0: 2, 31: 8, 59: 4}, map[int]int{31: 2}), shanghai)
		if len(c.Bars) != 60 || c.Max != 8 || c.MaxLabel != "8/min" {
			t.Fatalf("%d bars, max %d %q", len(c.Bars), c.Max, c.MaxLabel)
		}
		if !near(c.Bars[31].H, c.PlotH) || !near(c.Bars[31].Y, c.Top) {
			t.Errorf("the peak bar is %.1f high at %.1f, want the whole plot %.1f from %.1f", c.Bars[31].H, c.Bars[31].Y, c.PlotH, c.Top)
		}
		for _, i := range []int{0, 59} {
			b := c.Bars[i]
			if !near(b.H/c.Bars[31].H, float64(b.Created)/8) || !near(b.Y+b.H, c.Base()) {
				t.Errorf("bar %d: height %.2f of %.2f for %d of 8, bottom %.2f", i, b.H, c.Bars[31].H, b.Created, b.Y+b.H)
			}
		}
		if c.Bars[1].H != 0 || !near(c.Bars[31].PaidH, c.PlotH/4) || !near(c.Bars[31].PaidY+c.Bars[31].PaidH, c.Base()) {
			t.Errorf("empty bar %.1f, paid bar %.1f at %.1f", c.Bars[1].H, c.Bars[31].PaidH, c.Bars[31].PaidY)
		}
		for i := 1; i < 60; i++ {
			if c.Bars[i].X <= c.Bars[i-1].X+c.Bars[i-1].W-1e-9 || c.Bars[i].X+c.Bars[i].W > c.Right()+1e-9 {
				t.Fatalf("bar %d overlaps its neighbour or leaves the plot", i)
			}
		}
		if c.Total != 14 || c.Peak != 8 || c.PeakAt != "14:32" {
			t.Errorf("total %d peak %d at %q", c.Total, c.Peak, c.PeakAt)
		}
		if want := "14 orders in the last hour, peak 8/min at 14:32."; c.Summary != want {
			t.Errorf("summary %q, want %q", c.Summary, want)
		}
		var ticks []string
		for _, tk := range c.Ticks {
			ticks = append(ticks, tk.Text)
		}
		if got := strings.Join(ticks, " "); got != "14:15 14:30 14:45 15:00" {
			t.Errorf("ticks %q, want local quarter hours", got)
		}
		if c.Bars[31].Label != "14:32: 8 orders, 2 paid" {
			t.Errorf("bar label %q", c.Bars[31].Label)
		}
	})

	t.Run("an empty hour", func(t *testing.T) {
		c := NewMinuteChart(hourOf(start, nil, nil), time.UTC)
		for i, b := range c.Bars {
			if b.H != 0 || b.PaidH != 0 || !near(b.Y, c.Base()) {
				t.Fatalf("bar %d has height %.1f in an empty hour", i, b.H)
			}
		}
		if c.Summary != "No orders in the last hour." || c.PeakAt != "" || c.MaxLabel != "0/min" {
			t.Errorf("summary %q peak at %q max %q", c.Summary, c.PeakAt, c.MaxLabel)
		}
		if ticks := len(c.Ticks); ticks != 4 || c.Ticks[0].Text != "06:15" {
			t.Errorf("ticks %+v, want UTC quarter hours", c.Ticks)
		}
	})

	t.Run("one bucket", func(t *testing.T) {
		c := NewMinuteChart([]MinuteCount{{Start: start, Created: 3, Paid: 3}}, shanghai)
		if len(c.Bars) != 1 || !near(c.Bars[0].H, c.PlotH) || !near(c.Bars[0].PaidH, c.PlotH) {
			t.Fatalf("bars %+v", c.Bars)
		}
		if b := c.Bars[0]; b.X < c.Left || b.X+b.W > c.Right() || b.W < c.PlotW/2 {
			t.Errorf("the one bar spans %.1f..%.1f of %.1f..%.1f", b.X, b.X+b.W, c.Left, c.Right())
		}
		if len(c.Ticks) != 1 || c.Ticks[0].Text != "14:01" {
			t.Errorf("ticks %+v, want the bucket's time", c.Ticks)
		}
		if c.Summary != "3 orders in the last hour, peak 3/min at 14:01." {
			t.Errorf("summary %q", c.Summary)
		}
	})

	t.Run("no buckets", func(t *testing.T) {
		c := NewMinuteChart(nil, nil)
		if len(c.Bars) != 0 || len(c.Ticks) != 0 || c.Summary == "" {
			t.Errorf("%+v", c)
		}
	})
}

// TestMinuteChartSVG: the rendered SVG is an image labelled by its <title> and <desc>,
// draws one rect per non-empty count, and carries the summary as text.
func TestMinuteChartSVG(t *testing.T) {
	start := time.Date(2026, 11, 30, 14, 1, 0, 0, time.UTC)
	c := NewMinuteChart(hourOf(start, map[int]int{5: 1, 31: 8}, map[int]int{31: 2}), time.UTC)
	var buf bytes.Buffer
	narrow := NewNarrowMinuteChart(hourOf(start, map[int]int{5: 1, 31: 8}, map[int]int{31: 2}), time.UTC)
	if err := MinuteChartFigure(c, narrow).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if n := doc.Find("svg").Length(); n != 2 {
		t.Fatalf("%d charts, want the wide and the narrow one", n)
	}
	for _, ch := range []MinuteChart{c, narrow} {
		svg := doc.Find("svg." + map[bool]string{true: "chart-wide", false: "chart-narrow"}[ch.ID == c.ID])
		if role, _ := svg.Attr("role"); role != "img" {
			t.Errorf("%s: svg role %q", ch.ID, role)
		}
		if by, _ := svg.Attr("aria-labelledby"); by != ch.ID+"-title "+ch.ID+"-desc" {
			t.Errorf("%s: aria-labelledby %q", ch.ID, by)
		}
		if got := svg.Find("#" + ch.ID + "-title").Text(); got != "Orders per minute, last hour" {
			t.Errorf("%s: title %q", ch.ID, got)
		}
		if desc := svg.Find("#" + ch.ID + "-desc").Text(); !strings.Contains(desc, "9 orders in the last hour, peak 8/min at 14:32") || !strings.Contains(desc, "14:01 to 15:01") {
			t.Errorf("%s: desc %q", ch.ID, desc)
		}
		if n, p := svg.Find("rect.bar-created").Length(), svg.Find("rect.bar-paid").Length(); n != 2 || p != 1 {
			t.Errorf("%s: %d created and %d paid rects, want 2 and 1", ch.ID, n, p)
		}
		if h, _ := svg.Find("rect.bar-created").Eq(1).Attr("height"); h != num(ch.PlotH) {
			t.Errorf("%s: peak rect height %s, want %s", ch.ID, h, num(ch.PlotH))
		}
		if !strings.Contains(svg.Text(), "max 8/min") {
			t.Errorf("%s: the max value is not labelled", ch.ID)
		}
	}
	if c.ID == narrow.ID || narrow.Height/narrow.Width <= c.Height/c.Width {
		t.Errorf("the narrow chart %s is not taller in proportion than the wide one %s", narrow.ID, c.ID)
	}
	if got := doc.Find("figcaption .chart-summary").Text(); got != c.Summary {
		t.Errorf("summary %q", got)
	}
}
