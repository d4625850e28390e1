package loadtest

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestWaitRoom_MeasuredPace(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	cases := []struct {
		name    string
		samples []roomSample
		pace    float64
		window  time.Duration
	}{
		{"the opening burst before anyone waits is left out", []roomSample{
			{at: at(0), waiting: 0, admitted: 0},
			{at: at(200), waiting: 0, admitted: 50}, // everyone admitted at once: the pace did not limit it
			{at: at(400), waiting: 300, admitted: 52},
			{at: at(2400), waiting: 500, admitted: 72},
			{at: at(4400), waiting: 480, admitted: 92},
		}, 600, 4 * time.Second},
		{"the queue ran dry: only while someone waited", []roomSample{
			{at: at(0), waiting: 20, admitted: 0},
			{at: at(3000), waiting: 5, admitted: 30},
			{at: at(4000), waiting: 0, admitted: 35},
			{at: at(9000), waiting: 0, admitted: 35},
		}, 600, 3 * time.Second},
		{"a closed room admits nobody: its samples do not count", []roomSample{
			{at: at(0), waiting: 10, admitted: 0},
			{at: at(2000), waiting: 10, admitted: 20},
			{at: at(6000), waiting: 10, admitted: 20, closed: "sold_out"},
		}, 600, 2 * time.Second},
		{"nobody waited a whole second", []roomSample{
			{at: at(0), waiting: 0},
			{at: at(200), waiting: 3, admitted: 1},
			{at: at(400), waiting: 0, admitted: 4},
		}, 0, 0},
		{"nobody waited", []roomSample{{at: at(0)}, {at: at(5000), admitted: 7}}, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pace, window := measuredPace(c.samples)
			if pace < c.pace-0.001 || pace > c.pace+0.001 || (c.pace > 0 && window != c.window) {
				t.Fatalf("pace %.3f over %s, want %.3f over %s", pace, window, c.pace, c.window)
			}
		})
	}
}

func TestWaitRoom_Targets(t *testing.T) {
	room := func(p99 time.Duration, orders int64, f RoomFigures) *Result {
		r := res(ScenarioWaitRoom, orders, p99)
		r.Room = &f
		return r
	}
	good := RoomFigures{Visitors: 100, Pace: 600, MeasuredPace: 600, PaceWindow: 10 * time.Second, Refusals: 30, RefusedNotAdmitted: 30,
		OrdersInMySQL: 100}
	const (
		p99Name   = "waiting room: admitted buyers' order p99"
		paceName  = "waiting room: admission pace"
		refused   = "waiting room: orders without a valid token"
		unadmited = "waiting room: orders in MySQL"
	)
	cases := []struct {
		name string
		s    *Result
		want map[string]string
	}{
		{"not run", nil, map[string]string{p99Name: StatusNotRun, paceName: StatusNotRun, refused: StatusNotRun, unadmited: StatusNotRun}},
		{"all at their limits", room(50*time.Millisecond, 100, func() RoomFigures { f := good; f.MeasuredPace = 720; return f }()),
			map[string]string{p99Name: StatusPass, paceName: StatusPass, refused: StatusPass, unadmited: StatusPass}},
		{"pace 20 % short is still in", room(time.Millisecond, 100, func() RoomFigures { f := good; f.MeasuredPace = 480; return f }()),
			map[string]string{paceName: StatusPass}},
		{"slow orders, a fast pace, one refusal let through, an unadmitted order",
			room(51*time.Millisecond, 100, func() RoomFigures {
				f := good
				f.MeasuredPace, f.RefusedNotAdmitted, f.RefusalCodes, f.OrdersUnadmitted = 721, 29, []string{"201"}, 1
				return f
			}()),
			map[string]string{p99Name: StatusMiss, paceName: StatusMiss, refused: StatusMiss, unadmited: StatusMiss}},
		{"no order at all is a miss; a pace not measured is not run", room(0, 0, func() RoomFigures { f := good; f.MeasuredPace = 0; return f }()),
			map[string]string{p99Name: StatusMiss, paceName: StatusNotRun}},
		{"no refusal sent is a miss", room(time.Millisecond, 1, func() RoomFigures { f := good; f.Refusals, f.RefusedNotAdmitted = 0, 0; return f }()),
			map[string]string{refused: StatusMiss}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var scen []*Result
			if c.s != nil {
				scen = append(scen, c.s)
			}
			got := EvaluateTargets(nil, scen, 0, false)
			for prefix, want := range c.want {
				if s := statusOf(got, prefix); s.Status != want {
					t.Errorf("%s: %s (%s), want %s", prefix, s.Status, s.Got, want)
				}
			}
		})
	}
}

func TestWaitRoom_QueueReadBesideNoop(t *testing.T) {
	reads := withCPU(res(ScenarioWaitRoomQueue, 2000, 4*time.Millisecond), map[string]float64{ProcServer: 100, ProcRedis: 40})
	reads.P50 = time.Millisecond
	http := withCPU(res(CeilingHTTP, 20000, 8*time.Millisecond), map[string]float64{ProcServer: 25, ProcRedis: 0.5})
	http.P50 = 2 * time.Millisecond
	rep := &Report{Ceilings: []*Result{http}, Scenarios: []*Result{res(ScenarioWaitRoom, 10, time.Millisecond), reads}}
	var b bytes.Buffer
	rep.WriteTables(&b)
	for _, want := range []string{"| waiting room | queue read | HTTP no-op | ratio |", "| p50 | 1.00 ms | 2.00 ms | 0.50 |",
		"| p99 | 4.00 ms | 8.00 ms | 0.50 |", "| server µs/op | 100.0 | 25.0 | 4.00 |", "| Redis µs/op | 40.0 | 0.5 | 80.00 |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("tables lack %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	(&Report{Ceilings: []*Result{http}}).WriteTables(&b)
	if strings.Contains(b.String(), "queue read") {
		t.Errorf("a run without the waiting room has its table:\n%s", b.String())
	}
}

// TestWaitRoom_CrowdScales: a small crowd arrives over the first quarter of the run (at
// most 5 s) and reads every 5 s over 200 connections; a larger one arrives over longer
// and reads less often, so that it asks the machine 1,000 joins and 2,000 reads a
// second at most (or 15 % of the saturated no-op's answers a second, when more), with a
// poll well within the 120 s a silent place is kept.
func TestWaitRoom_CrowdScales(t *testing.T) {
	cases := []struct {
		name     string
		duration time.Duration
		visitors int
		arrive   time.Duration
		poll     time.Duration
		conns    int
	}{
		{"the smoke run's crowd", 2 * time.Second, 100, 500 * time.Millisecond, 5 * time.Second, 200},
		{"5,000", 20 * time.Second, 5000, 5 * time.Second, 5 * time.Second, 200},
		{"10,000", 20 * time.Second, 10000, 10 * time.Second, 5 * time.Second, 200},
		{"5,000 in a short run", 8 * time.Second, 5000, 5 * time.Second, 5 * time.Second, 200},
		{"30,000", 20 * time.Second, 30000, 30 * time.Second, 15 * time.Second, 300},
		{"100,000", 20 * time.Second, 100000, 100 * time.Second, 50 * time.Second, 1000},
		{"a million reads at most every minute", 20 * time.Second, 1000000, 1000 * time.Second, time.Minute, 10000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := arrivalWindow(c.duration, c.visitors); got != c.arrive {
				t.Errorf("arrivals over %s, want %s", got, c.arrive)
			}
			if got := defaultPoll(c.visitors, 0); got != c.poll {
				t.Errorf("poll %s, want %s", got, c.poll)
			}
			if got := defaultConns(c.visitors); got != c.conns {
				t.Errorf("%d connections, want %d", got, c.conns)
			}
			o := Options{Clients: 1, Duration: c.duration, Rows: 2, Cols: 4, Buyers: 1, Visitors: c.visitors}
			if err := o.defaults(); err != nil {
				t.Fatal(err)
			}
			if o.QueuePoll != 0 || o.VisitorConns != c.conns {
				t.Errorf("options: poll %s, %d connections; want 0 (the scenario's defaultPoll), %d", o.QueuePoll, o.VisitorConns, c.conns)
			}
			if 3*c.poll/2+30*time.Second > 120*time.Second {
				t.Errorf("the longest wait between reads (%s) leaves less than 30 s of the 120 s a silent place is kept", 3*c.poll/2)
			}
		})
	}
	// beside the saturated no-op: 15 % of its answers a second, when that is more than 2,000
	for _, c := range []struct {
		name     string
		visitors int
		noop     float64
		poll     time.Duration
	}{
		{"100,000 beside a slow machine's no-op", 100000, 8000, 50 * time.Second},
		{"100,000 beside a no-op of 28,000/s", 100000, 28000, 24 * time.Second},
		{"100,000 beside a no-op of 200,000/s: never under the page's 5 s", 100000, 200000, 5 * time.Second},
		{"10,000 beside a no-op of 28,000/s: the page's 5 s", 10000, 28000, 5 * time.Second},
		{"a million beside a no-op of 28,000/s: at most a minute", 1000000, 28000, time.Minute},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := defaultPoll(c.visitors, c.noop); got != c.poll {
				t.Errorf("poll %s, want %s", got, c.poll)
			}
		})
	}
}

// TestWaitRoom_ReadCPUFromWhenAllJoined: the CPU time of the window after every visitor
// joined is divided by the reads of that window, whatever Result.CPUPerOp divides by.
func TestWaitRoom_ReadCPUFromWhenAllJoined(t *testing.T) {
	cases := []struct {
		name          string
		all, inWindow int64
		want          float64 // µs per read of the server
	}{
		{"every read in the window", 1000, 1000, 100},
		{"the window began after 600 of 1,000 reads", 1000, 400, 250},
		{"no read in the window", 1000, 0, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &Result{OK: c.all, CPU: perReads(map[string]time.Duration{ProcServer: 100 * time.Millisecond}, c.all, c.inWindow)}
			got, ok := r.CPUPerOp(ProcServer)
			if c.want < 0 {
				if ok {
					t.Fatalf("%.1f µs per read of a window without reads", got)
				}
				return
			}
			if !ok || got < c.want-0.01 || got > c.want+0.01 {
				t.Fatalf("%.2f µs per read (measured %v), want %.2f", got, ok, c.want)
			}
		})
	}
}

// TestWaitRoom_FailedJoinTriedAgainSoon: a visitor whose join failed tries again within
// 1.5 s, not a poll later; a joined visitor waits 0.5x to 1.5x of the poll.
func TestWaitRoom_FailedJoinTriedAgainSoon(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name     string
		poll     time.Duration
		joined   bool
		min, max time.Duration
	}{
		{"joined, 50 s poll", 50 * time.Second, true, 25 * time.Second, 75 * time.Second},
		{"not joined, 50 s poll", 50 * time.Second, false, 500 * time.Millisecond, 1500 * time.Millisecond},
		{"not joined, a poll shorter than the retry", 200 * time.Millisecond, false, 100 * time.Millisecond, 300 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for i := 0; i < 1000; i++ {
				if d := nextWait(c.poll, c.joined, rng); d < c.min || d > c.max {
					t.Fatalf("waits %s, want %s to %s", d, c.min, c.max)
				}
			}
		})
	}
}
