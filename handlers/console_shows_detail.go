package handlers

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/waitingroom"
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
	s, err := d.Catalog.Show(ctx, showID)
	if err != nil {
		if services.ErrorCode(err) == services.CodeNotFound {
			return nil, catalog.SeatCounts{}, false, noSuchShow(c)
		}
		return nil, catalog.SeatCounts{}, false, errorPage(c, err)
	}
	counts, err := d.Catalog.SeatCounts(ctx, []*services.Show{s})
	if err != nil {
		return nil, catalog.SeatCounts{}, false, errorPage(c, err)
	}
	return s, counts[s.ID], true, nil
}

// showDetailPage is a show for staff; after a cancellation (?cancelled_orders=&
// refunded_orders=) it shows what the cancellation did, after sale control what changed.
// With ?part=waiting-room (the panel's htmx refresh) it is the waiting room's figures
// alone.
func (d *Deps) showDetailPage(c *fiber.Ctx) error {
	if c.Query("part") == views.WaitingRoomPart {
		return d.waitingRoomFiguresPartial(c)
	}
	return d.renderShowDetail(c, fiber.StatusOK, nil, "")
}

// renderShowDetail renders a show's page; form (nil: as stored) keeps what the user
// typed in the edit form after a refused save.
func (d *Deps) renderShowDetail(c *fiber.Ctx, status int, form *views.ShowEditForm, msg string) error {
	return d.renderShowPage(c, status, form, nil, msg)
}

// renderShowPage renders a show's page; form and room (nil: as stored) keep what the
// user typed in the edit form or the waiting room form after a refused save.
func (d *Deps) renderShowPage(c *fiber.Ctx, status int, form *views.ShowEditForm, room *views.WaitingRoomForm, msg string) error {
	s, counts, ok, err := d.loadShow(c)
	if !ok {
		return err
	}
	f := storedEditForm(s, d)
	if form != nil {
		f = *form
	}
	rf := views.WaitingRoomForm{On: s.WaitingRoom, Pace: strconv.Itoa(s.AdmitPerMinute)}
	if room != nil {
		rf = *room
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	now := nowUTC()
	p := views.ShowDetailProps{Page: page(c, s.Movie.Title), Show: s, Counts: views.SeatCounts(counts), Zone: d.showZone(s), Now: now,
		Form: f, Room: rf, Figures: d.roomFigures(ctx, s, s.StatusAt(now) != services.ShowCancelled), Error: msg}
	if d.Prices != nil {
		if cards, err := d.Prices.PriceCards(ctx, s.CinemaID); err == nil {
			p.PriceCards = priceCardOptions(cards)
		} else if p.Error == "" {
			p.Error = "The price cards could not be read: " + err.Error()
		}
	}
	if d.Waitlist != nil {
		entries, err := d.Waitlist.List(ctx, s.ID)
		p.Waitlist = waitlistEntriesView(entries)
		if err != nil && p.Error == "" {
			p.Error = "The waiting list could not be read: " + err.Error()
		}
	}
	if status == fiber.StatusOK {
		switch c.Query("done") {
		case "opened":
			p.Notice = "The sale is open."
		case "closed":
			p.Notice = "The sale is closed: no new orders."
		case "saved":
			p.Notice = "Saved."
		case "card":
			p.Notice = "Applied the price card."
		case "waiting-room":
			p.Notice = views.RoomNotice(s.WaitingRoom, s.AdmitPerMinute)
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

// updateShowPage saves the edit form (sale window, purchase limit, prices, single-seat
// rule: a form without it keeps the rule) and redirects (303) back; bad input (400) or
// a conflict (409) shows the page again with the input and why, nothing changed.
func (d *Deps) updateShowPage(c *fiber.Ctx) error {
	s, _, ok, err := d.loadShow(c)
	if !ok {
		return err
	}
	f := editForm(c)
	loc := d.showZone(s)
	var ch catalog.ShowChange
	var problem string
	ch.Prices, f.Prices, problem = formPrices(c, s.Zones, s.Currency, true)
	f.TicketPrices = utils.CopyString(c.FormValue("ticket_prices"))
	if tp, p := parseTicketPriceChanges(f.TicketPrices); p != "" && problem == "" {
		problem = p
	} else {
		ch.TicketPrices = tp
	}
	if p := editDateTimeProblem(f); p != "" && problem == "" {
		problem = p
	}
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
	if !c.Request().PostArgs().Has("self_refund_until_h") { // a form without the field keeps the cut-off
		f.SelfRefundH = storedSelfRefund(s)
	}
	selfRefund, p := selfRefundHours(f.SelfRefundH)
	if p != "" && problem == "" {
		problem = p
	}
	rule := f.SingleSeatRule
	if rule == "" { // a form without the field keeps the rule
		rule = storedRule(s)
		f.SingleSeatRule = rule
	}
	if !catalog.ValidRule(rule) && problem == "" {
		problem = views.SeatRuleProblem
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
	if rule != storedRule(s) {
		ch.SingleSeatRule = &rule
	}
	if f.SelfRefundH != storedSelfRefund(s) {
		ch.SetSelfRefund, ch.SelfRefundUntilH = true, selfRefund
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
	if _, err := d.Catalog.UpdateShow(ctx, currentUser(c).ID, s.ID, ch); err != nil {
		st, se := pageError(c, err)
		if st >= fiber.StatusInternalServerError {
			return renderErrorPage(c, st, se.Message)
		}
		return d.renderShowDetail(c, st, &f, consoleMessage(se.Message, d.showZone(s)))
	}
	return c.Redirect(views.AdminShowURL(s.ID)+"?done=saved", fiber.StatusSeeOther)
}

// roomUnreadable says that a show's waiting room could not be read.
const roomUnreadable = "The waiting room's figures could not be read; try again shortly."

// roomFigures reads show s's waiting room for its console page, refreshing itself when
// poll is set; a room that cannot be read says so in place of its figures (the rest of
// the page still shows). A room that recorded no reason to be closed is closed all the
// same when the show is cancelled or its sale closed (nobody may join it then).
func (d *Deps) roomFigures(ctx context.Context, s *services.Show, poll bool) views.WaitingRoomFigures {
	now := nowUTC()
	f := views.WaitingRoomFigures{ShowID: s.ID, Now: now, Zone: d.showZone(s), Poll: poll}
	if d.Rooms == nil {
		f.Error, f.Poll = "The waiting room is not available in this process.", false
		return f
	}
	st, err := d.Rooms.Stats(ctx, s.ID)
	if err != nil {
		slog.Warn("show page: waiting room unavailable", "show", s.ID, "err", err)
		f.Error = roomUnreadable
		return f
	}
	room := *st
	if room.Closed == "" {
		switch s.StatusAt(now) {
		case services.ShowCancelled:
			room.Closed = waitingroom.ClosedCancelled
		case services.ShowClosed:
			room.Closed = waitingroom.ClosedSale
		}
	}
	f.Stats = roomStatsView(room)
	return f
}

// waitingRoomFiguresPartial is a show's waiting room figures alone, for the panel's
// htmx refresh (which stops once the show is cancelled); 404 for an unknown show.
func (d *Deps) waitingRoomFiguresPartial(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return noSuchShow(c)
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	s, err := d.Catalog.Show(ctx, showID)
	switch {
	case services.ErrorCode(err) == services.CodeNotFound:
		return noSuchShow(c)
	case err != nil:
		slog.Warn("show page: show unavailable", "show", showID, "err", err)
		return render(c, fiber.StatusOK, views.WaitingRoomFiguresPanel(views.WaitingRoomFigures{ShowID: showID,
			Error: roomUnreadable, Now: nowUTC(), Zone: d.Shows.Zone(), Poll: true}))
	}
	f := d.roomFigures(ctx, s, s.StatusAt(nowUTC()) != services.ShowCancelled)
	return render(c, fiber.StatusOK, views.WaitingRoomFiguresPanel(f))
}

// waitingRoomPage turns the show's waiting room on or off (waiting_room=on: on) and
// sets its pace (admit_per_minute, buyers a minute, live: the queue follows at its next
// admission), then redirects (303) back; a pace that is not a whole number from 1 to
// catalog.MaxAdmitPerMinute (400) or a refusal (409: a cancelled show) shows the page
// again with the input and why, nothing changed.
func (d *Deps) waitingRoomPage(c *fiber.Ctx) error {
	s, _, ok, err := d.loadShow(c)
	if !ok {
		return err
	}
	f := roomForm(c)
	pace, err := strconv.Atoi(f.Pace)
	if err != nil || pace < 1 || pace > catalog.MaxAdmitPerMinute {
		return d.renderShowPage(c, fiber.StatusBadRequest, nil, &f, paceProblem)
	}
	// only what changed: an untouched room writes nothing
	var ch catalog.ShowChange
	if f.On != s.WaitingRoom {
		ch.WaitingRoom = &f.On
	}
	if pace != s.AdmitPerMinute {
		ch.AdmitPerMinute = &pace
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	if _, err := d.Catalog.UpdateShow(ctx, currentUser(c).ID, s.ID, ch); err != nil {
		st, se := pageError(c, err)
		if st >= fiber.StatusInternalServerError {
			return renderErrorPage(c, st, se.Message)
		}
		return d.renderShowPage(c, st, nil, &f, consoleMessage(se.Message, d.showZone(s)))
	}
	return c.Redirect(views.AdminShowURL(s.ID)+"?done=waiting-room", fiber.StatusSeeOther)
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
		do, done := d.Catalog.CloseSale, "closed"
		if open {
			do, done = d.Catalog.OpenSale, "opened"
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
		Counts: views.SeatCounts(counts), Zone: d.showZone(s), Reason: reason, Error: msg}))
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
	res, err := d.StaffOrders.CancelShow(ctx, currentUser(c).ID, showID, reason)
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

// applyCardToShowPage applies the chosen price card of the show's cinema to the show
// (ApplyPriceCard, audited) and redirects (303) back; a refusal shows the page with why.
func (d *Deps) applyCardToShowPage(c *fiber.Ctx) error {
	s, _, ok, err := d.loadShow(c)
	if !ok {
		return err
	}
	if d.Prices == nil {
		return renderErrorPage(c, fiber.StatusNotFound, "Price cards are not available in this process.")
	}
	cardID, _ := parseID(c.FormValue("card_id"))
	ctx, cancel := ctxOf(c)
	defer cancel()
	if _, err := d.Prices.ApplyPriceCard(ctx, currentUser(c).ID, cardID, []int64{s.ID}); err != nil {
		st, se := pageError(c, err)
		if st >= fiber.StatusInternalServerError {
			return renderErrorPage(c, st, se.Message)
		}
		return d.renderShowDetail(c, st, nil, sentence(se.Message))
	}
	return c.Redirect(views.AdminShowURL(s.ID)+"?done=card", fiber.StatusSeeOther)
}
