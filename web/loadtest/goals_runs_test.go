package loadtest

import (
	"bytes"
	"strings"
	"testing"
)

func TestMedianGoals(t *testing.T) {
	measured := func(name string, ratio, limit float64, min bool) Goal {
		return Goal{Name: name, Want: "x", Ratio: ratio, Limit: limit, Min: min, Status: judgeRatio(ratio, limit, min)}
	}
	notRun := func(name string, limit float64, min bool) Goal {
		return Goal{Name: name, Limit: limit, Min: min, Status: StatusNotRun}
	}
	cases := []struct {
		name       string
		runs       [][]Goal
		wantMedian float64
		wantStatus string
	}{
		{"odd runs: the middle ratio, a ceiling passed", [][]Goal{
			{measured("g", 1.6, 1.5, false)}, {measured("g", 1.2, 1.5, false)}, {measured("g", 1.3, 1.5, false)},
		}, 1.3, StatusPass},
		{"odd runs: the middle ratio, a floor missed though one run passed", [][]Goal{
			{measured("g", 0.41, 0.5, true)}, {measured("g", 0.30, 0.5, true)}, {measured("g", 0.52, 0.5, true)},
		}, 0.41, StatusMiss},
		{"even runs: the mean of the two middle ones", [][]Goal{
			{measured("g", 0.4, 0.5, true)}, {measured("g", 0.7, 0.5, true)}, {measured("g", 0.5, 0.5, true)}, {measured("g", 0.9, 0.5, true)},
		}, 0.6, StatusPass},
		{"a run that did not measure it is left out", [][]Goal{
			{measured("g", 2.0, 1.0, false)}, {notRun("g", 1.0, false)}, {measured("g", 0.8, 1.0, false)},
		}, 1.4, StatusMiss},
		{"no run measured it", [][]Goal{{notRun("g", 1.0, false)}, {notRun("g", 1.0, false)}}, 0, StatusNotRun},
		{"a goal only a later run has", [][]Goal{{}, {measured("g", 0.9, 1.0, false)}}, 0.9, StatusPass},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := MedianGoals(c.runs)
			if len(got) != 1 {
				t.Fatalf("%d goals, want 1: %+v", len(got), got)
			}
			g := got[0]
			if g.Status != c.wantStatus || (c.wantStatus != StatusNotRun && (g.Median < c.wantMedian-1e-9 || g.Median > c.wantMedian+1e-9)) {
				t.Errorf("median %.3f %s, want %.3f %s", g.Median, g.Status, c.wantMedian, c.wantStatus)
			}
			if len(g.Ratios) != len(c.runs) || len(g.Measured) != len(c.runs) {
				t.Errorf("%d ratios and %d flags for %d runs", len(g.Ratios), len(g.Measured), len(c.runs))
			}
		})
	}
	t.Run("goals keep the first run's order", func(t *testing.T) {
		runs := [][]Goal{
			{measured("b", 1, 2, false), measured("a", 1, 2, false)},
			{measured("a", 1, 2, false), measured("b", 1, 2, false), measured("c", 1, 2, false)},
		}
		var names []string
		for _, g := range MedianGoals(runs) {
			names = append(names, g.Name)
		}
		if strings.Join(names, ",") != "b,a,c" {
			t.Errorf("order %v, want b,a,c", names)
		}
	})
}

func TestWriteGoalsOverRuns(t *testing.T) {
	runs := [][]Goal{
		{{Name: "flash sale: p99 vs 25 ms", Want: "<= 1.00x", Ratio: 0.72, Limit: 1, Status: StatusPass}},
		{{Name: "flash sale: p99 vs 25 ms", Want: "<= 1.00x", Ratio: 1.20, Limit: 1, Status: StatusMiss}},
		{{Name: "flash sale: p99 vs 25 ms", Want: "<= 1.00x", Limit: 1, Status: StatusNotRun}},
	}
	var b bytes.Buffer
	WriteGoalsOverRuns(&b, runs)
	want := "| goal | wanted | run 1 | run 2 | run 3 | median | result |\n" +
		"|---|---|---:|---:|---:|---:|---|\n" +
		"| flash sale: p99 vs 25 ms | <= 1.00x | 0.720x | 1.200x | - | 0.960x | PASS |\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	WriteGoalsOverRuns(&b, nil)
	if b.Len() != 0 {
		t.Errorf("no runs wrote %q", b.String())
	}
}
