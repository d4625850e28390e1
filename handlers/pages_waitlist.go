package handlers

import (
	"strconv"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
	"seatflow/services/seats"
	"seatflow/views"
)

// The waiting-list panel of the show page (views.WaitlistPanel): join, leave, and the
// panel alone for htmx to refresh while a place waits.

// waitlistView builds the panel of m's show for the visitor: their place (with the
// offer's order) and whether the list takes places now: the show is on sale and fewer
// seats are free than its purchase limit, or no two of them side by side (on a large
// hall's section page, whose map is partial, only the first).
func (d *Deps) waitlistView(c *fiber.Ctx, m *seats.SeatMap) *views.WaitlistView {
	if d.Waitlist == nil {
		return nil
	}
	now := d.now()
	v := &views.WaitlistView{Show: m.Show, Zone: d.showZone(m.Show), Page: page(c, ""), Now: now}
	if m.Show.OnSaleAt(now) && m.Partial {
		// a section's page read its own seats only: the show's free count decides
		v.Open = m.Show.SeatsLeft < m.Show.PurchaseLimit
	} else if m.Show.OnSaleAt(now) {
		free := make([]bool, len(m.Hall.Seats))
		n := 0
		for i, s := range m.Hall.Seats {
			free[i] = m.States[s.ID] == services.StateFree
			if free[i] && s.Sellable() {
				n++
			}
		}
		pair := false
		for _, z := range m.Show.Zones {
			pair = pair || seats.ChooseBlock(m.Hall, free, z.Code, 2, false, false).IDs != nil
		}
		v.Open = n < m.Show.PurchaseLimit || !pair
	}
	u := currentUser(c)
	if u == nil {
		return v
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	if e, err := d.Waitlist.Mine(ctx, u.ID, m.Show.ID); err == nil {
		v.Entry = waitlistEntryView(e)
		if e.OrderNo != "" {
			v.Offer, _ = d.Orders.Get(ctx, u.ID, e.OrderNo)
		}
	}
	return v
}

// waitlistPanel answers GET /shows/:id/waitlist: the panel alone (htmx refreshes it);
// with ?was= (the status the open page shows) naming another status than the place's
// now, it asks htmx to reload the whole page (HX-Refresh).
func (d *Deps) waitlistPanel(c *fiber.Ctx) error {
	return d.renderWaitlist(c, "")
}

// renderWaitlist renders the show's panel alone, with msg as its error.
func (d *Deps) renderWaitlist(c *fiber.Ctx, msg string) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, tr(c, "err.no_show", nil))
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	m, err := d.Shows.SeatMap(ctx, showID)
	if err != nil {
		return errorPage(c, err)
	}
	v := d.waitlistView(c, m)
	v.Error = msg
	c.Set(fiber.HeaderCacheControl, "no-store")
	if was := c.Query("was"); was != "" && was != v.Status() && c.Get("HX-Request") == "true" {
		// the place moved on (an offer came, or ended): the rest of the page (the
		// show's state, the seats left, the map) no longer holds, so htmx reloads it
		c.Set("HX-Refresh", "true")
	}
	return render(c, fiber.StatusOK, views.WaitlistPanel(v))
}

// joinWaitlist answers the panel's join form (quantity, zone; "" any zone). With htmx
// the panel comes back (with the refusal in it); without, the show page: 303 on
// success, or re-rendered with the refusal.
func (d *Deps) joinWaitlist(c *fiber.Ctx) error {
	return d.waitlistForm(c, func(showID int64) error {
		quantity, err := strconv.Atoi(c.FormValue("quantity"))
		if err != nil {
			return services.Errorf(services.CodeInvalidRequest, "choose how many seats side by side you want")
		}
		ctx, cancel := ctxOf(c)
		defer cancel()
		_, err = d.Waitlist.Join(ctx, currentUser(c).ID, showID, quantity, utils.CopyString(c.FormValue("zone")), admissionToken(c, showID))
		return err
	})
}

// leaveWaitlist answers the panel's leave form.
func (d *Deps) leaveWaitlist(c *fiber.Ctx) error {
	return d.waitlistForm(c, func(showID int64) error {
		ctx, cancel := ctxOf(c)
		defer cancel()
		_, err := d.Waitlist.Leave(ctx, currentUser(c).ID, showID)
		return err
	})
}

// waitlistForm runs a panel form's action and answers as joinWaitlist says.
func (d *Deps) waitlistForm(c *fiber.Ctx, act func(showID int64) error) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, tr(c, "err.no_show", nil))
	}
	err := act(showID)
	if services.ErrorCode(err) == services.CodeNotAdmitted {
		return toQueue(c, showID) // the waiting room first, not a refusal
	}
	msg := ""
	if err != nil {
		se, ok := err.(*services.Error)
		if !ok {
			return errorPage(c, err)
		}
		msg = serviceText(langOf(c), se, se.Message)
	}
	if c.Get("HX-Request") == "true" {
		return d.renderWaitlist(c, msg)
	}
	if msg == "" {
		return c.Redirect(views.ShowURL(showID)+"#waitlist", fiber.StatusSeeOther)
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	m, merr := d.Shows.SeatMap(ctx, showID)
	if merr != nil {
		return errorPage(c, merr)
	}
	return d.renderShow(c, m, fiber.StatusConflict, msg, nil, nil, 0)
}
