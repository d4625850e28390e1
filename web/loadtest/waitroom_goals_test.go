package loadtest

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestWaitRoom_Goals: the million-visitor room's goals pass at their limits (a read at
// 2x the no-op's server CPU, 5 µs of Redis, the pace 5 % off) and miss just beyond them;
// without the no-op the read's ratio is not run; with the no-op at the reads' pace
// measured, the read is held to that one; the room tables print the bytes a waiting
// visitor receives a minute and the read beside the paced no-op.
func TestWaitRoom_Goals(t *testing.T) {
	http := withCPU(res(CeilingHTTP, 20000, time.Millisecond), map[string]float64{ProcServer: 20})
	room := func(serverUS, redisUS, pace float64) *Result {
		r := res(ScenarioWaitRoom, 100, time.Millisecond)
		r.Room = &RoomFigures{Pace: 600, MeasuredPace: pace, PaceWindow: 10 * time.Second, BytesPerVisitorMinute: 4321,
			Reads: withCPU(res(ScenarioWaitRoomQueue, 10000, time.Millisecond), map[string]float64{ProcServer: serverUS, ProcRedis: redisUS})}
		return r
	}
	paced := func(r *Result, noopUS float64) *Result {
		r.Room.PacedNoop = withCPU(res(CeilingHTTPPaced, 2000, time.Millisecond), map[string]float64{ProcServer: noopUS})
		return r
	}
	const (
		read  = "waiting room goal: server CPU per queue read"
		redis = "waiting room goal: Redis CPU per queue read"
		pace  = "waiting room goal: admission pace"
	)
	cases := []struct {
		name string
		room *Result
		http *Result
		want map[string]string
	}{
		{"not run", nil, http, map[string]string{read: StatusNotRun, redis: StatusNotRun, pace: StatusNotRun}},
		{"at the limits", room(40, 5, 630), http, map[string]string{read: StatusPass, redis: StatusPass, pace: StatusPass}},
		{"the pace 5 % short", room(1, 0, 570), http, map[string]string{pace: StatusPass}},
		{"just beyond", room(40.5, 5.1, 631), http, map[string]string{read: StatusMiss, redis: StatusMiss, pace: StatusMiss}},
		{"the pace 6 % short", room(1, 0, 564), http, map[string]string{pace: StatusMiss}},
		{"no no-op measured", room(1, 0, 600), nil, map[string]string{read: StatusNotRun, redis: StatusPass}},
		// with the no-op at the reads' pace measured, the read is held to it, not to the
		// saturated one
		{"at 2x the paced no-op", paced(room(100, 1, 600), 50), http, map[string]string{read: StatusPass}},
		{"beyond 2x the paced no-op", paced(room(101, 1, 600), 50), http, map[string]string{read: StatusMiss}},
		{"the paced no-op alone", paced(room(100, 1, 600), 50), nil, map[string]string{read: StatusPass}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := roomGoals(c.room, c.http)
			for prefix, want := range c.want {
				if s := statusOf(got, prefix); s.Status != want {
					t.Errorf("%s: %s (%s), want %s", prefix, s.Status, s.Got, want)
				}
			}
		})
	}
	r := room(40, 5, 600)
	rep := &Report{Ceilings: []*Result{http}, Scenarios: []*Result{r, r.Room.Reads}}
	var b bytes.Buffer
	rep.WriteTables(&b)
	if want := "| bytes a waiting visitor receives a minute | 4321 | - | - |"; !strings.Contains(b.String(), want) {
		t.Errorf("tables lack %q:\n%s", want, b.String())
	}
	b.Reset()
	r = paced(room(90, 5, 600), 45)
	rep = &Report{Ceilings: []*Result{http}, Scenarios: []*Result{r, r.Room.Reads}}
	rep.WriteTables(&b)
	if want := "| server µs/op | 90.0 | 45.0 | 2.00 |"; !strings.Contains(b.String(), want) {
		t.Errorf("tables lack the read beside the paced no-op %q:\n%s", want, b.String())
	}
}

// TestWaitRoom_PlaceOf: the crowd reads its place token from an answer without
// decoding it.
func TestWaitRoom_PlaceOf(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`{"status":"waiting","place_token":"4.23.7.ab.2.mac"}`, "4.23.7.ab.2.mac"},
		{`{"status":"admitted"}`, ""},
		{`{"place_token":"cut`, ""},
	} {
		if got := placeOf([]byte(c.body)); got != c.want {
			t.Errorf("placeOf(%s) = %q, want %q", c.body, got, c.want)
		}
	}
}
