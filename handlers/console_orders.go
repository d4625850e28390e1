package handlers

import (
	"context"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
	"seatflow/services/orders"
	"seatflow/services/staff"
	"seatflow/views"
)

// orderPageLimit is how many orders the search page lists.
const orderPageLimit = 100

// refundedNotice is the notice of an order's page after a refund (?refunded=1).
const refundedNotice = "Order refunded: the payment went back to the buyer, the seats are free for sale again and the buyer's purchase limit is given back."

// seatsRefundedNotice is the notice after a refund of some seats (?refunded=seats).
const seatsRefundedNotice = "Seats refunded: their money went back to the buyer, they are free for sale again and out of the buyer's purchase limit; the order stays paid for the other seats."

// adminOrdersPage searches orders by ?order_no=&email=&show_id=&status= (all optional,
// combined); with none it lists the newest orders. A bad show id, email or status shows
// the form again with the message (400) and what was typed.
func (d *Deps) adminOrdersPage(c *fiber.Ctx) error {
	form := views.OrderSearchForm{
		OrderNo: strings.TrimSpace(utils.CopyString(c.Query("order_no"))),
		Email:   strings.TrimSpace(utils.CopyString(c.Query("email"))),
		ShowID:  strings.TrimSpace(utils.CopyString(c.Query("show_id"))),
		Status:  utils.CopyString(c.Query("status")),
	}
	zctx, zcancel := ctxOf(c)
	zone := d.pageZone(zctx, c)
	zcancel()
	props := views.AdminOrdersProps{Page: page(c, "Orders"), Form: form, Limit: orderPageLimit, Zone: zone, Now: nowUTC()}
	f := staff.OrderSearch{OrderNo: form.OrderNo, Email: form.Email, Status: form.Status, Limit: orderPageLimit}
	if form.ShowID != "" {
		id, ok := parseID(form.ShowID)
		if !ok {
			props.Error = "The show id must be a number such as 7."
			return render(c, fiber.StatusBadRequest, views.AdminOrdersPage(props))
		}
		f.ShowID = id
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	found, err := d.StaffOrders.Search(ctx, f)
	if err != nil {
		st, se := pageError(c, err)
		if st >= fiber.StatusInternalServerError {
			return renderErrorPage(c, st, se.Message)
		}
		props.Error = searchMessage(form, se)
		return render(c, st, views.AdminOrdersPage(props))
	}
	props.Rows = make([]views.AdminOrderRow, len(found))
	shows := d.showsOf(ctx, found)
	for i, o := range found {
		props.Rows[i] = views.AdminOrderRow{Order: staffOrderView(o), Show: shows[o.ShowID]}
	}
	return render(c, fiber.StatusOK, views.AdminOrdersPage(props))
}

// searchMessage words a refused search for the form.
func searchMessage(form views.OrderSearchForm, se *services.Error) string {
	if form.Email != "" && strings.Contains(se.Message, "email") {
		return "“" + form.Email + "” is not a usable email address."
	}
	return sentence(se.Message)
}

// showsOf reads the shows of orders once each; a show that cannot be read is left out.
func (d *Deps) showsOf(ctx context.Context, orders []*staff.StaffOrder) map[int64]*services.Show {
	out := map[int64]*services.Show{}
	for _, o := range orders {
		if _, done := out[o.ShowID]; done {
			continue
		}
		s, err := d.Shows.Get(ctx, o.ShowID)
		if err != nil {
			s = nil
		}
		out[o.ShowID] = s
	}
	return out
}

// adminOrderPage shows one order with its payments, history and (when paid) the
// refund form; ?refunded=1 adds the notice of a refund just made.
func (d *Deps) adminOrderPage(c *fiber.Ctx) error {
	notice := ""
	switch c.Query("refunded") {
	case "1":
		notice = refundedNotice
	case "seats":
		notice = seatsRefundedNotice
	}
	return d.renderAdminOrder(c, fiber.StatusOK, typedOrderNoParam(c), func(p *views.AdminOrderProps) { p.Notice = notice })
}

// adminRefundOrder refunds a paid order from its page, whole or the ticked seats
// (seat_ids, repeated): a reason and the confirmation box are required (400, the form
// kept). Success redirects (303) to the order with a notice; an order that is not paid
// or a seat already refunded (409 ORDER_STATE) shows the page with the message.
func (d *Deps) adminRefundOrder(c *fiber.Ctx) error {
	no := copyParam(c, "no")
	reason := strings.TrimSpace(utils.CopyString(c.FormValue("reason")))
	confirmed := c.FormValue("confirm") != ""
	var seatIDs []int64
	picked := map[int64]bool{}
	badSeat := false
	for _, v := range c.Request().PostArgs().PeekMulti("seat_ids") {
		id, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil || id <= 0 || picked[id] || len(seatIDs) >= orders.MaxSeatsPerRequest {
			badSeat = true
			continue
		}
		picked[id] = true
		seatIDs = append(seatIDs, id)
	}
	keep := func(msg string) func(*views.AdminOrderProps) {
		return func(p *views.AdminOrderProps) {
			p.Error, p.Reason, p.Confirm, p.Picked = msg, reason, confirmed, picked
		}
	}
	switch {
	case badSeat:
		return d.renderAdminOrder(c, fiber.StatusBadRequest, no, keep("Tick seats of this order only, each once."))
	case reason == "":
		return d.renderAdminOrder(c, fiber.StatusBadRequest, no, keep("Give a reason for the refund."))
	case len([]rune(reason)) > staff.MaxReasonLen:
		return d.renderAdminOrder(c, fiber.StatusBadRequest, no, keep(sprintf("The reason is longer than %d characters.", staff.MaxReasonLen)))
	case !confirmed:
		return d.renderAdminOrder(c, fiber.StatusBadRequest, no, keep("Tick the box to confirm the refund."))
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	o, err := d.StaffOrders.RefundSeats(ctx, currentUser(c).ID, no, reason, seatIDs)
	if err != nil {
		st, se := pageError(c, err)
		if st == fiber.StatusNotFound || st >= fiber.StatusInternalServerError {
			return renderErrorPage(c, st, se.Message)
		}
		return d.renderAdminOrder(c, st, no, keep(sentence(se.Message)))
	}
	if o.Status == services.OrderPaid {
		return c.Redirect(views.AdminOrderURL(no)+"?refunded=seats", fiber.StatusSeeOther)
	}
	return c.Redirect(views.AdminOrderURL(no)+"?refunded=1", fiber.StatusSeeOther)
}

// renderAdminOrder renders order no's staff page with status; with sets the notice,
// the error and the refund form's values. An unknown order is the 404 page.
func (d *Deps) renderAdminOrder(c *fiber.Ctx, status int, no string, with func(*views.AdminOrderProps)) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	det, err := d.StaffOrders.Detail(ctx, no)
	if err != nil {
		if services.ErrorCode(err) == services.CodeNotFound {
			return renderErrorPage(c, fiber.StatusNotFound, "There is no order "+no+".")
		}
		return errorPage(c, err)
	}
	show, err := d.Shows.Get(ctx, det.ShowID)
	if err != nil {
		show = nil // the page still shows the order
	}
	props := views.AdminOrderProps{Page: page(c, "Order "+det.OrderNo), Detail: orderDetailView(det), Show: show, Zone: d.showZone(show), Now: nowUTC()}
	if with != nil {
		with(&props)
	}
	return render(c, status, views.AdminOrderPage(props))
}
