package loadtest

import (
	"bytes"
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
