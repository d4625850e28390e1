package loadtest

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// GoalOverRuns is one goal of the order path over several runs of the same set: its
// ratio in each run (Measured false where the run lacks a figure), the median of the
// measured ratios, and PASS or MISS on the median ("not run" when no run measured it).
type GoalOverRuns struct {
	Name, Want string
	Ratios     []float64
	Measured   []bool
	Median     float64
	Limit      float64
	Min        bool
	Status     string
}

// MedianGoals puts the goals of each run (Report.Goals, one slice per run, in run
// order) side by side by name, in the first run's order (a goal only a later run has
// follows), and judges each on the median of its measured ratios: the middle one, or
// the mean of the two middle ones for an even count. The goals are stated as a
// median of three runs, because one run on a 2-core machine swings 0.3x-0.5x in the
// ratios to the HTTP no-op. A pure function of its argument.
func MedianGoals(runs [][]Goal) []GoalOverRuns {
	var out []GoalOverRuns
	index := map[string]int{}
	for r, goals := range runs {
		for _, g := range goals {
			i, ok := index[g.Name]
			if !ok {
				i = len(out)
				index[g.Name] = i
				out = append(out, GoalOverRuns{Name: g.Name, Want: g.Want, Limit: g.Limit, Min: g.Min,
					Ratios: make([]float64, len(runs)), Measured: make([]bool, len(runs))})
			}
			if g.Status == StatusPass || g.Status == StatusMiss {
				out[i].Ratios[r], out[i].Measured[r] = g.Ratio, true
			}
		}
	}
	for i := range out {
		g := &out[i]
		var got []float64
		for r, ok := range g.Measured {
			if ok {
				got = append(got, g.Ratios[r])
			}
		}
		if len(got) == 0 {
			g.Status = StatusNotRun
			continue
		}
		slices.Sort(got)
		g.Median = got[len(got)/2]
		if len(got)%2 == 0 {
			g.Median = (got[len(got)/2-1] + got[len(got)/2]) / 2
		}
		g.Status = judgeRatio(g.Median, g.Limit, g.Min)
	}
	return out
}

// WriteGoalsOverRuns writes MedianGoals(runs) as a Markdown table: each goal's wanted
// ratio, its ratio in every run ("-" where not measured), the median and the result. The
// ratios have three decimals, so a median just under its floor (0.498x) does not read as
// the floor itself beside MISS.
func WriteGoalsOverRuns(w io.Writer, runs [][]Goal) {
	goals := MedianGoals(runs)
	if len(goals) == 0 {
		return
	}
	head := []string{"goal", "wanted"}
	for r := range runs {
		head = append(head, fmt.Sprintf("run %d", r+1))
	}
	head = append(head, "median", "result")
	fmt.Fprintf(w, "| %s |\n|---|---|%s---:|---|\n", strings.Join(head, " | "), strings.Repeat("---:|", len(runs)))
	for _, g := range goals {
		cells := []string{g.Name, g.Want}
		for r := range runs {
			cell := "-"
			if g.Measured[r] {
				cell = fmt.Sprintf("%.3fx", g.Ratios[r])
			}
			cells = append(cells, cell)
		}
		median := "-"
		if g.Status != StatusNotRun {
			median = fmt.Sprintf("%.3fx", g.Median)
		}
		cells = append(cells, median, g.Status)
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}
