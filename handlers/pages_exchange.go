package handlers

import (
	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/orders"
	"seatflow/views"
)

// exchangePage is an order's seat picker in exchange mode (GET /orders/{no}/exchange):
// the show's seat map with the order's seats ticked as its own. An order that can no
// longer change its seats goes back to its page (303).
func (d *Deps) exchangePage(c *fiber.Ctx) error {
	no, ok := orderNoParam(c)
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, tr(c, "err.no_order", nil))
	}
	return d.renderExchange(c, no, fiber.StatusOK, "", nil)
}

// renderExchange renders the exchange page of the buyer's order no with status and msg
// (a refusal of the last attempt), ticking picked (nil: the order's seats).
func (d *Deps) renderExchange(c *fiber.Ctx, no string, status int, msg string, picked []int64) error {
	u := currentUser(c)
	ctx, cancel := ctxOf(c)
	defer cancel()
	order, err := d.Orders.Get(ctx, u.ID, no)
	if err != nil {
		if services.ErrorCode(err) == services.CodeNotFound {
			return renderErrorPage(c, fiber.StatusNotFound, tr(c, "err.no_order_yours", nil))
		}
		return errorPage(c, err)
	}
	m, err := d.Shows.SeatMapOf(ctx, order.ShowID, func(*services.Hall) []int64 { return nil }, u.ID)
	if err != nil {
		return errorPage(c, err)
	}
	if !orders.ExchangeOpen(order, m.Show, d.now()) {
		return c.Redirect(views.OrderURL(no), fiber.StatusSeeOther)
	}
	x := views.NewExchangeView(order)
	keep := map[int64]bool{}
	if picked == nil {
		keep = x.Seats
	}
	for _, id := range picked {
		if x.Seats[id] || m.States[id] == services.StateFree {
			keep[id] = true
		}
	}
	return render(c, status, views.ExchangePage(views.ShowPageProps{
		Page:       page(c, tr(c, "exchange.title", nil)+" "+order.OrderNo),
		Map:        seatMapView(m),
		Now:        d.now(),
		Zone:       d.showZone(m.Show),
		CinemaName: d.chainCinema(ctx, m.Show),
		HoldFor:    d.Orders.HoldFor(),
		Selected:   keep,
		Error:      msg,
		Exchange:   x,
	}))
}

// exchangeOrder moves the buyer's order onto the ticked seats (POST /orders/{no}/exchange,
// the seat picker's plain form): 303 to the order page, which tells it once; a refusal
// renders the picker again with the reason and the seats as ticked.
func (d *Deps) exchangeOrder(c *fiber.Ctx) error {
	no, ok := orderNoParam(c)
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, tr(c, "err.no_order", nil))
	}
	ids, problem := seatIDs(c.Request().PostArgs().PeekMulti("seat"))
	if problem != "" {
		return d.renderExchange(c, no, fiber.StatusBadRequest, problem, nil)
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	_, err := d.Orders.Exchange(ctx, orders.ExchangeRequest{UserID: currentUser(c).ID, OrderNo: no, SeatIDs: ids})
	if err != nil {
		st, se := pageError(c, err)
		if st == fiber.StatusNotFound {
			return renderErrorPage(c, st, tr(c, "err.no_order_yours", nil))
		}
		if st >= fiber.StatusInternalServerError && st != fiber.StatusServiceUnavailable {
			return renderErrorPage(c, st, serviceText(langOf(c), se, se.Message))
		}
		if services.ErrorCode(err) == services.CodeOrderState {
			return d.renderOrder(c, currentUser(c), no, st, serviceText(langOf(c), se, sentence(se.Message)))
		}
		if ids == nil {
			ids = []int64{}
		}
		return d.renderExchange(c, no, st, serviceText(langOf(c), se, sentence(se.Message)), ids)
	}
	return c.Redirect(views.OrderURL(no)+"?exchanged=1", fiber.StatusSeeOther)
}
