package loadtest

import (
	"fmt"
	"image/color"
	"path/filepath"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// plotName is the file name of a phase's plot (kind "throughput" or "latency").
func plotName(phase, kind string) string { return phase + "-" + kind + ".png" }

// WritePlots writes, for every ceiling and scenario, its throughput per second over
// time and its latency distribution (CDF, log scale), and one CDF of all phases.
func (rep *Report) WritePlots(dir string) error {
	all := append(append([]*Result{}, rep.Ceilings...), rep.Scenarios...)
	for _, r := range all {
		if err := throughputPlot(r, filepath.Join(dir, plotName(r.Name, "throughput"))); err != nil {
			return err
		}
		if err := latencyPlot(fmt.Sprintf("%s: latency distribution", r.Name), []*Result{r}, filepath.Join(dir, plotName(r.Name, "latency"))); err != nil {
			return err
		}
	}
	return latencyPlot("latency distribution of every phase", all, filepath.Join(dir, "latency.png"))
}

// throughputPlot draws a phase's OK answers per second.
func throughputPlot(r *Result, path string) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s per second", r.Name, r.Metric)
	p.X.Label.Text = "seconds since start"
	p.Y.Label.Text = r.Metric + "/s"
	p.X.Min, p.Y.Min = 0, 0
	pts := make(plotter.XYs, len(r.PerSecond))
	for i, n := range r.PerSecond {
		pts[i].X, pts[i].Y = float64(i)+0.5, float64(n)
	}
	if len(pts) == 0 {
		pts = plotter.XYs{{X: 0, Y: 0}}
	}
	if len(r.PerSecond) > 0 && r.Elapsed%time.Second != 0 {
		// the last second is partial: scale it to a rate
		frac := (r.Elapsed % time.Second).Seconds()
		last := len(pts) - 1
		pts[last].X = float64(last) + frac/2
		pts[last].Y = float64(r.PerSecond[last]) / frac
	}
	line, dots, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	line.Color, dots.Color = plotutil.Color(0), plotutil.Color(0)
	p.Add(line, dots, plotter.NewGrid())
	return p.Save(7*vg.Inch, 4*vg.Inch, path)
}

// latencyPlot draws the CDF of each phase's latencies on a log scale of milliseconds.
func latencyPlot(title string, rs []*Result, path string) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "latency (ms, log scale)"
	p.Y.Label.Text = "fraction of requests <= latency"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Min, p.Y.Max = 0, 1
	p.Legend.Top, p.Legend.Left = false, false
	p.Add(plotter.NewGrid())
	drawn := 0
	for i, r := range rs {
		if len(r.CDFLat) == 0 {
			continue
		}
		pts := make(plotter.XYs, 0, len(r.CDFLat)+1)
		first := max(float64(r.CDFLat[0])/float64(time.Millisecond), 0.001)
		pts = append(pts, plotter.XY{X: first, Y: 0})
		for j, d := range r.CDFLat {
			pts = append(pts, plotter.XY{X: max(float64(d)/float64(time.Millisecond), 0.001), Y: r.CDFFrac[j]})
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i / 7)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(r.Name, l)
		drawn++
	}
	if drawn == 0 {
		pts := plotter.XYs{{X: 1, Y: 0}}
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		s.Color = color.Transparent
		p.Add(s)
	}
	// a log axis needs a positive range that is not a single value
	p.X.Min = max(p.X.Min, 0.001)
	if p.X.Max < p.X.Min*2 {
		p.X.Min, p.X.Max = p.X.Min/2, p.X.Max*2
	}
	return p.Save(7*vg.Inch, 4*vg.Inch, path)
}
