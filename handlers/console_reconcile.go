package handlers

import (
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
	"seatflow/views"
)

// reconcilePageRuns is how many runs the reconciliation page lists.
const reconcilePageRuns = 30

// reconcilePage shows the run history and the form that starts a run.
func (d *Deps) reconcilePage(c *fiber.Ctx) error {
	return d.renderReconcileList(c, fiber.StatusOK, "", "")
}

// startReconcile runs reconciliation from the form (show_id optional; the button's mode
// "dry" or "run") and redirects (303) to the run's page; a busy lease (409), an unknown
// show (404) or a bad show id (400) shows the list again with the message.
func (d *Deps) startReconcile(c *fiber.Ctx) error {
	show := utils.CopyString(strings.TrimSpace(c.FormValue("show_id")))
	var req reconcileRequest
	switch c.FormValue("mode") {
	case "dry":
		req.DryRun = true
	case "run":
	default:
		return d.renderReconcileList(c, fiber.StatusBadRequest, "Choose Run now or Dry run.", show)
	}
	if show != "" {
		id, ok := parseID(show)
		if !ok {
			return d.renderReconcileList(c, fiber.StatusBadRequest, "The show id must be a number such as 7, or empty for every show.", show)
		}
		req.ShowID = id
	}
	run, err := d.runManual(c, currentUser(c), req)
	if err != nil {
		st, se := pageError(c, err)
		switch {
		case se.Code == services.CodeNotFound:
			return d.renderReconcileList(c, st, "There is no show "+show+".", show)
		case st < fiber.StatusInternalServerError:
			return d.renderReconcileList(c, st, sentence(se.Message), show)
		}
		return renderErrorPage(c, st, se.Message)
	}
	return c.Redirect(views.ReconcileRunURL(run.ID), fiber.StatusSeeOther)
}

// renderReconcileList renders the run history (newest first) with status, an error
// message for the form and the show id it held; listed runs carry their counts by kind.
func (d *Deps) renderReconcileList(c *fiber.Ctx, status int, msg, show string) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	runs, err := d.Reconcile.Runs(ctx, reconcilePageRuns)
	if err != nil {
		return errorPage(c, err)
	}
	return render(c, status, views.ReconcilePage(views.ReconcilePageProps{
		Page: page(c, "Reconciliation"), Runs: reconcileRunsView(runs), Zone: d.Shows.Zone(), Error: msg, ShowID: show,
	}))
}

// reconcileRunPage shows one run: its summary and its findings.
func (d *Deps) reconcileRunPage(c *fiber.Ctx) error {
	runID, ok := idParam(c, "id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, "There is no such reconciliation run.")
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	run, err := d.Reconcile.RunReport(ctx, runID)
	if err != nil {
		if services.ErrorCode(err) == services.CodeNotFound {
			return renderErrorPage(c, fiber.StatusNotFound, "There is no such reconciliation run.")
		}
		return errorPage(c, err)
	}
	return render(c, fiber.StatusOK, views.ReconcileRunPage(views.ReconcileRunProps{
		Page: page(c, "Reconciliation run "+id(run.ID)), Run: reconcileRunView(run), Zone: d.Shows.Zone(),
	}))
}
