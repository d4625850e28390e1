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

// withCPU sets r's CPU time so that each process spent the given µs per OK operation.
func withCPU(r *Result, usPerOp map[string]float64) *Result {
	r.CPU = map[string]time.Duration{}
	for p, us := range usPerOp {
		r.CPU[p] = time.Duration(us * float64(r.OK) * float64(time.Microsecond))
	}
	return r
}

// cpuPrefixes are the names of the CPU targets.
const (
	cpuServer  = "flash sale: server CPU"
	cpuMariaDB = "flash sale: MariaDB CPU"
	cpuRedis   = "flash sale: Redis CPU"
)

func TestEvaluateTargets(t *testing.T) {
	mysql := withCPU(res(CeilingMySQL, 1000, 5*time.Millisecond), map[string]float64{ProcMariaDB: 370})
	ceilings := []*Result{res(CeilingHTTP, 10000, time.Millisecond), res(CeilingRedis, 20000, time.Millisecond), mysql}
	at := map[string]float64{ProcServer: 300, ProcMariaDB: 370, ProcRedis: 100}
	over := map[string]float64{ProcServer: 301, ProcMariaDB: 371, ProcRedis: 101}
	cases := []struct {
		name      string
		scenarios []*Result
		rssKB     int64
		sampled   bool
		want      map[string]string // target name prefix -> status
	}{
		{"all pass, at every limit", []*Result{withCPU(res(ScenarioFlash, 1000, 50*time.Millisecond), at), res(ScenarioHotSeats, 5000, 10*time.Millisecond),
			res(ScenarioSoldOut, 5000, 9*time.Millisecond), res(ScenarioSeatMap, 3000, time.Second), res(ScenarioV1, 100, time.Second)},
			256 * 1024, true, map[string]string{"flash sale: created orders vs raw": StatusPass, cpuServer: StatusPass, cpuMariaDB: StatusPass,
				cpuRedis: StatusPass, "hot seats": StatusPass, "sold-out": StatusPass, "seat-map": StatusPass,
				"flash sale: created orders vs V1": StatusPass, "server RSS": StatusPass, "audits": StatusPass}},
		{"ratio just short, p99 too slow, CPU and RSS over", []*Result{withCPU(res(ScenarioFlash, 999, time.Millisecond), over),
			res(ScenarioHotSeats, 6000, 11*time.Millisecond), res(ScenarioSeatMap, 2999, 0), res(ScenarioV1, 100, 0)},
			256*1024 + 1, true, map[string]string{"flash sale: created orders vs raw": StatusMiss, cpuServer: StatusMiss, cpuMariaDB: StatusMiss,
				cpuRedis: StatusMiss, "hot seats": StatusMiss, "sold-out": StatusNotRun, "seat-map": StatusMiss,
				"flash sale: created orders vs V1": StatusMiss, "server RSS": StatusMiss, "audits": StatusPass}},
		{"the old goals are short of the new ones", []*Result{res(ScenarioFlash, 600, time.Millisecond), res(ScenarioSeatMap, 2500, 0)},
			0, false, map[string]string{"flash sale: created orders vs raw": StatusMiss, "seat-map": StatusMiss}},
		{"nothing run, RSS not sampled", nil, 0, false, map[string]string{"flash sale: created orders vs raw": StatusNotRun,
			cpuServer: StatusNotRun, cpuMariaDB: StatusNotRun, cpuRedis: StatusNotRun,
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

func TestReport_CPUTargets(t *testing.T) {
	mysqlAt := func(us map[string]float64) []*Result {
		return []*Result{withCPU(res(CeilingMySQL, 1000, time.Millisecond), us)}
	}
	ref := map[string]float64{ProcMariaDB: 370}
	cases := []struct {
		name     string
		ceilings []*Result
		flash    *Result
		want     map[string]string // target name prefix -> status
		got      map[string]string // target name prefix -> got
	}{
		{"server over 300 µs per order is a MISS", mysqlAt(ref),
			withCPU(res(ScenarioFlash, 2000, 0), map[string]float64{ProcServer: 300.5, ProcMariaDB: 250, ProcRedis: 40}),
			map[string]string{cpuServer: StatusMiss, cpuMariaDB: StatusPass, cpuRedis: StatusPass},
			map[string]string{cpuServer: "300.5 µs/op", cpuMariaDB: "250.0 µs/op vs 370.0 µs/op", cpuRedis: "40.0 µs/op"}},
		{"MariaDB over the raw transaction's, Redis over 100 µs", mysqlAt(ref),
			withCPU(res(ScenarioFlash, 2000, 0), map[string]float64{ProcServer: 120, ProcMariaDB: 400, ProcRedis: 100.5}),
			map[string]string{cpuServer: StatusPass, cpuMariaDB: StatusMiss, cpuRedis: StatusMiss}, nil},
		{"figures missing are not run", mysqlAt(ref), withCPU(res(ScenarioFlash, 2000, 0), map[string]float64{ProcMariaDB: 300}),
			map[string]string{cpuServer: StatusNotRun, cpuMariaDB: StatusPass, cpuRedis: StatusNotRun},
			map[string]string{cpuServer: "-", cpuRedis: "-"}},
		{"no raw transaction figure: MariaDB not run", mysqlAt(nil), withCPU(res(ScenarioFlash, 2000, 0), map[string]float64{ProcMariaDB: 300}),
			map[string]string{cpuMariaDB: StatusNotRun}, map[string]string{cpuMariaDB: "300.0 µs/op vs -"}},
		{"no order created: not run", mysqlAt(ref), withCPU(res(ScenarioFlash, 0, 0), map[string]float64{ProcServer: 1}),
			map[string]string{cpuServer: StatusNotRun, cpuMariaDB: StatusNotRun, cpuRedis: StatusNotRun}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := EvaluateTargets(c.ceilings, []*Result{c.flash}, 0, false)
			for prefix, want := range c.want {
				if s := statusOf(got, prefix); s.Status != want {
					t.Errorf("%s: %s (%s), want %s", prefix, s.Status, s.Got, want)
				}
			}
			for prefix, want := range c.got {
				if s := statusOf(got, prefix); s.Got != want {
					t.Errorf("%s: got %q, want %q", prefix, s.Got, want)
				}
			}
		})
	}
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
	withCPU(flash, map[string]float64{ProcServer: 260, ProcMariaDB: 360, ProcRedis: 42.5})
	mysql := withCPU(res(CeilingMySQL, 1000, time.Millisecond), map[string]float64{ProcMariaDB: 370, ProcClient: 30})
	rep := &Report{Base: "http://x", Clients: 8, Duration: time.Second, Started: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC),
		Ceilings:  []*Result{res(CeilingHTTP, 10000, time.Millisecond), mysql},
		Scenarios: []*Result{flash}, RSSNote: "not sampled (-base without -pid)", CPUNote: "MariaDB pid 7 (/run/mysqld/mysqld.pid)"}
	rep.Evaluate()
	return rep
}

func TestReport_Tables(t *testing.T) {
	var b bytes.Buffer
	sampleReport().WriteTables(&b)
	out := b.String()
	for _, want := range []string{
		"| ceiling | what | ok/s | p50 | p99 | max | errors | server µs/op | MariaDB µs/op | Redis µs/op | client µs/op |",
		"| http | http title | 10000 | 0.00 ms | 1.00 ms | 0.00 ms | 0 | - | - | - | - |",
		"| mysql | mysql title | 1000 | 0.00 ms | 1.00 ms | 0.00 ms | 0 | - | 370.0 | - | 30.0 |",
		"| / http | server µs/op | MariaDB µs/op | Redis µs/op | client µs/op | RSS max | audit |",
		"| flash | things | 500 | 500 | 0 | 0 |",
		"| - | 0.50 | 0.05 | 260.0 | 360.0 | 42.5 | - | - | **FAILED** |", // no redis ceiling; 500/1000 mysql; 500/10000 http; CPU
		"| flash sale: created orders vs raw MariaDB transaction | >= 1.00x, p99 <= 50 ms | 0.50x (500/s vs 1000/s), p99 20.00 ms | MISS |",
		"| flash sale: server CPU per created order | <= 300 µs | 260.0 µs/op | PASS |",
		"| flash sale: MariaDB CPU per created order vs raw MariaDB transaction | <= the raw transaction's MariaDB µs/op | 360.0 µs/op vs 370.0 µs/op | PASS |",
		"| flash sale: Redis CPU per created order | <= 100 µs | 42.5 µs/op | PASS |",
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
		"Server RSS: not sampled", "](flash-throughput.png)", "](latency.png)",
		"CPU time of: MariaDB pid 7 (/run/mysqld/mysqld.pid).", "CPU time during the phase: server 0.13 s, MariaDB 0.18 s, Redis 0.02 s."} {
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

// goalOf is the goal whose name starts with prefix.
func goalOf(gs []Goal, prefix string) Goal {
	for _, g := range gs {
		if strings.HasPrefix(g.Name, prefix) {
			return g
		}
	}
	return Goal{}
}

// TestEvaluateGoals: each goal of the order path passes at its limit and misses just
// past it, with its ratio; a missing scenario, ceiling or CPU figure is "not run".
func TestEvaluateGoals(t *testing.T) {
	batch := withCPU(res(CeilingMySQLBatch, 8000, 5*time.Millisecond), map[string]float64{ProcMariaDB: 100})
	ceilings := []*Result{res(CeilingHTTP, 10000, time.Millisecond), res(CeilingMySQL, 1000, 5*time.Millisecond), batch}
	at := map[string]float64{ProcServer: 150, ProcMariaDB: 150, ProcRedis: 50}
	over := map[string]float64{ProcServer: 151, ProcMariaDB: 151, ProcRedis: 51}
	names := []string{"flash sale: created orders", "flash sale: p99", cpuServer, cpuRedis, cpuMariaDB, "hot seats", "sold-out", "seat-map"}
	all := func(status string) map[string]string {
		m := map[string]string{}
		for _, n := range names {
			m[n] = status
		}
		return m
	}
	cases := []struct {
		name      string
		ceilings  []*Result
		scenarios []*Result
		want      map[string]string
		ratios    map[string]float64
	}{
		{"all pass, at every limit", ceilings, []*Result{withCPU(res(ScenarioFlash, 1000, 25*time.Millisecond), at),
			res(ScenarioHotSeats, 5000, time.Millisecond), res(ScenarioSoldOut, 5000, time.Millisecond), res(ScenarioSeatMapSmall, 3500, time.Millisecond)},
			all(StatusPass), map[string]float64{"flash sale: created orders": 1, "flash sale: p99": 1, cpuServer: 1, cpuRedis: 1, cpuMariaDB: 1.5,
				"hot seats": 0.5, "seat-map": 0.35}},
		{"all miss, just past every limit", ceilings, []*Result{withCPU(res(ScenarioFlash, 999, 25*time.Millisecond+time.Microsecond), over),
			res(ScenarioHotSeats, 4999, time.Millisecond), res(ScenarioSoldOut, 4999, time.Millisecond), res(ScenarioSeatMapSmall, 3499, time.Millisecond)},
			all(StatusMiss), map[string]float64{"flash sale: created orders": 0.999, "seat-map": 0.3499}},
		{"nothing run", ceilings, nil, all(StatusNotRun), nil},
		{"only the 20,000-seat map read: the goal reads the 400-seat one", ceilings, []*Result{res(ScenarioSeatMap, 9000, time.Millisecond)},
			map[string]string{"seat-map": StatusNotRun}, nil},
		{"no batch ceiling, no CPU figures", ceilings[:2], []*Result{res(ScenarioFlash, 1000, time.Millisecond)},
			map[string]string{"flash sale: created orders": StatusPass, "flash sale: p99": StatusPass, cpuServer: StatusNotRun, cpuRedis: StatusNotRun,
				cpuMariaDB: StatusNotRun, "hot seats": StatusNotRun}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := EvaluateGoals(c.ceilings, c.scenarios)
			if len(got) != len(names) {
				t.Fatalf("%d goals, want %d", len(got), len(names))
			}
			for prefix, want := range c.want {
				if g := goalOf(got, prefix); g.Status != want {
					t.Errorf("%s: %s (%s), want %s", prefix, g.Status, g.Got, want)
				}
			}
			for prefix, want := range c.ratios {
				if g := goalOf(got, prefix); g.Ratio < want-1e-9 || g.Ratio > want+1e-9 {
					t.Errorf("%s: ratio %v, want %v", prefix, g.Ratio, want)
				}
			}
		})
	}
}

// TestWriteGoals: the goals table prints each goal with its ratio and result, and the
// raw batch's ratio to the raw single-order transaction.
func TestWriteGoals(t *testing.T) {
	batch := withCPU(res(CeilingMySQLBatch, 8000, 5*time.Millisecond), map[string]float64{ProcMariaDB: 100})
	one := withCPU(res(CeilingMySQL, 2000, 5*time.Millisecond), map[string]float64{ProcMariaDB: 250})
	rep := &Report{Ceilings: []*Result{res(CeilingHTTP, 10000, time.Millisecond), one, batch},
		Scenarios: []*Result{res(ScenarioFlash, 3000, 20*time.Millisecond)}}
	rep.Evaluate()
	var b bytes.Buffer
	rep.WriteGoals(&b)
	for _, want := range []string{"| goal | wanted | got | result |", "| flash sale: created orders vs raw single-order MariaDB transaction | >= 1.00x | 1.50x (3000/s vs 2000/s) | PASS |",
		"| flash sale: p99 vs 25 ms | <= 1.00x | 0.80x", "| seat-map reads of a 400-seat show vs HTTP no-op | >= 0.35x | - | not run |",
		"mysql_batch / mysql: 4.00x orders/s (8000 vs 2000), 0.40x MariaDB µs per order (100.0 vs 250.0)."} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("goals table lacks %q:\n%s", want, b.String())
		}
	}
}

// TestWriteGoals_OrderFloor: with the order script's command floor measured, the goals
// table is followed by the flash sale's Redis per created order over the floor's per
// call; without it (or without the flash sale's Redis figure) nothing is printed.
func TestWriteGoals_OrderFloor(t *testing.T) {
	floor := withCPU(res(CeilingRedisOrderFloor, 20000, time.Millisecond), map[string]float64{ProcRedis: 40})
	flash := withCPU(res(ScenarioFlash, 3000, 20*time.Millisecond), map[string]float64{ProcRedis: 100})
	const line = "flash sale's Redis per created order / redis_order_floor's per call: 2.50x (100.0 vs 40.0 µs"
	for _, c := range []struct {
		name     string
		ceilings []*Result
		flash    *Result
		want     bool
	}{
		{"floor and flash sale", []*Result{floor}, flash, true},
		{"no floor", nil, flash, false},
		{"flash sale without CPU figures", []*Result{floor}, res(ScenarioFlash, 3000, 20*time.Millisecond), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := &Report{Ceilings: c.ceilings, Scenarios: []*Result{c.flash}}
			rep.Evaluate()
			var b bytes.Buffer
			rep.WriteGoals(&b)
			if got := strings.Contains(b.String(), line); got != c.want {
				t.Errorf("floor line printed: %v, want %v:\n%s", got, c.want, b.String())
			}
		})
	}
}
