package handlers

import (
	"context"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/orders"
	"seatflow/views"
)

// ordersListLimit is how many orders "My orders" lists.
const ordersListLimit = 50

// orderNoParam is the :no route parameter, or false when it cannot be an order number.
func orderNoParam(c *fiber.Ctx) (string, bool) {
	no := copyParam(c, "no")
	if no == "" || len(no) > 32 {
		return "", false
	}
	for i := 0; i < len(no); i++ {
		b := no[i]
		if !(b >= '0' && b <= '9' || b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b == '-' || b == '_') {
			return "", false
		}
	}
	return no, true
}

// ordersPage lists the signed-in user's orders, newest first.
func (d *Deps) ordersPage(c *fiber.Ctx) error {
	u := currentUser(c)
	ctx, cancel := ctxOf(c)
	defer cancel()
	orders, err := d.Orders.List(ctx, u.ID, ordersListLimit)
	if err != nil {
		return errorPage(c, err)
	}
	shows := map[int64]*services.Show{}
	items := make([]views.OrderListItem, len(orders))
	for i, o := range orders {
		s, seen := shows[o.ShowID]
		if !seen {
			if s, err = d.Shows.Get(ctx, o.ShowID); err != nil {
				if services.ErrorCode(err) != services.CodeNotFound {
					return errorPage(c, err)
				}
				s = nil // a show gone from the public programme: list the order anyway
			}
			shows[o.ShowID] = s
		}
		items[i] = views.OrderListItem{Order: o, Show: s, CinemaName: d.chainCinema(ctx, s)}
	}
	return render(c, fiber.StatusOK, views.OrdersPage(views.OrdersPageProps{
		Page:   page(c, tr(c, "layout.my_orders", nil)),
		Orders: items,
		Now:    d.now(),
		Zone:   d.Shows.Zone(),
	}))
}

// orderPage shows one of the signed-in user's orders.
func (d *Deps) orderPage(c *fiber.Ctx) error {
	no, ok := orderNoParam(c)
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, tr(c, "err.no_order", nil))
	}
	return d.renderOrder(c, currentUser(c), no, fiber.StatusOK, "")
}

// orderExtras reads what the order page tells besides the order: the payment the buyer
// came back from (?payment=, only one of this order), whether the seats were chosen
// for the buyer (?chosen=1), the single empty seats the booking left (?stranded=, only
// seats of the show's hall), and each seat's kind from the show's hall.
func (d *Deps) orderExtras(c *fiber.Ctx, props *views.OrderPageProps) {
	ctx, cancel := ctxOf(c)
	defer cancel()
	if id, ok := localQuery(c, "payment", 64); ok {
		if pay, err := d.Payments.Payment(ctx, id); err == nil && pay.OrderNo == props.Order.OrderNo {
			props.Payment = paymentView(pay)
		}
	}
	props.Chosen = c.Query("chosen") == "1"
	props.Exchanged = c.Query("exchanged") == "1"
	if props.Show == nil {
		return
	}
	props.CanExchange = orders.ExchangeOpen(props.Order, props.Show, props.Now)
	if m, err := d.Shows.SeatMap(ctx, props.Show.ID); err == nil {
		props.SeatKinds = make(map[int64]string, len(props.Order.Seats))
		inHall := make(map[string]bool, len(m.Hall.Seats))
		for _, st := range m.Hall.Seats {
			props.SeatKinds[st.ID] = st.Kind
			inHall[st.Label] = true
		}
		props.Stranded = strandedQuery(c, inHall)
	}
}

// strandedParam names the single empty seats a booking left, in the order page's URL.
const strandedParam = "stranded"

// withStranded is the order page u telling the single empty seats labels the booking
// left (none: u as it is).
func withStranded(u string, labels []string) string {
	if len(labels) == 0 {
		return u
	}
	v := url.Values{strandedParam: labels}
	if strings.Contains(u, "?") {
		return u + "&" + v.Encode()
	}
	return u + "?" + v.Encode()
}

// strandedQuery reads the seats ?stranded= names, keeping only labels of the hall
// (inHall), each once and at most orders.MaxSeatsPerRequest*2 (two per seat booked).
func strandedQuery(c *fiber.Ctx, inHall map[string]bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, b := range c.Context().QueryArgs().PeekMulti(strandedParam) {
		label := string(b)
		if inHall[label] && !seen[label] && len(out) < orders.MaxSeatsPerRequest*2 {
			seen[label] = true
			out = append(out, label)
		}
	}
	return out
}

// localQuery is a short query parameter copied out of Fiber's buffer, or false when it
// is empty or longer than maxLen.
func localQuery(c *fiber.Ctx, name string, maxLen int) (string, bool) {
	v := c.Query(name)
	if v == "" || len(v) > maxLen {
		return "", false
	}
	return strings.Clone(v), true
}

// renderOrder reads the order afresh and renders its page with status and msg.
func (d *Deps) renderOrder(c *fiber.Ctx, u *services.User, no string, status int, msg string) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	order, err := d.Orders.Get(ctx, u.ID, no)
	if err != nil {
		if services.ErrorCode(err) == services.CodeNotFound {
			return renderErrorPage(c, fiber.StatusNotFound, tr(c, "err.no_order_yours", nil))
		}
		return errorPage(c, err)
	}
	show, err := d.Shows.Get(ctx, order.ShowID)
	if err != nil {
		if services.ErrorCode(err) != services.CodeNotFound {
			return errorPage(c, err)
		}
		show = nil
	}
	props := views.OrderPageProps{
		Page:       page(c, tr(c, "order.title", nil)+" "+order.OrderNo),
		Order:      order,
		Show:       show,
		CinemaName: d.chainCinema(ctx, show),
		Now:        d.now(),
		Zone:       d.showZone(show),
		Error:      msg,
	}
	if show != nil && order.Status == services.OrderPaid {
		if until, ok := show.SelfRefundUntil(); ok {
			props.SelfRefundUntil = &until
		}
	}
	d.orderExtras(c, &props)
	if order.Status == services.OrderPaid && d.Tickets != nil {
		props.TicketRef = d.Tickets.Ref(order)
		props.TicketCode = d.ticketCode(ctx, order)
	}
	return render(c, status, views.OrderPage(props))
}

// payOrder starts a payment with the demo provider and sends the buyer there.
func (d *Deps) payOrder(c *fiber.Ctx) error {
	return d.orderAction(c, func(ctx context.Context, userID int64, no string) (string, error) {
		_, url, err := d.Payments.Start(ctx, userID, no, "") // the default provider
		return url, err
	})
}

// cancelOrder cancels a pending order (or cancels and refunds a paid one, until the
// show's self-refund cut-off) and shows it again; the form's confirm box must
// be ticked (400 and the order page again otherwise).
func (d *Deps) cancelOrder(c *fiber.Ctx) error {
	if c.FormValue("confirm") != "yes" {
		no, ok := orderNoParam(c)
		if !ok {
			return renderErrorPage(c, fiber.StatusNotFound, tr(c, "err.no_order", nil))
		}
		return d.renderOrder(c, currentUser(c), no, fiber.StatusBadRequest,
			tr(c, "err.cancel_unconfirmed", nil))
	}
	return d.orderAction(c, func(ctx context.Context, userID int64, no string) (string, error) {
		_, err := d.Payments.Cancel(ctx, userID, no) // a paid order: refunded when the show allows it
		return views.OrderURL(no), err
	})
}

// orderAction runs a signed-in buyer's action on one order and redirects (303) to the
// URL it returns, or re-renders the order page with the error.
func (d *Deps) orderAction(c *fiber.Ctx, act func(ctx context.Context, userID int64, no string) (string, error)) error {
	no, ok := orderNoParam(c)
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, tr(c, "err.no_order", nil))
	}
	u := currentUser(c)
	ctx, cancel := ctxOf(c)
	defer cancel()
	url, err := act(ctx, u.ID, no)
	if err != nil {
		return d.orderActionFailed(c, u, no, err)
	}
	return c.Redirect(url, fiber.StatusSeeOther)
}

// orderActionFailed shows the order again with why paying or cancelling did not work.
func (d *Deps) orderActionFailed(c *fiber.Ctx, u *services.User, no string, err error) error {
	st, se := pageError(c, err)
	if st == fiber.StatusNotFound {
		return renderErrorPage(c, st, tr(c, "err.no_order_yours", nil))
	}
	if st >= fiber.StatusInternalServerError && st != fiber.StatusServiceUnavailable {
		return renderErrorPage(c, st, serviceText(langOf(c), se, se.Message))
	}
	return d.renderOrder(c, u, no, st, serviceText(langOf(c), se, sentence(se.Message)))
}
