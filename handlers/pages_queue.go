package handlers

import (
	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/waitingroom"
	"seatflow/views"
)

// queuePage is a show's waiting page for the signed-in buyer: their place, or a button
// to join (or why the room takes nobody: sold out, sale closed, cancelled); admitted
// (or the room off), the seat map.
func (d *Deps) queuePage(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, tr(c, "err.no_show", nil))
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	show, err := d.Shows.Get(ctx, showID)
	if err != nil {
		return errorPage(c, err)
	}
	if !show.WaitingRoom {
		return c.Redirect(views.ShowURL(showID), fiber.StatusSeeOther)
	}
	e, err := d.Rooms.ReadPlace(ctx, showID, currentUser(c).ID, placeToken(c, showID))
	if err != nil && services.ErrorCode(err) != services.CodeNotFound {
		return errorPage(c, err)
	}
	if e == nil { // a room that closed (sold out) says so instead of offering to join
		if st, err := d.Rooms.Stats(ctx, showID); err == nil && st.Closed != "" {
			e = &waitingroom.Entry{Status: waitingroom.StatusClosed, Closed: st.Closed}
		}
	}
	if e != nil {
		d.setAdmission(c, showID, e)
		if e.Status == waitingroom.StatusAdmitted {
			return c.Redirect(views.ShowURL(showID), fiber.StatusSeeOther)
		}
	}
	return render(c, fiber.StatusOK, views.QueuePage(views.QueuePageProps{
		Page: page(c, show.Movie.Title), Show: show, Entry: queueEntryView(e), Now: nowUTC(), Zone: d.showZone(show)}))
}

// joinQueue puts the signed-in buyer in the show's waiting room and shows the waiting
// page (303); a show that takes no queue shows why.
func (d *Deps) joinQueue(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, tr(c, "err.no_show", nil))
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	e, err := d.Rooms.Join(ctx, showID, currentUser(c).ID)
	if err != nil {
		return errorPage(c, err)
	}
	d.setAdmission(c, showID, e)
	if e.Status == waitingroom.StatusAdmitted {
		return c.Redirect(views.ShowURL(showID), fiber.StatusSeeOther)
	}
	return c.Redirect(views.QueueURL(showID), fiber.StatusSeeOther)
}

// toQueue sends the buyer to show's waiting page (a join of the waiting list, or
// another step that needs an admission, refused NOT_ADMITTED): an htmx request is told
// to go there (HX-Redirect), any other is redirected (303).
func toQueue(c *fiber.Ctx, showID int64) error {
	if c.Get("HX-Request") == "true" {
		c.Set("HX-Redirect", views.QueueURL(showID))
		return c.SendStatus(fiber.StatusOK)
	}
	return c.Redirect(views.QueueURL(showID), fiber.StatusSeeOther)
}
