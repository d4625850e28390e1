package handlers

import (
	"context"
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"seatflow/jobs"
	"seatflow/services"
	"seatflow/services/reconcile"
	"seatflow/services/staff"
	"seatflow/views"
)

// dashboardExpiryListed is how many tasks of each expiry queue list the dashboard shows.
const dashboardExpiryListed = 5

// dashboardData is everything the dashboard shows. Expiry is nil when the queue could
// not be read (ExpiryError says so): the rest of the dashboard still shows. LastRun is
// nil before the first reconciliation run.
type dashboardData struct {
	Snap        *staff.DashboardSnapshot
	Expiry      *jobs.ExpiryQueueState
	ExpiryError string
	LastRun     *reconcile.ReconcileRun
}

// loadDashboard reads the dashboard's figures, the expiry queue and the last
// reconciliation run (staff limited to cinemas: their cinemas' figures only). Errors: UNAVAILABLE (the database).
func (d *Deps) loadDashboard(ctx context.Context) (*dashboardData, error) {
	snap, err := d.Dashboard.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	out := &dashboardData{Snap: snap}
	if !services.CinemaScopeOf(ctx).All() {
		// the reconciliation and the expiry queue are the whole install's
		out.ExpiryError = "The expiry queue is the whole chain's: an administrator sees it."
		return out, nil
	}
	runs, err := d.Reconcile.Runs(ctx, 1)
	if err != nil {
		return nil, err
	}
	if len(runs) > 0 {
		out.LastRun = runs[0]
	}
	if d.ExpiryQueue == nil {
		out.ExpiryError = "The expiry queue is not available in this process."
		return out, nil
	}
	if out.Expiry, err = d.ExpiryQueue.InspectExpiry(ctx, dashboardExpiryListed); err != nil {
		slog.Warn("dashboard: expiry queue unavailable", "err", err)
		out.Expiry, out.ExpiryError = nil, "The expiry queue could not be read (Redis is unavailable); try again shortly."
	}
	return out, nil
}

// dashboardPage renders the dashboard; an htmx refresh (HX-Request) gets the panels only.
func (d *Deps) dashboardPage(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	data, err := d.loadDashboard(ctx)
	if err != nil {
		return errorPage(c, err)
	}
	props := views.DashboardProps{Page: page(c, "Dashboard"), Snap: dashboardSnapshotView(data.Snap), Expiry: expiryQueueView(data.Expiry),
		ExpiryError: data.ExpiryError, LastRun: reconcileRunView(data.LastRun), Currency: d.Currency}
	if c.Get("HX-Request") == "true" {
		return render(c, fiber.StatusOK, views.DashboardPanels(props))
	}
	return render(c, fiber.StatusOK, views.DashboardPage(props))
}
