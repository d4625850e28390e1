package views

import (
	"sort"
	"strconv"
	"time"
)

// A reconciliation run's trigger and status, as ReconcileRun carries them (the values of
// the reconcile package's Trigger* and Run* constants).
const (
	TriggerCron  = "cron"
	TriggerCLI   = "cli"
	RunRunning   = "running"
	RunDone      = "done"
	RunFailed    = "failed"
	RunLeaseLost = "lease_lost"
)

// ReconcileRun is one reconciliation run: who started it (Trigger, and ActorID and
// ActorEmail for a manual run), its scope (ShowID, nil for all shows), Status and
// Error, its counts, when it started and finished (FinishedAt nil while it runs; UTC),
// Duration (0 while it runs), Kinds (the findings per kind) and, on a run's own page,
// its Findings.
type ReconcileRun struct {
	ID            int64
	Trigger       string
	DryRun        bool
	ActorID       *int64
	ActorEmail    string
	ShowID        *int64
	Status        string
	Error         string
	ShowsChecked  int
	FindingsCount int
	Fixed         int
	StartedAt     time.Time
	FinishedAt    *time.Time
	Duration      time.Duration
	Kinds         map[string]int
	Findings      []Finding
}

// Finding is one difference a run found between the database and the seat cache: its
// Kind, where (ShowID, SeatID, OrderNo), the Action taken, whether it was Fixed, and a
// Detail for people.
type Finding struct {
	Kind    string
	ShowID  int64
	SeatID  int64
	OrderNo string
	Action  string
	Fixed   bool
	Detail  string
}

// ReconcilePageProps are the props of the reconciliation page: the run history (newest
// first; runs with findings carry them, for the counts by kind), the cinema's zone, and
// the start form's error message and show id.
type ReconcilePageProps struct {
	Page
	Runs   []*ReconcileRun
	Zone   *time.Location
	Error  string
	ShowID string
}

// ReconcileRunProps are the props of one run's page; Run carries its findings.
type ReconcileRunProps struct {
	Page
	Run  *ReconcileRun
	Zone *time.Location
}

// ReconcileRunURL is a reconciliation run's page.
func ReconcileRunURL(id int64) string { return "/admin/reconcile/runs/" + i64(id) }

// RunTime formats an instant in the cinema's zone with seconds: "Mon 30 Nov, 19:30:05".
func RunTime(t time.Time, loc *time.Location) string {
	return inZone(t, loc).Format("Mon 2 Jan, 15:04:05")
}

// RunWho says who started a run: the admin's email for a manual run ("admin #7" when
// the account has no email any more), "schedule" for cron, "command line" for cli.
func RunWho(r *ReconcileRun) string {
	switch r.Trigger {
	case TriggerCron:
		return "schedule"
	case TriggerCLI:
		return "command line"
	}
	if r.ActorEmail != "" {
		return r.ActorEmail
	}
	if r.ActorID != nil {
		return "admin #" + i64(*r.ActorID)
	}
	return r.Trigger
}

// RunDuration formats how long a run took: "340 ms", "2.4 s", "3 min 05 s"; "running"
// while it has not finished.
func RunDuration(r *ReconcileRun) string {
	if r.FinishedAt == nil {
		return "running"
	}
	d := r.Duration
	switch {
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
	}
	s := int(d / time.Second)
	return strconv.Itoa(s/60) + " min " + pad2(uint64(s%60)) + " s"
}

// RunStatus is a run's status as a badge.
func RunStatus(r *ReconcileRun) StatusView {
	switch r.Status {
	case RunDone:
		return StatusView{"done", "run-done"}
	case RunRunning:
		return StatusView{"running", "run-running"}
	case RunLeaseLost:
		return StatusView{"lease lost", "run-failed"}
	case RunFailed:
		return StatusView{"failed", "run-failed"}
	}
	return StatusView{r.Status, "status-other"}
}

// RunScope names what a run covered: "all shows" or "show 7".
func RunScope(r *ReconcileRun) string {
	if r.ShowID == nil {
		return "all shows"
	}
	return "show " + i64(*r.ShowID)
}

// KindCount is how many findings of one kind a run had, and how many it fixed.
type KindCount struct {
	Kind  string
	Found int
	Fixed int
}

// KindCounts counts a run's findings per kind, sorted by kind; for a listed run (no
// findings loaded) only Found is known.
func KindCounts(r *ReconcileRun) []KindCount {
	idx := map[string]int{}
	var out []KindCount
	if len(r.Findings) == 0 {
		for k, n := range r.Kinds {
			out = append(out, KindCount{Kind: k, Found: n})
		}
	}
	for _, f := range r.Findings {
		i, ok := idx[f.Kind]
		if !ok {
			i = len(out)
			idx[f.Kind] = i
			out = append(out, KindCount{Kind: f.Kind})
		}
		out[i].Found++
		if f.Fixed {
			out[i].Fixed++
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Kind < out[j].Kind })
	return out
}

// YesNo is "yes" or "no".
func YesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// OrDash is s, or "—" when it is empty.
func OrDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// IDOrDash is an id, or "—" for 0 (none).
func IDOrDash(id int64) string {
	if id == 0 {
		return "—"
	}
	return i64(id)
}
