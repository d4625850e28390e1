package handlers

import (
	"seatflow/services/reconcile"
)

// JSON shapes of the reconciliation run report (API.md, Reconciliation). Ids are
// strings; an absent id, order number, actor, error or finish time is null, never
// omitted, so every key of a shape is always there.

// actorJSON is the admin who started a manual run.
type actorJSON struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

// runJSON is one run as the run history lists it: the contract's keys first, then the
// extras (status, error, actor, the show it was scoped to, counts, duration).
type runJSON struct {
	RunID         string     `json:"run_id"`
	Trigger       string     `json:"trigger"`
	DryRun        bool       `json:"dry_run"`
	StartedAt     string     `json:"started_at"`
	FinishedAt    *string    `json:"finished_at"` // null while running
	Fixed         int        `json:"fixed"`
	FindingsCount int        `json:"findings_count"`
	Status        string     `json:"status"` // running, done, failed, lease_lost
	Error         *string    `json:"error"`  // why a run failed; null when it did not
	Actor         *actorJSON `json:"actor"`  // null for cron and cli runs
	ShowID        *string    `json:"show_id"`
	ShowsChecked  int        `json:"shows_checked"`
	DurationMS    *int64     `json:"duration_ms"` // null while running
}

// reportJSON is a run with its findings (in the order they were found) and their
// number per kind.
type reportJSON struct {
	runJSON
	Findings     []findingJSON  `json:"findings"`
	CountsByKind map[string]int `json:"counts_by_kind"`
}

// findingJSON is one piece of drift; seat_id and order_no are null when the finding is
// not about a seat or an order.
type findingJSON struct {
	Kind    string  `json:"kind"`
	ShowID  *string `json:"show_id"`
	SeatID  *string `json:"seat_id"`
	OrderNo *string `json:"order_no"`
	Action  string  `json:"action"`
	Fixed   bool    `json:"fixed"`
	Detail  string  `json:"detail"`
}

// runOut renders a run without its findings.
func runOut(r *reconcile.ReconcileRun) runJSON {
	out := runJSON{RunID: id(r.ID), Trigger: r.Trigger, DryRun: r.DryRun, StartedAt: rfc(r.StartedAt),
		Fixed: r.Fixed, FindingsCount: r.FindingsCount, Status: r.Status, Error: optString(r.Error),
		ShowsChecked: r.ShowsChecked}
	if r.FinishedAt != nil {
		at, ms := rfc(*r.FinishedAt), r.Duration().Milliseconds()
		out.FinishedAt, out.DurationMS = &at, &ms
	}
	if r.ActorID != nil {
		out.Actor = &actorJSON{ID: id(*r.ActorID), Email: r.ActorEmail}
	}
	if r.ShowID != nil {
		out.ShowID = optID(*r.ShowID)
	}
	return out
}

// reportOut renders a run with its findings ([] when it found nothing).
func reportOut(r *reconcile.ReconcileRun) reportJSON {
	out := reportJSON{runJSON: runOut(r), Findings: make([]findingJSON, len(r.Findings)), CountsByKind: r.CountsByKind()}
	for i, f := range r.Findings {
		out.Findings[i] = findingJSON{Kind: f.Kind, ShowID: optID(f.ShowID), SeatID: optID(f.SeatID),
			OrderNo: optString(f.OrderNo), Action: f.Action, Fixed: f.Fixed, Detail: f.Detail}
	}
	return out
}
