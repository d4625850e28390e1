package loadtest

import (
	"time"
)

// Result is what one ceiling or scenario measured.
type Result struct {
	Name    string // e.g. "flash", "http"
	Title   string // what it does
	Metric  string // what OK counts, e.g. "created orders"
	Ceiling bool
	Clients int
	Elapsed time.Duration
	// OK are the measured answers, Rejected expected refusals, Errors everything else.
	OK, Rejected, Errors int64
	// Codes are the answers seen ("SEAT_TAKEN 12", ...); FirstError describes the first error.
	Codes      []string
	FirstError string
	// Latencies of every measured operation (OK, refused or failed).
	P50, P90, P99, Max time.Duration
	// PerSecond is OK per whole second of the run.
	PerSecond []int64
	// CDFLat/CDFFrac are the latency distribution (see Histogram.CDF).
	CDFLat  []time.Duration
	CDFFrac []float64
	// SeatsSold and SoldOut describe a sale.
	SeatsSold int64
	SoldOut   bool
	Notes     []string
	// RSSMaxKB is the server's largest resident set during the phase (0: not sampled).
	RSSMaxKB int64
	// CPU is the CPU time each process (ProcServer, ProcMariaDB, ProcRedis, ProcClient)
	// spent during the phase, from /proc/<pid>/stat (see cpu.go); absent: not measured.
	CPU map[string]time.Duration
	// Room is what the waitroom scenario found (nil for every other phase).
	Room  *RoomFigures
	audit []AuditLine
}

// newResult summarises a recorder.
func newResult(name, title, metric string, clients int, elapsed time.Duration, rec *Recorder) *Result {
	ok, rej, errs := rec.Counts()
	res := &Result{Name: name, Title: title, Metric: metric, Clients: clients, Elapsed: elapsed, OK: ok, Rejected: rej, Errors: errs,
		P50: rec.Lat.Percentile(50), P90: rec.Lat.Percentile(90), P99: rec.Lat.Percentile(99), Max: rec.Lat.Max()}
	res.Codes, res.FirstError = rec.Codes()
	secs := int((elapsed + time.Second - 1) / time.Second)
	res.PerSecond = rec.Timeline.PerSecond(secs)
	res.CDFLat, res.CDFFrac = rec.Lat.CDF()
	return res
}

// Rate is OK per second of the run's wall time.
func (r *Result) Rate() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.OK) / r.Elapsed.Seconds()
}

// Audit returns the audit lines of a scenario (none for a ceiling).
func (r *Result) Audit() []AuditLine { return r.audit }

// Failed reports whether any audit line is non-zero where it must be zero.
func (r *Result) Failed() bool {
	for _, a := range r.audit {
		if a.Failed() {
			return true
		}
	}
	return false
}
