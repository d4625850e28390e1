package loadtest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// res is a result of ok answers in one second with the given p99.
func res(name string, ok int64, p99 time.Duration) *Result {
	return &Result{Name: name, Title: name + " title", Metric: "things", OK: ok, Elapsed: time.Second, P99: p99,
		PerSecond: []int64{ok}, CDFLat: []time.Duration{p99}, CDFFrac: []float64{1}}
}

func statusOf(ts []Target, prefix string) Target {
	for _, t := range ts {
		if strings.HasPrefix(t.Name, prefix) {
			return t
		}
	}
	return Target{}
}

func TestEvaluateTargets(t *testing.T) {
	ceilings := []*Result{res(CeilingHTTP, 10000, time.Millisecond), res(CeilingRedis, 20000, time.Millisecond), res(CeilingMySQL, 1000, 5*time.Millisecond)}
	cases := []struct {
		name      string
		scenarios []*Result
		rssKB     int64
		sampled   bool
		want      map[string]string // target name prefix -> status
	}{
		{"all pass", []*Result{res(ScenarioFlash, 600, 50*time.Millisecond), res(ScenarioHotSeats, 5000, 10*time.Millisecond),
			res(ScenarioSoldOut, 5000, 9*time.Millisecond), res(ScenarioSeatMap, 2500, time.Second), res(ScenarioV1, 60, time.Second)},
			256 * 1024, true, map[string]string{"flash sale: created orders vs raw": StatusPass, "hot seats": StatusPass, "sold-out": StatusPass,
				"seat-map": StatusPass, "flash sale: created orders vs V1": StatusPass, "server RSS": StatusPass, "audits": StatusPass}},
		{"ratio just short, p99 too slow, RSS over", []*Result{res(ScenarioFlash, 599, time.Millisecond), res(ScenarioHotSeats, 6000, 11*time.Millisecond),
			res(ScenarioSeatMap, 2499, 0), res(ScenarioV1, 60, 0)},
			256*1024 + 1, true, map[string]string{"flash sale: created orders vs raw": StatusMiss, "hot seats": StatusMiss, "sold-out": StatusNotRun,
				"seat-map": StatusMiss, "flash sale: created orders vs V1": StatusMiss, "server RSS": StatusMiss, "audits": StatusPass}},
		{"nothing run, RSS not sampled", nil, 0, false, map[string]string{"flash sale: created orders vs raw": StatusNotRun,
			"flash sale: created orders vs V1": StatusNotRun, "server RSS": StatusNotRun, "audits": StatusNotRun}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := EvaluateTargets(ceilings, c.scenarios, c.rssKB, c.sampled)
			for prefix, want := range c.want {
				if s := statusOf(got, prefix); s.Status != want {
					t.Errorf("%s: %s (%s), want %s", prefix, s.Status, s.Got, want)
				}
			}
		})
	}
	t.Run("a failed audit is a MISS naming the scenario", func(t *testing.T) {
		bad := res(ScenarioFlash, 1, 0)
		bad.audit = []AuditLine{{Check: "holds without orders", Count: 2, MustBeZero: true}}
		a := statusOf(EvaluateTargets(ceilings, []*Result{bad}, 0, false), "audits")
		if a.Status != StatusMiss || !strings.Contains(a.Got, "flash") {
			t.Fatalf("%+v", a)
		}
	})
}

func TestRatio(t *testing.T) {
	for _, c := range []struct{ a, b, want float64 }{{1, 2, 0.5}, {3, 0, 0}, {0, 5, 0}} {
		if got := Ratio(c.a, c.b); got != c.want {
			t.Errorf("Ratio(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func sampleReport() *Report {
	flash := res(ScenarioFlash, 500, 20*time.Millisecond)
	flash.audit = []AuditLine{{Check: "holds without orders", Count: 0, MustBeZero: true}, {Check: "users over the purchase limit", Count: 3, MustBeZero: true}}
	flash.Notes = []string{"800 seats sold"}
	flash.Codes = []string{"201 500", "SEAT_TAKEN 7"}
	rep := &Report{Base: "http://x", Clients: 8, Duration: time.Second, Started: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC),
		Ceilings:  []*Result{res(CeilingHTTP, 10000, time.Millisecond), res(CeilingMySQL, 1000, time.Millisecond)},
		Scenarios: []*Result{flash}, RSSNote: "not sampled (-base without -pid)"}
	rep.Evaluate()
	return rep
}

func TestReport_Tables(t *testing.T) {
	var b bytes.Buffer
	sampleReport().WriteTables(&b)
	out := b.String()
	for _, want := range []string{
		"| http | http title | 10000 |",
		"| flash | things | 500 | 500 | 0 | 0 |",
		"| - | 0.50 | 0.05 |", // no redis ceiling; 500/1000 mysql; 500/10000 http
		"**FAILED**",
		"| flash sale: created orders vs raw MariaDB transaction | >= 0.60x, p99 <= 50 ms | 0.50x (500/s vs 1000/s), p99 20.00 ms | MISS |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("tables lack %q:\n%s", want, out)
		}
	}
}

func TestReport_MarkdownAndPlots(t *testing.T) {
	dir := t.TempDir()
	rep := sampleReport()
	if err := rep.Write(dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# seatflow load test, 2026-01-02 03:04 UTC", "## flash: flash title", "answers: 201 500, SEAT_TAKEN 7",
		"- 800 seats sold", "| users over the purchase limit | 3 | **FAILED** |", "| holds without orders | 0 | ok |",
		"Server RSS: not sampled", "](flash-throughput.png)", "](latency.png)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	for _, f := range []string{"flash-throughput.png", "flash-latency.png", "http-latency.png", "mysql-throughput.png", "latency.png"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("%s: not a PNG (%v)", f, err)
		}
	}
}
