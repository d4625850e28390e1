package loadtest

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Report is a whole run: its ceilings, scenarios and the targets evaluated on them.
type Report struct {
	Base              string
	Clients           int
	Duration          time.Duration
	FlashMax          time.Duration
	BigSeats, Buyers  int
	Started, Finished time.Time
	Ceilings          []*Result
	Scenarios         []*Result
	// RSSMaxKB is the server's largest resident set of the run; RSSNote says why there
	// is none.
	RSSMaxKB int64
	RSSNote  string
	// CPUNote names the processes whose CPU time every phase measured (their pids, where
	// they were found) and why one is missing.
	CPUNote string
	Targets []Target
	// Goals are the order path's goals (EvaluateGoals), each as a ratio.
	Goals []Goal
}

// Goal is one goal of the order path with what this run measured: Ratio is the
// measured figure over its reference (a ceiling of the same run, or a fixed limit),
// Limit the ratio the goal allows (a floor when Min, else a ceiling), Got the figures
// behind it, Status PASS, MISS or "not run" (a figure is missing).
type Goal struct {
	Name, Want, Got, Status string
	Ratio, Limit            float64
	Min                     bool
}

// Target is one target of the flash-sale work with what this run got: Status is PASS,
// MISS or "not run".
type Target struct {
	Name, Want, Got, Status string
}

// Target statuses.
const (
	StatusPass   = "PASS"
	StatusMiss   = "MISS"
	StatusNotRun = "not run"
)

// targetRSSKB is the ceiling of the server's resident set (256 MiB).
const targetRSSKB = 256 * 1024

// The ceilings of CPU time per created order of the flash sale, in µs per operation.
const (
	targetServerUSPerOrder = 300
	targetRedisUSPerOrder  = 100
)

// Ratio is a / b, 0 when b is 0.
func Ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func (rep *Report) find(list []*Result, name string) *Result {
	for _, r := range list {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// Evaluate sets rep.Targets and rep.Goals from the ceilings and scenarios.
func (rep *Report) Evaluate() {
	rep.Targets = EvaluateTargets(rep.Ceilings, rep.Scenarios, rep.RSSMaxKB, rep.RSSNote == "")
	rep.Goals = EvaluateGoals(rep.Ceilings, rep.Scenarios)
}

// The order path's goals (the flash sale, 32 clients, 2 seats an order): CPU time per
// created order in µs, the flash sale's p99, and the ratios to the ceilings.
const (
	goalServerUSPerOrder   = 150
	goalRedisUSPerOrder    = 50
	goalMariaDBVsBatch     = 1.5
	goalFlashP99           = 25 * time.Millisecond
	goalFlashVsMySQL       = 1.0
	goalTakenVsHTTP        = 0.5
	goalSeatMapReadsVsHTTP = 0.35
)

// EvaluateGoals states the order path's goals as ratios, each PASS, MISS or "not run"
// (a scenario, a ceiling or a CPU figure is missing), from one run's ceilings and
// scenarios; a pure function of its arguments:
//   - flash sale: created orders / the raw single-order MariaDB transaction (mysql) >= 1.0;
//   - flash sale: p99 / 25 ms <= 1;
//   - flash sale: server and Redis CPU µs per created order / 150 µs and / 50 µs <= 1;
//   - flash sale: MariaDB CPU µs per created order / the mysql_batch ceiling's per order
//     <= 1.5;
//   - hot seats and the sold-out show: taken-seat answers / the HTTP no-op >= 0.5;
//   - seat-map reads of a 400-seat show (ScenarioSeatMapSmall, the hall the goal's own
//     baseline read) / the HTTP no-op >= 0.35. The 20,000-seat show's reads
//     (ScenarioSeatMap) are a target (EvaluateTargets), not this goal.
func EvaluateGoals(ceilings, scenarios []*Result) []Goal {
	rep := &Report{Ceilings: ceilings, Scenarios: scenarios}
	scen := func(n string) *Result { return rep.find(scenarios, n) }
	ceil := func(n string) *Result { return rep.find(ceilings, n) }
	var out []Goal
	add := func(g Goal, a, b float64, have bool, got string) {
		g.Status, g.Got = StatusNotRun, "-"
		if have && b > 0 {
			g.Ratio = a / b
			g.Got = fmt.Sprintf("%.2fx (%s)", g.Ratio, got)
			g.Status = judgeRatio(g.Ratio, g.Limit, g.Min)
		}
		out = append(out, g)
	}
	rate := func(name, want string, s, c *Result, limit float64) {
		have := s != nil && c != nil
		var a, b float64
		if have {
			a, b = s.Rate(), c.Rate()
		}
		add(Goal{Name: name, Want: want, Limit: limit, Min: true}, a, b, have, fmt.Sprintf("%.0f/s vs %.0f/s", a, b))
	}
	flash := scen(ScenarioFlash)
	rate("flash sale: created orders vs raw single-order MariaDB transaction", ">= 1.00x", flash, ceil(CeilingMySQL), goalFlashVsMySQL)
	p99 := float64(0)
	if flash != nil {
		p99 = float64(flash.P99)
	}
	add(Goal{Name: "flash sale: p99 vs 25 ms", Want: "<= 1.00x", Limit: 1}, p99, float64(goalFlashP99), flash != nil && flash.OK > 0, "p99 "+fmtMS(time.Duration(p99)))
	cpu := func(name, want, proc string, ref float64, haveRef bool, refName string, limit float64) {
		us, ok := flash.CPUPerOp(proc)
		add(Goal{Name: name, Want: want, Limit: limit}, us, ref, ok && haveRef, fmt.Sprintf("%.1f µs/op vs %.1f µs%s", us, ref, refName))
	}
	cpu("flash sale: server CPU per created order vs 150 µs", "<= 1.00x", ProcServer, goalServerUSPerOrder, true, "", 1)
	cpu("flash sale: Redis CPU per created order vs 50 µs", "<= 1.00x", ProcRedis, goalRedisUSPerOrder, true, "", 1)
	batch, haveBatch := ceil(CeilingMySQLBatch).CPUPerOp(ProcMariaDB)
	cpu("flash sale: MariaDB CPU per created order vs raw batch's per order", "<= 1.50x", ProcMariaDB, batch, haveBatch, " (mysql_batch)", goalMariaDBVsBatch)
	http := ceil(CeilingHTTP)
	rate("hot seats: taken-seat answers vs HTTP no-op", ">= 0.50x", scen(ScenarioHotSeats), http, goalTakenVsHTTP)
	rate("sold-out show: taken-seat answers vs HTTP no-op", ">= 0.50x", scen(ScenarioSoldOut), http, goalTakenVsHTTP)
	rate("seat-map reads of a 400-seat show vs HTTP no-op", ">= 0.35x", scen(ScenarioSeatMapSmall), http, goalSeatMapReadsVsHTTP)
	return out
}

// EvaluateTargets states each target with PASS, MISS or "not run" (a scenario, the
// ceiling or the figure it needs is missing): created orders of the flash sale >= 1.0x
// the raw MariaDB transaction with p99 <= 50 ms; CPU time per created order of the flash
// sale (Result.CPUPerOp, µs per operation): server <= 300 µs, MariaDB <= the MariaDB
// µs/op of the raw MariaDB transaction ceiling of the same run, Redis <= 100 µs;
// taken-seat answers (hot seats, sold-out show) >= 0.5x the HTTP no-op with p99 <= 10 ms;
// seat-map reads >= 0.30x the HTTP no-op; the flash sale >= 10x the V1 baseline; the
// flash sale with ticket types and a voucher >= 0.90x the plain one (mixedTarget); the
// waiting room's (roomTargets); server RSS <= 256 MiB (rssSampled false: not run); every
// audit clean.
func EvaluateTargets(ceilings, scenarios []*Result, rssMaxKB int64, rssSampled bool) []Target {
	rep := &Report{Ceilings: ceilings, Scenarios: scenarios}
	var out []Target
	compare := func(s, c *Result, name, want string, min float64, p99 time.Duration) {
		t := Target{Name: name, Want: want, Status: StatusNotRun, Got: "-"}
		if s != nil && c != nil {
			r := Ratio(s.Rate(), c.Rate())
			t.Got = fmt.Sprintf("%.2fx (%.0f/s vs %.0f/s)", r, s.Rate(), c.Rate())
			ok := r >= min
			if p99 > 0 {
				t.Got += ", p99 " + fmtMS(s.P99)
				ok = ok && s.P99 <= p99
			}
			t.Status = passMiss(ok)
		}
		out = append(out, t)
	}
	scen := func(n string) *Result { return rep.find(scenarios, n) }
	ceil := func(n string) *Result { return rep.find(ceilings, n) }
	compare(scen(ScenarioFlash), ceil(CeilingMySQL), "flash sale: created orders vs raw MariaDB transaction", ">= 1.00x, p99 <= 50 ms", 1, 50*time.Millisecond)
	// cpuMax: the flash sale's µs of proc per created order <= limit (have: the limit is known)
	cpuMax := func(name, want, proc string, limit float64, have bool, vs string) {
		t := Target{Name: name, Want: want, Status: StatusNotRun, Got: "-"}
		us, ok := scen(ScenarioFlash).CPUPerOp(proc)
		if ok {
			t.Got = fmt.Sprintf("%.1f µs/op%s", us, vs)
		}
		if ok && have {
			t.Status = passMiss(us <= limit)
		}
		out = append(out, t)
	}
	cpuMax("flash sale: server CPU per created order", "<= 300 µs", ProcServer, targetServerUSPerOrder, true, "")
	ref, haveRef := ceil(CeilingMySQL).CPUPerOp(ProcMariaDB)
	refGot := " vs -"
	if haveRef {
		refGot = fmt.Sprintf(" vs %.1f µs/op", ref)
	}
	cpuMax("flash sale: MariaDB CPU per created order vs raw MariaDB transaction", "<= the raw transaction's MariaDB µs/op", ProcMariaDB, ref, haveRef, refGot)
	cpuMax("flash sale: Redis CPU per created order", "<= 100 µs", ProcRedis, targetRedisUSPerOrder, true, "")
	compare(scen(ScenarioHotSeats), ceil(CeilingHTTP), "hot seats: taken-seat answers vs HTTP no-op", ">= 0.50x, p99 <= 10 ms", 0.5, 10*time.Millisecond)
	compare(scen(ScenarioSoldOut), ceil(CeilingHTTP), "sold-out show: taken-seat answers vs HTTP no-op", ">= 0.50x, p99 <= 10 ms", 0.5, 10*time.Millisecond)
	compare(scen(ScenarioSeatMap), ceil(CeilingHTTP), "seat-map reads during a sale vs HTTP no-op", ">= 0.30x", 0.30, 0)
	compare(scen(ScenarioFlash), scen(ScenarioV1), "flash sale: created orders vs V1 baseline", ">= 10x", 10, 0)
	out = append(out, mixedTarget(scen(ScenarioFlash), scen(ScenarioFlashMixed)))
	out = append(out, roomTargets(scen(ScenarioWaitRoom))...)
	out = append(out, roomGoals(scen(ScenarioWaitRoom), ceil(CeilingHTTP))...)
	rss := Target{Name: "server RSS throughout", Want: "<= 256 MiB", Got: "-", Status: StatusNotRun}
	if rssSampled {
		rss.Got = fmt.Sprintf("max %.1f MiB", float64(rssMaxKB)/1024)
		rss.Status = passMiss(rssMaxKB <= targetRSSKB)
	}
	out = append(out, rss)
	audit := Target{Name: "audits after every scenario", Want: "all 0", Got: "-", Status: StatusNotRun}
	if len(scenarios) > 0 {
		var failed []string
		for _, s := range scenarios {
			if s.Failed() {
				failed = append(failed, s.Name)
			}
		}
		audit.Got, audit.Status = "all 0", StatusPass
		if len(failed) > 0 {
			audit.Got, audit.Status = "FAILED: "+strings.Join(failed, ", "), StatusMiss
		}
	}
	return append(out, audit)
}

// targetRoomOrderP99 is the ceiling of the admitted buyers' order p99 while the crowd
// waits, and targetRoomPaceSlack how far the measured admission pace may stray from the
// configured one.
const (
	targetRoomOrderP99  = 50 * time.Millisecond
	targetRoomPaceSlack = 0.20
)

// roomTargets are the waitroom scenario's targets (room nil: not run): admitted buyers'
// order p99 <= 50 ms; the admission pace within ±20 % of the configured one while
// someone waits; every order sent without a valid token refused NOT_ADMITTED; no order
// of the show in MySQL by a buyer who was not admitted.
func roomTargets(room *Result) []Target {
	names := []string{"waiting room: admitted buyers' order p99", "waiting room: admission pace vs configured",
		"waiting room: orders without a valid token refused", "waiting room: orders in MySQL of buyers not admitted"}
	wants := []string{"<= 50 ms", "within ±20 %", "100 % NOT_ADMITTED", "0"}
	out := make([]Target, len(names))
	for i := range out {
		out[i] = Target{Name: names[i], Want: wants[i], Got: "-", Status: StatusNotRun}
	}
	if room == nil || room.Room == nil {
		return out
	}
	f := room.Room
	out[0].Got = fmt.Sprintf("p99 %s, p50 %s (%d orders)", fmtMS(room.P99), fmtMS(room.P50), room.OK)
	out[0].Status = passMiss(room.OK > 0 && room.P99 <= targetRoomOrderP99)
	if f.MeasuredPace > 0 {
		r := Ratio(f.MeasuredPace, float64(f.Pace))
		out[1].Got = fmt.Sprintf("%.0f/min vs %d/min (%.2fx over %.1f s)", f.MeasuredPace, f.Pace, r, f.PaceWindow.Seconds())
		out[1].Status = passMiss(r >= 1-targetRoomPaceSlack && r <= 1+targetRoomPaceSlack)
	} else {
		out[1].Got = "- (nobody waited a whole second)"
	}
	out[2].Got = fmt.Sprintf("%d of %d", f.RefusedNotAdmitted, f.Refusals)
	out[2].Status = passMiss(f.Refusals > 0 && f.RefusedNotAdmitted == f.Refusals)
	out[3].Got = fmt.Sprintf("%d of %d orders", f.OrdersUnadmitted, f.OrdersInMySQL)
	out[3].Status = passMiss(f.OrdersUnadmitted == 0)
	return out
}

// The million-visitor room's goals (DESIGN.md §9): a queue read costs the server at most
// goalRoomReadVsNoop times the HTTP no-op of the same run and Redis at most
// goalRoomRedisUSPerRead µs (amortised over every read); the pace within goalRoomPaceSlack.
const (
	goalRoomReadVsNoop     = 2.0
	goalRoomRedisUSPerRead = 5.0
	goalRoomPaceSlack      = 0.05
)

// roomGoals are the waitroom scenario's goals for a room of a million visitors (room
// nil: not run; http is the saturated HTTP no-op of the same run): the server's CPU per
// queue read <= 2x the no-op's per answer, Redis's <= 5 µs per read, the measured pace
// within ±5 %. The no-op the read is held to is the one sent at the reads' pace over as
// many connections (RoomFigures.PacedNoop) when the run measured it: both pay the same
// transport and background per answer, so the ratio is what the read itself adds; the
// saturated no-op's ratio is printed beside it.
func roomGoals(room, http *Result) []Target {
	out := []Target{
		{Name: "waiting room goal: server CPU per queue read vs HTTP no-op", Want: "<= 2.00x", Got: "-", Status: StatusNotRun},
		{Name: "waiting room goal: Redis CPU per queue read", Want: "<= 5 µs", Got: "-", Status: StatusNotRun},
		{Name: "waiting room goal: admission pace vs configured", Want: "within ±5 %", Got: "-", Status: StatusNotRun},
	}
	if room == nil || room.Room == nil {
		return out
	}
	f := room.Room
	if a, ok := f.Reads.CPUPerOp(ProcServer); ok {
		out[0].Got = fmt.Sprintf("%.1f µs/read", a)
		sat, okSat := http.CPUPerOp(ProcServer)
		if b, ok := f.PacedNoop.CPUPerOp(ProcServer); ok {
			r := Ratio(a, b)
			out[0].Got = fmt.Sprintf("%.2fx (%.1f vs %.1f µs/op of the no-op at the reads' pace)", r, a, b)
			if okSat {
				out[0].Got += fmt.Sprintf("; %.2fx the saturated no-op's %.1f", Ratio(a, sat), sat)
			}
			out[0].Status = passMiss(r <= goalRoomReadVsNoop)
		} else if okSat {
			r := Ratio(a, sat)
			out[0].Got = fmt.Sprintf("%.2fx (%.1f vs %.1f µs/op)", r, a, sat)
			out[0].Status = passMiss(r <= goalRoomReadVsNoop)
		}
	}
	if a, ok := f.Reads.CPUPerOp(ProcRedis); ok {
		out[1].Got = fmt.Sprintf("%.1f µs/read", a)
		out[1].Status = passMiss(a <= goalRoomRedisUSPerRead)
	}
	if f.MeasuredPace > 0 {
		r := Ratio(f.MeasuredPace, float64(f.Pace))
		out[2].Got = fmt.Sprintf("%.2fx (%.0f/min vs %d/min)", r, f.MeasuredPace, f.Pace)
		out[2].Status = passMiss(r >= 1-goalRoomPaceSlack && r <= 1+goalRoomPaceSlack)
	}
	return out
}

// writeRoomVsNoop writes the waiting room's queue reads beside the HTTP no-op of the
// same run: latencies and the CPU time per operation of each measured process, with
// their ratios (nothing when either is missing).
func (rep *Report) writeRoomVsNoop(w io.Writer) {
	q, http := rep.find(rep.Scenarios, ScenarioWaitRoomQueue), rep.find(rep.Ceilings, CeilingHTTP)
	if q == nil || http == nil {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| waiting room | queue read | HTTP no-op | ratio |")
	fmt.Fprintln(w, "|---|---:|---:|---:|")
	for _, l := range []struct {
		name string
		a, b time.Duration
	}{{"p50", q.P50, http.P50}, {"p99", q.P99, http.P99}} {
		fmt.Fprintf(w, "| %s | %s | %s | %.2f |\n", l.name, fmtMS(l.a), fmtMS(l.b), Ratio(float64(l.a), float64(l.b)))
	}
	fmt.Fprintf(w, "| ok/s (paced vs saturated) | %.0f | %.0f | %.2f |\n", q.Rate(), http.Rate(), Ratio(q.Rate(), http.Rate()))
	if room := rep.find(rep.Scenarios, ScenarioWaitRoom); room != nil && room.Room != nil && room.Room.BytesPerVisitorMinute > 0 {
		fmt.Fprintf(w, "| bytes a waiting visitor receives a minute | %.0f | - | - |\n", room.Room.BytesPerVisitorMinute)
	}
	for _, p := range CPUProcs {
		a, okA := q.CPUPerOp(p)
		b, okB := http.CPUPerOp(p)
		if okA && okB {
			fmt.Fprintf(w, "| %s µs/op | %.1f | %.1f | %.2f |\n", p, a, b, Ratio(a, b))
		}
	}
	room := rep.find(rep.Scenarios, ScenarioWaitRoom)
	if room == nil || room.Room == nil || room.Room.PacedNoop == nil {
		return
	}
	paced := room.Room.PacedNoop
	fmt.Fprintln(w)
	fmt.Fprintf(w, "| waiting room | queue read | HTTP no-op at the reads' pace (%.0f/s over %d connections) | ratio |\n", paced.Rate(), paced.Clients)
	fmt.Fprintln(w, "|---|---:|---:|---:|")
	fmt.Fprintf(w, "| p50 / p99 | %s / %s | %s / %s | - |\n", fmtMS(q.P50), fmtMS(q.P99), fmtMS(paced.P50), fmtMS(paced.P99))
	for _, p := range CPUProcs {
		a, okA := q.CPUPerOp(p)
		b, okB := paced.CPUPerOp(p)
		if okA && okB {
			fmt.Fprintf(w, "| %s µs/op | %.1f | %.1f | %.2f |\n", p, a, b, Ratio(a, b))
		}
	}
}

// judgeRatio is a goal's result for ratio: PASS when it is at least limit (min, a floor)
// or at most limit (a ceiling), else MISS.
func judgeRatio(ratio, limit float64, min bool) string {
	if min {
		return passMiss(ratio >= limit)
	}
	return passMiss(ratio <= limit)
}

func passMiss(ok bool) string {
	if ok {
		return StatusPass
	}
	return StatusMiss
}

// cpuHeader and cpuAlign are the CPU column group of the ceilings and scenarios tables:
// µs of CPU time per OK operation of each process in CPUProcs.
const (
	cpuHeader = " server µs/op | MariaDB µs/op | Redis µs/op | client µs/op |"
	cpuAlign  = "---:|---:|---:|---:|"
)

// cpuCells are r's CPU columns ("-": not measured).
func cpuCells(r *Result) string {
	var b strings.Builder
	for _, p := range CPUProcs {
		b.WriteString(" " + fmtCPUPerOp(r, p) + " |")
	}
	return b.String()
}

// WriteTables writes the ceilings, scenarios and targets tables (Markdown); both first
// tables end with the CPU time per OK operation of the server, MariaDB, Redis and the
// load client, in µs.
func (rep *Report) WriteTables(w io.Writer) {
	fmt.Fprintln(w, "| ceiling | what | ok/s | p50 | p99 | max | errors |"+cpuHeader)
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|"+cpuAlign)
	for _, c := range rep.Ceilings {
		fmt.Fprintf(w, "| %s | %s | %.0f | %s | %s | %s | %d |%s\n", c.Name, c.Title, c.Rate(), fmtMS(c.P50), fmtMS(c.P99), fmtMS(c.Max), c.Errors, cpuCells(c))
	}
	fmt.Fprintln(w)
	redis, mysql, http := rep.find(rep.Ceilings, CeilingRedis), rep.find(rep.Ceilings, CeilingMySQL), rep.find(rep.Ceilings, CeilingHTTP)
	ratio := func(s *Result, c *Result) string {
		if c == nil {
			return "-"
		}
		return fmt.Sprintf("%.2f", Ratio(s.Rate(), c.Rate()))
	}
	fmt.Fprintln(w, "| scenario | ok counts | ok | ok/s | refused | errors | p50 | p90 | p99 | max | / redis | / mysql | / http |"+cpuHeader+" RSS max | audit |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"+cpuAlign+"---:|---|")
	for _, s := range rep.Scenarios {
		audit := "ok"
		if s.Failed() {
			audit = "**FAILED**"
		}
		fmt.Fprintf(w, "| %s | %s | %d | %.0f | %d | %d | %s | %s | %s | %s | %s | %s | %s |%s %s | %s |\n", s.Name, s.Metric, s.OK, s.Rate(),
			s.Rejected, s.Errors, fmtMS(s.P50), fmtMS(s.P90), fmtMS(s.P99), fmtMS(s.Max), ratio(s, redis), ratio(s, mysql), ratio(s, http),
			cpuCells(s), fmtRSS(s.RSSMaxKB), audit)
	}
	rep.writeMixedVsPlain(w)
	rep.writeRoomVsNoop(w)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| target | wanted | got | result |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, t := range rep.Targets {
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", t.Name, t.Want, t.Got, t.Status)
	}
	rep.WriteGoals(w)
}

// WriteGoals writes the goals table (Markdown): each goal's wanted ratio, the measured
// ratio with its figures, and PASS, MISS or "not run"; the raw batch's ratio to the raw
// single-order transaction (orders/s and MariaDB µs per order) follows it.
func (rep *Report) WriteGoals(w io.Writer) {
	if len(rep.Goals) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| goal | wanted | got | result |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, g := range rep.Goals {
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", g.Name, g.Want, g.Got, g.Status)
	}
	b, one := rep.find(rep.Ceilings, CeilingMySQLBatch), rep.find(rep.Ceilings, CeilingMySQL)
	if b != nil && one != nil {
		fmt.Fprintf(w, "\nmysql_batch / mysql: %.2fx orders/s (%.0f vs %.0f)", Ratio(b.Rate(), one.Rate()), b.Rate(), one.Rate())
		bu, okB := b.CPUPerOp(ProcMariaDB)
		ou, okO := one.CPUPerOp(ProcMariaDB)
		if okB && okO {
			fmt.Fprintf(w, ", %.2fx MariaDB µs per order (%.1f vs %.1f)", Ratio(bu, ou), bu, ou)
		}
		fmt.Fprintln(w, ".")
	}
	floor, flash := rep.find(rep.Ceilings, CeilingRedisOrderFloor), rep.find(rep.Scenarios, ScenarioFlash)
	if floor != nil && flash != nil {
		fu, okF := floor.CPUPerOp(ProcRedis)
		su, okS := flash.CPUPerOp(ProcRedis)
		if okF && okS {
			fmt.Fprintf(w, "\nflash sale's Redis per created order / redis_order_floor's per call: %.2fx (%.1f vs %.1f µs; the floor is the order script's commands with no Lua of its own).\n",
				Ratio(su, fu), su, fu)
		}
	}
}

func fmtRSS(kb int64) string {
	if kb == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f MiB", float64(kb)/1024)
}

// WriteMarkdown writes the whole report: the run's facts, the tables, each scenario's
// audit, answers and notes, and links to the plots.
func (rep *Report) WriteMarkdown(w io.Writer) {
	fmt.Fprintf(w, "# seatflow load test, %s\n\n", rep.Started.Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(w, "Server %s; %d clients; %s per phase (the flash sale until sold out, at most %s); flash-sale hall of %d seats; %d buyers; finished %s.\n\n",
		rep.Base, rep.Clients, rep.Duration, max(rep.FlashMax, rep.Duration), rep.BigSeats, rep.Buyers, rep.Finished.Format("15:04:05 UTC"))
	fmt.Fprintln(w, "Ratios divide a scenario's ok/s by a ceiling's ok/s, measured in this run with the same client and concurrency:")
	fmt.Fprintln(w, "redis = raw EVALSHA of the hold script, mysql = a raw MariaDB transaction inserting one order and its seats,")
	fmt.Fprintln(w, "http = GET /healthz of the same server (client and server share this machine's cores). Targets are reported, not asserted.")
	fmt.Fprintln(w, "Two more ceilings are not ratio columns: mysql_batch (the group commit's two multi-row INSERTs, a batch of orders) and")
	fmt.Fprintln(w, "redis_order_floor (the Redis commands of a created order's order script, with no Lua logic around them).")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "µs/op is the CPU time (utime+stime of /proc/<pid>/stat, in 10 ms clock ticks) a process spent during the phase,")
	fmt.Fprintln(w, "all its work included (refused and failed operations, the seat-map buyers' orders), divided by the phase's ok count")
	fmt.Fprintln(w, "(\"-\": not measured). The MariaDB µs/op of the mysql ceiling is the reference: what one order costs MariaDB by itself.")
	if rep.CPUNote != "" {
		fmt.Fprintf(w, "CPU time of: %s.\n", rep.CPUNote)
	}
	fmt.Fprintln(w)
	rep.WriteTables(w)
	if rep.RSSNote != "" {
		fmt.Fprintf(w, "\nServer RSS: %s.\n", rep.RSSNote)
	}
	for _, s := range append(append([]*Result{}, rep.Ceilings...), rep.Scenarios...) {
		fmt.Fprintf(w, "\n## %s: %s\n\n", s.Name, s.Title)
		fmt.Fprintf(w, "%d clients, %s; answers: %s.\n", s.Clients, s.Elapsed.Round(time.Millisecond), strings.Join(s.Codes, ", "))
		if cpu := fmtCPUTimes(s); cpu != "" {
			fmt.Fprintf(w, "CPU time during the phase: %s.\n", cpu)
		}
		if s.FirstError != "" {
			fmt.Fprintf(w, "First error: `%s`.\n", truncate(s.FirstError, 300))
		}
		for _, n := range s.Notes {
			fmt.Fprintf(w, "- %s\n", n)
		}
		if len(s.audit) > 0 {
			fmt.Fprintln(w, "\n| audit | count | |\n|---|---:|---|")
			for _, a := range s.audit {
				mark := "ok"
				if a.Failed() {
					mark = "**FAILED**"
				}
				fmt.Fprintf(w, "| %s | %d | %s |\n", a.Check, a.Count, mark)
			}
		}
		fmt.Fprintf(w, "\n![%s throughput](%s) ![%s latency](%s)\n", s.Name, plotName(s.Name, "throughput"), s.Name, plotName(s.Name, "latency"))
	}
	fmt.Fprintf(w, "\n## Latency distribution of every phase\n\n![latency](%s)\n", "latency.png")
}

func truncate(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// Write writes report.md and the plots into dir.
func (rep *Report) Write(dir string) error {
	f, err := os.Create(filepath.Join(dir, "report.md"))
	if err != nil {
		return err
	}
	rep.WriteMarkdown(f)
	if err := f.Close(); err != nil {
		return err
	}
	return rep.WritePlots(dir)
}
