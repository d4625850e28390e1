package loadtest

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// CPU time per operation: every phase (ceiling or scenario) reads utime+stime (fields 14
// and 15 of /proc/<pid>/stat, in clock ticks) of the seatflow server, MariaDB, Redis and
// the load client before and after it runs; the difference divided by the phase's OK
// count is the CPU time each process spent per measured operation, in µs.

// Processes whose CPU time a phase measures (keys of Result.CPU), in the report's
// column order.
const (
	ProcServer  = "server"
	ProcMariaDB = "MariaDB"
	ProcRedis   = "Redis"
	ProcClient  = "client"
)

// CPUProcs are the measured processes in the report's column order.
var CPUProcs = []string{ProcServer, ProcMariaDB, ProcRedis, ProcClient}

// ClockTicksPerSecond is the unit of the CPU times of /proc/<pid>/stat. It is assumed
// to be 100, USER_HZ, what `getconf CLK_TCK` answers on Linux: a phase's CPU time is
// known to 10 ms, so a phase of n operations has a resolution of 10000/n µs per op.
const ClockTicksPerSecond = 100

// ParseProcStat returns utime+stime, fields 14 and 15 of a /proc/<pid>/stat line, in
// clock ticks. The second field, comm, is in parentheses and may itself contain spaces
// and parentheses: the fields are counted after the last ')'.
func ParseProcStat(line string) (int64, error) {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return 0, errors.New("proc stat: no ')' after comm")
	}
	f := strings.Fields(line[i+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, fmt.Errorf("proc stat: %d fields after comm, want at least 13", len(f))
	}
	var ticks int64
	for _, s := range f[11:13] { // fields 14 (utime) and 15 (stime)
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("proc stat: bad cpu time %q", s)
		}
		ticks += n
	}
	return ticks, nil
}

// ReadProcCPU returns the CPU time (utime+stime) that process pid has used so far, in
// clock ticks, from /proc/<pid>/stat; pid 0 is this process (/proc/self/stat).
func ReadProcCPU(pid int) (int64, error) {
	path := "/proc/self/stat"
	if pid != 0 {
		path = "/proc/" + strconv.Itoa(pid) + "/stat"
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return ParseProcStat(string(b))
}

// cpuMeter reads the CPU time of the measured processes: pids by process name
// (ProcServer, ...), a process that was not found is absent (pid 0 is this process).
type cpuMeter struct {
	pids map[string]int
}

// snapshot returns each process's CPU time so far in clock ticks; a process whose stat
// cannot be read is absent. A nil meter measures nothing.
func (m *cpuMeter) snapshot() map[string]int64 {
	if m == nil {
		return nil
	}
	out := make(map[string]int64, len(m.pids))
	for name, pid := range m.pids {
		if t, err := ReadProcCPU(pid); err == nil {
			out[name] = t
		}
	}
	return out
}

// cpuSince is the CPU time each process spent between two snapshots; a process missing
// from either, or whose time went backwards (it restarted), is absent.
func cpuSince(before, after map[string]int64) map[string]time.Duration {
	out := map[string]time.Duration{}
	for name, b := range before {
		if a, ok := after[name]; ok && a >= b {
			out[name] = time.Duration(a-b) * time.Second / ClockTicksPerSecond
		}
	}
	return out
}

// CPUPerOp returns the CPU time process proc (ProcServer, ...) spent during the phase
// per OK operation, in µs; false when the process was not measured, nothing was OK or
// the result is nil.
func (r *Result) CPUPerOp(proc string) (float64, bool) {
	if r == nil || r.OK <= 0 {
		return 0, false
	}
	d, ok := r.CPU[proc]
	if !ok {
		return 0, false
	}
	return float64(d) / float64(time.Microsecond) / float64(r.OK), true
}

// fmtCPUPerOp formats r's µs per operation of proc with one decimal ("-": not measured).
func fmtCPUPerOp(r *Result, proc string) string {
	us, ok := r.CPUPerOp(proc)
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.1f", us)
}

// fmtCPUTimes lists the CPU time each measured process spent during r, in seconds
// ("server 1.23 s, MariaDB 0.40 s"); "" when none was measured.
func fmtCPUTimes(r *Result) string {
	var parts []string
	for _, p := range CPUProcs {
		if d, ok := r.CPU[p]; ok {
			parts = append(parts, fmt.Sprintf("%s %.2f s", p, d.Seconds()))
		}
	}
	return strings.Join(parts, ", ")
}
