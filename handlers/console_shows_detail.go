package handlers

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/views"
)

// noSuchShow is the 404 page of the console's show pages.
func noSuchShow(c *fiber.Ctx) error {
	return renderErrorPage(c, fiber.StatusNotFound, "There is no such show.")
}

// loadShow reads the show of the :id parameter with its seat counts; ok is false when
// the answer (404 or an error page) has been rendered.
func (d *Deps) loadShow(c *fiber.Ctx) (*services.Show, catalog.SeatCounts, bool, error) {
	showID, ok := idParam(c, "id")
	if !ok {
		return nil, catalog.SeatCounts{}, false, noSuchShow(c)
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	s, err := d.CatalogConsole.Show(ctx, showID)
	if err != nil {
		if services.ErrorCode(err) == services.CodeNotFound {
			return nil, catalog.SeatCounts{}, false, noSuchShow(c)
		}
		return nil, catalog.SeatCounts{}, false, errorPage(c, err)
	}
	counts, err := d.CatalogConsole.SeatCounts(ctx, []*services.Show{s})
	if err != nil {
		return nil, catalog.SeatCounts{}, false, errorPage(c, err)
	}
	return s, counts[s.ID], true, nil
}

// showDetailPage is a show for staff; after a cancellation (?cancelled_orders=&
// refunded_orders=) it shows what the cancellation did, after sale control what changed.
func (d *Deps) showDetailPage(c *fiber.Ctx) error {
	return d.renderShowDetail(c, fiber.StatusOK, nil, "")
}

// renderShowDetail renders a show's page; form (nil: as stored) keeps what the user
// typed in the edit form after a refused save.
func (d *Deps) renderShowDetail(c *fiber.Ctx, status int, form *views.ShowEditForm, msg string) error {
	s, counts, ok, err := d.loadShow(c)
	if !ok {
		return err
	}
	f := storedEditForm(s, d)
	if form != nil {
		f = *form
	}
	p := views.ShowDetailProps{Page: page(c, s.Movie.Title), Show: s, Counts: counts, Zone: d.Shows.Zone(), Now: nowUTC(),
		Form: f, Error: msg}
	if status == fiber.StatusOK {
		switch c.Query("done") {
		case "opened":
			p.Notice = "The sale is open."
		case "closed":
			p.Notice = "The sale is closed: no new orders."
		case "saved":
			p.Notice = "Saved."
		case "cancelled":
			if s.Status == services.ShowCancelled {
				co, _ := strconv.Atoi(c.Query("cancelled_orders"))
				ro, _ := strconv.Atoi(c.Query("refunded_orders"))
				p.Summary = &views.CancelSummary{CancelledOrders: co, RefundedOrders: ro}
			}
		}
	}
	return render(c, status, views.ShowDetailPage(p))
}

// updateShowPage saves the edit form (sale window, purchase limit, prices) and
// redirects (303) back; bad input (400) or a conflict (409) shows the page again with
// the input and why.
func (d *Deps) updateShowPage(c *fiber.Ctx) error {
	s, _, ok, err := d.loadShow(c)
	if !ok {
		return err
	}
	f := editForm(c)
	loc := d.Shows.Zone()
	var ch catalog.ShowChange
	var problem string
	ch.Prices, f.Prices, problem = formPrices(c, s.Zones, s.Currency, true)
	opens, err := services.LocalTime(f.OpensDate, f.OpensTime, loc)
	if err != nil && problem == "" {
		problem = "Sale opens: " + consoleMessage(errMessage(err), loc)
	}
	closes, err := services.LocalTime(f.ClosesDate, f.ClosesTime, loc)
	if err != nil && problem == "" {
		problem = "Sale closes: " + consoleMessage(errMessage(err), loc)
	}
	limit, err := strconv.Atoi(f.Limit)
	if (err != nil || limit < 1 || limit > catalog.MaxPurchaseLimit) && problem == "" {
		problem = "The purchase limit must be a whole number from 1 to " + strconv.Itoa(catalog.MaxPurchaseLimit) + "."
	}
	if problem != "" {
		return d.renderShowDetail(c, fiber.StatusBadRequest, &f, problem)
	}
	// only what changed: an untouched window keeps its seconds and its status
	if !opens.Equal(s.SaleOpensAt.Truncate(time.Minute)) {
		ch.SaleOpensAt = &opens
	}
	if !closes.Equal(s.SaleClosesAt.Truncate(time.Minute)) {
		ch.SaleClosesAt = &closes
	}
	if limit != s.PurchaseLimit {
		ch.PurchaseLimit = &limit
	}
	changed := ch.Prices[:0]
	for _, zp := range ch.Prices {
		if was, _ := s.ZonePrice(zp.Zone); was != zp.PriceMinor {
			changed = append(changed, zp)
		}
	}
	ch.Prices = changed
	ctx, cancel := ctxOf(c)
	defer cancel()
	if _, err := d.CatalogAdmin.UpdateShow(ctx, currentUser(c).ID, s.ID, ch); err != nil {
		st, se := pageError(c, err)
		if st >= fiber.StatusInternalServerError {
			return renderErrorPage(c, st, se.Message)
		}
		return d.renderShowDetail(c, st, &f, consoleMessage(se.Message, d.Shows.Zone()))
	}
	return c.Redirect(views.AdminShowURL(s.ID)+"?done=saved", fiber.StatusSeeOther)
}

// errMessage is a service error's message.
func errMessage(err error) string {
	_, se := asError(err)
	return se.Message
}

// saleControlPage opens (open) or closes the show's sale now and redirects (303) back;
// a refusal (409: cancelled, window already closed) shows the page with the reason.
func (d *Deps) saleControlPage(open bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		showID, ok := idParam(c, "id")
		if !ok {
			return noSuchShow(c)
		}
		ctx, cancel := ctxOf(c)
		defer cancel()
		do, done := d.CatalogAdmin.CloseSale, "closed"
		if open {
			do, done = d.CatalogAdmin.OpenSale, "opened"
		}
		if _, err := do(ctx, currentUser(c).ID, showID); err != nil {
			st, se := pageError(c, err)
			if st >= fiber.StatusInternalServerError || st == fiber.StatusNotFound {
				return renderErrorPage(c, st, se.Message)
			}
			return d.renderShowDetail(c, st, nil, consoleMessage(se.Message, d.Shows.Zone()))
		}
		return c.Redirect(views.AdminShowURL(showID)+"?done="+done, fiber.StatusSeeOther)
	}
}

// cancelShowConfirmPage asks to confirm cancelling the show, with a reason.
func (d *Deps) cancelShowConfirmPage(c *fiber.Ctx) error {
	return d.renderCancelShow(c, fiber.StatusOK, "", "")
}

func (d *Deps) renderCancelShow(c *fiber.Ctx, status int, reason, msg string) error {
	s, counts, ok, err := d.loadShow(c)
	if !ok {
		return err
	}
	if s.Status == services.ShowCancelled {
		return c.Redirect(views.AdminShowURL(s.ID), fiber.StatusSeeOther)
	}
	return render(c, status, views.CancelShowPage(views.CancelShowProps{Page: page(c, "Cancel "+s.Movie.Title), Show: s,
		Counts: counts, Zone: d.Shows.Zone(), Reason: reason, Error: msg}))
}

// cancelShowPage cancels the show once the confirmation box is ticked: pending orders
// cancelled, paid orders refunded; it redirects (303) to the show's page with what it
// did. Without the tick (400) or with a refused reason it asks again.
func (d *Deps) cancelShowPage(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return noSuchShow(c)
	}
	reason := utils.CopyString(c.FormValue("reason"))
	if c.FormValue("confirm") != "yes" {
		return d.renderCancelShow(c, fiber.StatusBadRequest, reason, "Tick the box to confirm that the show is to be cancelled.")
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	res, err := d.AdminOrders.CancelShow(ctx, currentUser(c).ID, showID, reason)
	if err != nil {
		st, se := pageError(c, err)
		if st == fiber.StatusBadRequest {
			return d.renderCancelShow(c, st, reason, consoleMessage(se.Message, d.Shows.Zone()))
		}
		return renderErrorPage(c, st, se.Message)
	}
	return c.Redirect(views.AdminShowURL(showID)+"?done=cancelled&cancelled_orders="+strconv.Itoa(res.CancelledOrders)+
		"&refunded_orders="+strconv.Itoa(res.RefundedOrders), fiber.StatusSeeOther)
}
