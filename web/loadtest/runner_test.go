package loadtest

import (
	"bytes"
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestFormatProgress(t *testing.T) {
	cases := []struct {
		name    string
		elapsed time.Duration
		done    int64
		ok      int64
		errs    int64
		p99     time.Duration
		want    []string
	}{
		{"running", 2 * time.Second, 1500, 1000, 3, 12340 * time.Microsecond, []string{"flash", "2.0s", "done     1500", "ok/s      500", "errors     3", "p99 12.34 ms"}},
		{"at start", 0, 0, 0, 0, 0, []string{"ok/s        0", "p99 0.00 ms"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := FormatProgress("flash", c.elapsed, c.done, c.ok, c.errs, c.p99)
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
			if strings.ContainsAny(got, "\r\n") {
				t.Errorf("%q: the caller adds the carriage return", got)
			}
		})
	}
}

func TestRecorder_CountsAndCodes(t *testing.T) {
	rec := NewRecorder(time.Now(), 10)
	now := time.Now()
	rec.Observe(OutOK, time.Millisecond, now, "201", "")
	rec.Observe(OutRejected, time.Millisecond, now, "SEAT_TAKEN", "")
	rec.Observe(OutError, time.Millisecond, now, "UNAVAILABLE", "first")
	rec.Observe(OutError, time.Millisecond, now, "transport", "second")
	ok, rej, errs := rec.Counts()
	if ok != 1 || rej != 1 || errs != 2 {
		t.Fatalf("counts %d %d %d", ok, rej, errs)
	}
	codes, first := rec.Codes()
	if strings.Join(codes, ",") != "201 1,SEAT_TAKEN 1,UNAVAILABLE 1,transport 1" || first != "UNAVAILABLE: first" {
		t.Fatalf("codes %v, first %q", codes, first)
	}
	if rec.Lat.Count() != 4 || rec.Timeline.PerSecond(1)[0] != 1 {
		t.Fatal("every op has a latency; only OK counts in the timeline")
	}
}

func TestRunClients_StopsOnDoneAndDeadline(t *testing.T) {
	t.Run("an op ends the run", func(t *testing.T) {
		var n atomic.Int64
		rec := NewRecorder(time.Now(), 5)
		el := runClients(context.Background(), "x", 4, 5*time.Second, rec, nil, false, func(ctx context.Context, w int) bool {
			return n.Add(1) < 100
		})
		if el > 2*time.Second || n.Load() < 100 {
			t.Fatalf("ran %v and %d ops", el, n.Load())
		}
	})
	t.Run("the deadline ends the run and prints a final line", func(t *testing.T) {
		var out bytes.Buffer
		rec := NewRecorder(time.Now(), 5)
		el := runClients(context.Background(), "tick", 2, 150*time.Millisecond, rec, &out, true, func(ctx context.Context, w int) bool {
			time.Sleep(5 * time.Millisecond)
			rec.Observe(OutOK, 5*time.Millisecond, time.Now(), "ok", "")
			return true
		})
		if el < 150*time.Millisecond || el > 2*time.Second {
			t.Fatalf("elapsed %v", el)
		}
		if s := out.String(); !strings.HasPrefix(s, "\rtick") || !strings.HasSuffix(s, "\n") {
			t.Fatalf("progress %q", s)
		}
	})
	t.Run("not live: only the final line, without carriage returns", func(t *testing.T) {
		var out bytes.Buffer
		rec := NewRecorder(time.Now(), 5)
		runClients(context.Background(), "quiet", 1, 1100*time.Millisecond, rec, &out, false, func(ctx context.Context, w int) bool {
			time.Sleep(10 * time.Millisecond)
			return true
		})
		if s := out.String(); strings.Count(s, "\n") != 1 || strings.Contains(s, "\r") || !strings.HasPrefix(s, "quiet") {
			t.Fatalf("progress %q", s)
		}
	})
}
