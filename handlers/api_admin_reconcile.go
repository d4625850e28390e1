package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/reconcile"
)

// reconcileWait is how long a manual run waits for a run in progress to finish before
// it gives up with 409 CONFLICT.
const reconcileWait = 20 * time.Second

// reconcileTimeout bounds one manual run, the wait for the lease included.
const reconcileTimeout = 3 * time.Minute

// Run history sizes of GET /api/v1/admin/reconcile/runs (?limit=).
const (
	defaultRunsLimit = 50
	maxRunsLimit     = 500
)

// apiReconcile runs reconciliation now for the signed-in admin -> 200 the run report
// (also when the run stopped half way: its status and error say why). Errors: 400
// INVALID_REQUEST, 404 unknown show, 409 CONFLICT (another run after reconcileWait), 503.
func (d *Deps) apiReconcile(c *fiber.Ctx) error {
	req, err := parseReconcileBody(c.Body())
	if err != nil {
		return err
	}
	run, err := d.runManual(c, currentUser(c), req)
	if err != nil {
		return err
	}
	return c.JSON(reportOut(run))
}

// apiReconcileRuns lists stored runs newest first, ?limit= of them (1..500, default 50),
// without findings. Errors: 400 for a bad or empty limit, 503.
func (d *Deps) apiReconcileRuns(c *fiber.Ctx) error {
	if err := refuseBlankQuery(c, "limit"); err != nil {
		return err
	}
	limit, err := queryLimit(c, defaultRunsLimit, maxRunsLimit)
	if err != nil {
		return err
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	runs, err := d.Reconcile.Runs(ctx, limit)
	if err != nil {
		return err
	}
	out := make([]runJSON, len(runs))
	for i, r := range runs {
		out[i] = runOut(r)
	}
	return c.JSON(fiber.Map{"runs": out})
}

// apiReconcileRun returns one stored run's report. Errors: 404 for an unknown or
// malformed run id, 503.
func (d *Deps) apiReconcileRun(c *fiber.Ctx) error {
	runID, ok := idParam(c, "run_id")
	if !ok {
		return &services.Error{Code: services.CodeNotFound, Message: "reconciliation run not found"}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	run, err := d.Reconcile.RunReport(ctx, runID)
	if err != nil {
		return err
	}
	return c.JSON(reportOut(run))
}

// runManual runs reconciliation as admin u asked, waiting up to reconcileWait for a run
// in progress. It returns the stored run, also one that stopped half way (its Status
// and Error say why); the error only when there is no stored report to show (busy,
// unknown show, a store down before or after the run).
func (d *Deps) runManual(c *fiber.Ctx, u *services.User, req reconcileRequest) (*reconcile.ReconcileRun, error) {
	ctx, cancel := context.WithTimeout(c.UserContext(), reconcileTimeout)
	defer cancel()
	run, err := d.Reconcile.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerManual, DryRun: req.DryRun,
		ShowID: req.ShowID, ActorID: u.ID, Wait: reconcileWait})
	if err != nil && (run == nil || run.Error == "") {
		return nil, err
	}
	if run.ActorEmail == "" {
		run.ActorEmail = u.Email // Run returns the actor's id only; a stored report joins the email
	}
	return run, nil
}

// reconcileRequest is what a manual run asks for: a dry run or a real one, of one show
// (ShowID) or of every show (0).
type reconcileRequest struct {
	DryRun bool
	ShowID int64
}

// parseReconcileBody reads the optional body {"dry_run": bool, "show_id": "7"}; an empty
// body is a real run of every show. Anything else is INVALID_REQUEST: not one JSON
// object, wrong types (a number or null as show_id, null as dry_run), a show id that is
// not a positive integer, or an unknown field (a misspelt "dry_run" must not start a
// real run).
func parseReconcileBody(body []byte) (reconcileRequest, error) {
	var req reconcileRequest
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return req, nil
	}
	var in struct {
		DryRun json.RawMessage `json:"dry_run"`
		ShowID json.RawMessage `json:"show_id"`
	}
	if err := decodeObject(body, &in, `{"dry_run":true,"show_id":"7"}`); err != nil {
		return req, err
	}
	if len(in.DryRun) > 0 { // null is refused too: a run must never be real by accident
		if s := string(in.DryRun); s != "true" && s != "false" {
			return req, invalid("dry_run must be true or false")
		}
		req.DryRun = string(in.DryRun) == "true"
	}
	if isSet(in.ShowID) {
		var ok bool
		if req.ShowID, ok = jsonShowID(in.ShowID); !ok {
			return req, invalid(`show_id must be a show id: a string of digits such as "7"`)
		}
	}
	return req, nil
}
