package handlers

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/staff"
	"seatflow/views"
)

// doorPermissions lets the door page use the device camera (the site's default policy
// denies it to every page).
const doorPermissions = "camera=(self), microphone=(), geolocation=(), payment=()"

// ticketRefIn finds a ticket reference (orders.TicketRef's shape) inside what was scanned
// or typed: the QR code's text is the reference itself, and a URL carrying it works too.
var ticketRefIn = regexp.MustCompile(`SF1\.[A-Za-z0-9_-]{1,32}\.[A-Za-z0-9_-]{22}`)

// doorRef is the ticket reference in s, or s trimmed when none is found: a typed short
// code (the service reads it, or refuses it as malformed).
func doorRef(s string) string {
	if m := ticketRefIn.FindString(s); m != "" {
		return m
	}
	return strings.TrimSpace(s)
}

// doorPage is the door's check-in page: ?show=<id> (or /admin/shows/:id/door) for one
// show, else any show starting today.
func (d *Deps) doorPage(c *fiber.Ctx) error {
	showID, _ := parseID(c.Query("show"))
	if p := c.Params("id"); p != "" {
		id, ok := parseID(p)
		if !ok {
			return noSuchShow(c)
		}
		showID = id
	}
	return d.renderDoor(c, showID, nil)
}

// doorAdmit admits the ticket of the form's reference (field ref, scanned or typed) at
// the door of the form's show_id (empty or 0: any show today), for the signed-in staff
// member, and renders the result: the whole page, or the result panel alone for htmx.
func (d *Deps) doorAdmit(c *fiber.Ctx) error {
	showID, _ := parseID(c.FormValue("show_id"))
	ref := doorRef(c.FormValue("ref"))
	now := d.now()
	res := &views.DoorResult{At: now.In(d.Door.Zone()).Format("15:04:05"), Scan: strconv.FormatInt(now.UnixNano(), 36)}
	if ref == "" {
		res.Title, res.Message = "No reference", "Scan the ticket's QR code or type its code."
		return d.renderDoor(c, showID, res)
	}
	scope := staff.DoorScope{ShowID: showID}
	if showID == 0 {
		scope.Day = d.Shows.Today()
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	t, err := d.Door.Admit(ctx, currentUser(c).ID, ref, scope)
	switch code := services.ErrorCode(err); {
	case err == nil:
		res.Admitted, res.Title = true, "Admitted"
	case code == services.CodeAlreadyAdmitted:
		res.Title = upperFirst(err.(*services.Error).Message) // "Already admitted at 19:02 by …"
	case code == services.CodeNotFound || code == services.CodeTicketNotValid || code == services.CodeWrongShow:
		res.Title, res.Message = "Refused", upperFirst(err.(*services.Error).Message)
	default:
		return errorPage(c, err)
	}
	if t != nil {
		res.OrderNo, res.Buyer, res.Show = t.Order.OrderNo, t.BuyerName, t.ShowTitle
		for _, s := range t.Order.KeptSeats() { // a refunded seat admits nobody
			res.Seats = append(res.Seats, views.DoorSeatOf(c.UserContext(), s))
		}
	}
	return d.renderDoor(c, showID, res)
}

// upperFirst starts s with a capital letter (the service's messages start lower case).
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// renderDoor renders the door page for show showID (0: any show today) with the result
// of the last scan (nil: none yet); an htmx request gets the result and counter alone.
func (d *Deps) renderDoor(c *fiber.Ctx, showID int64, res *views.DoorResult) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	today, err := d.Shows.OnDate(ctx, "", 0) // today in each cinema's own zone
	if err != nil {
		return errorPage(c, err)
	}
	today = services.InCinemaScope(cinemaScope(c), today, showCinemaID)
	p := views.DoorPageProps{Page: page(c, "Door check-in"), Today: today, ShowID: showID, Result: res, Zone: d.Shows.Zone()}
	ids := make([]int64, 0, len(today))
	for _, s := range today {
		ids = append(ids, s.ID)
	}
	if showID != 0 {
		s, err := d.Catalog.Show(ctx, showID)
		if services.ErrorCode(err) == services.CodeNotFound {
			return noSuchShow(c)
		}
		if err != nil {
			return errorPage(c, err)
		}
		p.Show, ids = s, []int64{showID}
	}
	count, err := d.Door.Count(ctx, ids)
	if err != nil {
		return errorPage(c, err)
	}
	p.Count = views.DoorCount(count)
	c.Set("Permissions-Policy", doorPermissions)
	if c.Get("HX-Request") == "true" {
		return render(c, fiber.StatusOK, views.DoorUpdate(p))
	}
	return render(c, fiber.StatusOK, views.DoorPage(p))
}
