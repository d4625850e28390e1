package handlers

import (
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
	"seatflow/services/staff"
	"seatflow/views"
)

// seatsNoticeCookie carries what the last seat action did to the page it redirects to
// (read once, then cleared).
const seatsNoticeCookie = "sf_seats_notice"

// showSeatsPage draws the staff seat map with the notice of the last action, if any.
func (d *Deps) showSeatsPage(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, "There is no such show.")
	}
	notice := ""
	if v := c.Cookies(seatsNoticeCookie); v != "" {
		notice, _ = url.QueryUnescape(v)
		c.Cookie(&fiber.Cookie{Name: seatsNoticeCookie, Value: "", Path: views.AdminShowSeatsURL(showID),
			Expires: time.Unix(0, 0), HTTPOnly: true, SameSite: fiber.CookieSameSiteLaxMode, Secure: d.SecureCookies})
	}
	section, _ := sectionNumber(c.Query("section"))
	return d.renderShowSeats(c, fiber.StatusOK, showID, views.AdminShowSeatsProps{Notice: notice, Section: section})
}

// renderShowSeats renders the seat map of showID with props (Page, Map and Zone are
// filled here) and status: a large hall's overview of sections, or props.Section's
// seats alone (views.StaffSectionPart).
func (d *Deps) renderShowSeats(c *fiber.Ctx, status int, showID int64, props views.AdminShowSeatsProps) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	m, err := d.ShowSeats.Map(ctx, showID)
	if err != nil {
		if services.ErrorCode(err) == services.CodeNotFound {
			return renderErrorPage(c, fiber.StatusNotFound, "There is no such show.")
		}
		return errorPage(c, err)
	}
	props.Page = page(c, "Seat map: "+m.Show.Movie.Title)
	props.Map = staffSeatMapView(m)
	props.Zone = d.showZone(m.Show)
	if views.StaffSectioned(props.Map) {
		// a large hall by section: the overview, or one section's seats
		part, sections, ok := views.StaffSectionPart(props.Map, props.Section)
		if !ok {
			return renderErrorPage(c, fiber.StatusNotFound, "There is no such section of this hall.")
		}
		props.Sections = sections
		if part != nil {
			props.Map = part
		}
	} else {
		props.Section = 0
	}
	return render(c, status, views.AdminShowSeatsPage(props))
}

// houseSeatsForm blocks or unblocks the ticked seats (action "block" or "unblock") and
// redirects (303) back with a notice; a refusal shows the map again with the seats
// still ticked, the reason kept and the seats it names marked.
func (d *Deps) houseSeatsForm(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, "There is no such show.")
	}
	reason := utils.CopyString(strings.TrimSpace(c.FormValue("reason")))
	action := c.FormValue("action")
	ids, problem := seatIDs(c.Request().PostArgs().PeekMulti("seat"))
	section, _ := sectionNumber(c.FormValue("section"))
	props := views.AdminShowSeatsProps{Reason: reason, Selected: map[int64]bool{}, Section: section}
	for _, id := range ids {
		props.Selected[id] = true
	}
	switch {
	case action != "block" && action != "unblock":
		problem = "Choose Block as house seats or Unblock."
	case problem == "" && len(ids) == 0:
		problem = "Tick at least one seat first."
	}
	if problem != "" {
		props.Error = problem
		return d.renderShowSeats(c, fiber.StatusBadRequest, showID, props)
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	var res *staff.HouseChange
	var err error
	if action == "block" {
		res, err = d.ShowSeats.Block(ctx, currentUser(c).ID, showID, ids, reason)
	} else {
		res, err = d.ShowSeats.Unblock(ctx, currentUser(c).ID, showID, ids, reason)
	}
	if err != nil {
		return d.seatActionRefused(c, showID, err, props)
	}
	msg := "Blocked as house seats: " + strings.Join(res.Seats, ", ") + "."
	if action == "unblock" {
		msg = "On sale again: " + strings.Join(res.Seats, ", ") + "."
		if res.Freed < len(res.Seats) {
			msg += " The seat cache follows with the next reconciliation."
		}
	}
	return d.seatsDone(c, showID, section, msg)
}

// releaseSeatForm releases a held seat (order_no and a reason from the form) and
// redirects (303) back with what it did; a refusal shows the map again with the reason
// kept next to the seat's form.
func (d *Deps) releaseSeatForm(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, "There is no such show.")
	}
	seatID, ok := idParam(c, "seat_id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, "There is no such seat.")
	}
	reason := utils.CopyString(strings.TrimSpace(c.FormValue("reason")))
	orderNo := utils.CopyString(strings.TrimSpace(c.FormValue("order_no")))
	section, _ := sectionNumber(c.FormValue("section"))
	props := views.AdminShowSeatsProps{ReleaseSeat: seatID, ReleaseReason: reason, Section: section}
	if reason == "" {
		props.Error = "Give a reason for releasing the seat."
		return d.renderShowSeats(c, fiber.StatusBadRequest, showID, props)
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	res, err := d.ShowSeats.Release(ctx, currentUser(c).ID, showID, seatID, orderNo, reason)
	if err != nil {
		return d.seatActionRefused(c, showID, err, props)
	}
	msg := "Released " + strings.Join(res.Seats, ", ") + ": the stuck hold of order " + res.OrderNo + " was freed."
	if res.Action == staff.ReleaseOrderCancelled {
		msg = "Order " + res.OrderNo + " was cancelled; seats " + strings.Join(res.Seats, ", ") + " are free again."
	}
	return d.seatsDone(c, showID, section, msg)
}

// seatActionRefused shows the map again with the refusal's message and status (the
// seats it names marked); a store that is down gets the error page.
func (d *Deps) seatActionRefused(c *fiber.Ctx, showID int64, err error, props views.AdminShowSeatsProps) error {
	st, se := pageError(c, err)
	if st >= fiber.StatusInternalServerError || (se.Code == services.CodeNotFound && props.ReleaseSeat == 0) {
		return renderErrorPage(c, st, se.Message)
	}
	props.Error = sentence(se.Message)
	props.Named = map[string]bool{}
	for _, l := range se.Seats {
		props.Named[l] = true
	}
	return d.renderShowSeats(c, st, showID, props)
}

// seatsDone redirects (303) to the seat map (at section, 0 for the whole map or the
// overview) with msg as its one-time notice.
func (d *Deps) seatsDone(c *fiber.Ctx, showID int64, section int, msg string) error {
	c.Cookie(&fiber.Cookie{Name: seatsNoticeCookie, Value: url.QueryEscape(msg), Path: views.AdminShowSeatsURL(showID),
		MaxAge: 60, HTTPOnly: true, SameSite: fiber.CookieSameSiteLaxMode, Secure: d.SecureCookies})
	return c.Redirect(views.AdminShowSeatsSectionURL(showID, section), fiber.StatusSeeOther)
}
