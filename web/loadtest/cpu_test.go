package loadtest

import (
	"os"
	"testing"
	"time"
)

func TestProcStat_Parse(t *testing.T) {
	tail := " S 1 3806 3806 0 -1 4194560 60624 0 10 0 2135 1379 0 0 20 0 89 0 9432 8797573287936 65567"
	cases := []struct {
		name    string
		line    string
		want    int64
		wantErr bool
	}{
		{"plain comm", "3807 (mariadbd)" + tail, 2135 + 1379, false},
		{"comm with spaces and parentheses", "42 (a (b) c) d)" + tail, 3514, false},
		{"comm that is a closing parenthesis", "42 ())" + tail, 3514, false},
		{"trailing newline", "3807 (redis-server)" + tail + "\n", 3514, false},
		{"no parenthesis", "3807 mariadbd" + tail, 0, true},
		{"cut short before stime", "3807 (x) S 1 2 3 4 5 6 7 8 9 10 11", 0, true},
		{"cpu time not a number", "3807 (x) S 1 2 3 4 5 6 7 8 9 10 2x 3 0", 0, true},
		{"negative cpu time", "3807 (x) S 1 2 3 4 5 6 7 8 9 10 -2 3 0", 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseProcStat(c.line)
			if (err != nil) != c.wantErr || got != c.want {
				t.Fatalf("ParseProcStat = %d, %v; want %d, error %v", got, err, c.want, c.wantErr)
			}
		})
	}
}

func TestProcStat_ReadAndSnapshot(t *testing.T) {
	for _, pid := range []int{0, os.Getpid()} {
		if _, err := ReadProcCPU(pid); err != nil {
			t.Errorf("ReadProcCPU(%d): %v", pid, err)
		}
	}
	m := &cpuMeter{pids: map[string]int{ProcClient: 0, ProcRedis: 1 << 30}} // no such pid
	snap := m.snapshot()
	if _, ok := snap[ProcClient]; !ok {
		t.Errorf("no client time in %v", snap)
	}
	if _, ok := snap[ProcRedis]; ok {
		t.Errorf("a process that does not exist was read: %v", snap)
	}
	if (*cpuMeter)(nil).snapshot() != nil {
		t.Error("a nil meter measured something")
	}
}

func TestCPU_SinceAndPerOp(t *testing.T) {
	d := cpuSince(map[string]int64{ProcServer: 100, ProcMariaDB: 50, ProcRedis: 7, ProcClient: 9},
		map[string]int64{ProcServer: 130, ProcMariaDB: 40, ProcClient: 9})
	want := map[string]time.Duration{ProcServer: 300 * time.Millisecond, ProcClient: 0}
	if len(d) != len(want) || d[ProcServer] != want[ProcServer] || d[ProcClient] != 0 {
		t.Fatalf("cpuSince = %v, want %v (restarted and vanished processes dropped)", d, want)
	}
	r := &Result{OK: 1000, CPU: d}
	if us, ok := r.CPUPerOp(ProcServer); !ok || us != 300 {
		t.Errorf("server: %v %v, want 300 µs/op", us, ok)
	}
	for _, c := range []struct {
		name string
		r    *Result
		proc string
	}{{"not measured", r, ProcMariaDB}, {"nothing ok", &Result{CPU: d}, ProcServer}, {"no result", nil, ProcServer}} {
		t.Run(c.name, func(t *testing.T) {
			if us, ok := c.r.CPUPerOp(c.proc); ok {
				t.Errorf("%v µs/op, want none", us)
			}
		})
	}
	if got := fmtCPUPerOp(r, ProcMariaDB) + " " + fmtCPUPerOp(r, ProcServer); got != "- 300.0" {
		t.Errorf("fmtCPUPerOp: %q", got)
	}
	if got := fmtCPUTimes(r); got != "server 0.30 s, client 0.00 s" {
		t.Errorf("fmtCPUTimes: %q", got)
	}
}

func TestProc_InfoField(t *testing.T) {
	info := "# Server\r\nredis_version:7.2.4\r\nprocess_id:2227\r\nprocess_supervised:no\r\n"
	if got := infoField(info, "process_id"); got != "2227" {
		t.Errorf("process_id = %q", got)
	}
	if got := infoField(info, "run_id"); got != "" {
		t.Errorf("run_id = %q, want none", got)
	}
	if commIs(1<<30, redisComms) {
		t.Error("a process that does not exist is a redis-server")
	}
}
