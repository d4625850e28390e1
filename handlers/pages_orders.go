package handlers

import (
	"context"
	"github.com/gofiber/fiber/v2"

	"seatflow/services"
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
		items[i] = views.OrderListItem{Order: o, Show: s}
	}
	return render(c, fiber.StatusOK, views.OrdersPage(views.OrdersPageProps{
		Page:   page(c, "My orders"),
		Orders: items,
		Now:    nowUTC(),
		Zone:   d.Shows.Zone(),
	}))
}

// orderPage shows one of the signed-in user's orders.
func (d *Deps) orderPage(c *fiber.Ctx) error {
	no, ok := orderNoParam(c)
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, "There is no such order.")
	}
	return d.renderOrder(c, currentUser(c), no, fiber.StatusOK, "")
}

// renderOrder reads the order afresh and renders its page with status and msg.
func (d *Deps) renderOrder(c *fiber.Ctx, u *services.User, no string, status int, msg string) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	order, err := d.Orders.Get(ctx, u.ID, no)
	if err != nil {
		if services.ErrorCode(err) == services.CodeNotFound {
			return renderErrorPage(c, fiber.StatusNotFound, "There is no such order in your account.")
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
	return render(c, status, views.OrderPage(views.OrderPageProps{
		Page:  page(c, "Order "+order.OrderNo),
		Order: order,
		Show:  show,
		Now:   nowUTC(),
		Zone:  d.Shows.Zone(),
		Error: msg,
	}))
}

// payOrder starts a payment with the demo provider and sends the buyer there.
func (d *Deps) payOrder(c *fiber.Ctx) error {
	return d.orderAction(c, func(ctx context.Context, userID int64, no string) (string, error) {
		_, url, err := d.Payments.Start(ctx, userID, no, "") // the default provider
		return url, err
	})
}

// cancelOrder cancels a pending order and shows it again.
func (d *Deps) cancelOrder(c *fiber.Ctx) error {
	return d.orderAction(c, func(ctx context.Context, userID int64, no string) (string, error) {
		_, err := d.Orders.Cancel(ctx, userID, no)
		return views.OrderURL(no), err
	})
}

// orderAction runs a signed-in buyer's action on one order and redirects (303) to the
// URL it returns, or re-renders the order page with the error.
func (d *Deps) orderAction(c *fiber.Ctx, act func(ctx context.Context, userID int64, no string) (string, error)) error {
	no, ok := orderNoParam(c)
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, "There is no such order.")
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
		return renderErrorPage(c, st, "There is no such order in your account.")
	}
	if st >= fiber.StatusInternalServerError && st != fiber.StatusServiceUnavailable {
		return renderErrorPage(c, st, se.Message)
	}
	return d.renderOrder(c, u, no, st, sentence(se.Message))
}
