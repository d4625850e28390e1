package handlers

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/views"
)

// programmeDays is how many local days the home page lists: today and the next 6.
const programmeDays = 7

// homePage lists the shows of today and the next days, grouped by local day.
func (d *Deps) homePage(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	loc := d.Shows.Zone()
	now := nowUTC()
	local := now.In(loc)
	from := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
	to := from.AddDate(0, 0, programmeDays)
	shows, err := d.Shows.Between(ctx, from.UTC(), to.UTC())
	if err != nil {
		return errorPage(c, err)
	}
	return render(c, fiber.StatusOK, views.HomePage(views.HomeProps{
		Page: page(c, "Shows"),
		Days: views.GroupByDay(shows, now, loc, programmeDays),
		Now:  now,
		Zone: loc,
	}))
}

// showPage shows one show with its seat map form.
func (d *Deps) showPage(c *fiber.Ctx) error {
	id, ok := idParam(c, "id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, "There is no such show.")
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	m, err := d.Shows.SeatMap(ctx, id)
	if err != nil {
		return errorPage(c, err)
	}
	return d.renderShow(c, m, fiber.StatusOK, "", nil, nil)
}

// renderShow renders the show page; selected seats stay checked where still free, lost
// seats are highlighted.
func (d *Deps) renderShow(c *fiber.Ctx, m *services.SeatMap, status int, msg string, selected []int64, lost map[int64]bool) error {
	keep := make(map[int64]bool, len(selected))
	for _, id := range selected {
		if !lost[id] && m.States[id] == services.StateFree {
			keep[id] = true
		}
	}
	return render(c, status, views.ShowPage(views.ShowPageProps{
		Page:      page(c, m.Show.Movie.Title),
		Map:       m,
		Now:       nowUTC(),
		Zone:      d.Shows.Zone(),
		HoldFor:   d.Orders.HoldFor(),
		Selected:  keep,
		Error:     msg,
		JustTaken: lost,
	}))
}

// bookSeats creates a pending order of the checked seats and sends the buyer to it; a
// refused booking shows the seat map again with fresh states and the reason.
func (d *Deps) bookSeats(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, "There is no such show.")
	}
	u := currentUser(c)
	ctx, cancel := ctxOf(c)
	defer cancel()
	ids, problem := seatIDs(c.Request().PostArgs().PeekMulti("seat"))
	if problem == "" && len(ids) == 0 {
		problem = "Pick at least one seat."
	}
	status := fiber.StatusBadRequest
	var refused *services.Error
	if problem == "" {
		order, err := d.Orders.Create(ctx, services.CreateOrderRequest{UserID: u.ID, ShowID: showID, SeatIDs: ids})
		if err == nil {
			return c.Redirect(views.OrderURL(order.OrderNo), fiber.StatusSeeOther)
		}
		status, refused = pageError(c, err)
		if status == fiber.StatusNotFound || status >= fiber.StatusInternalServerError && status != fiber.StatusServiceUnavailable {
			return renderErrorPage(c, status, refused.Message)
		}
	}
	m, err := d.Shows.SeatMap(ctx, showID)
	if err != nil {
		return errorPage(c, err)
	}
	var lost map[int64]bool
	if refused != nil {
		problem, lost = bookingMessage(refused, m, u.ID, nowUTC(), d.Shows.Zone())
	}
	return d.renderShow(c, m, status, problem, ids, lost)
}

// bookingMessage words a refused booking for the show page, given the fresh seat map,
// and returns the seats it lost (to highlight them).
func bookingMessage(se *services.Error, m *services.SeatMap, userID int64, now time.Time, loc *time.Location) (string, map[int64]bool) {
	switch se.Code {
	case services.CodeSeatTaken:
		byLabel := make(map[string]int64, len(m.Hall.Seats))
		for _, s := range m.Hall.Seats {
			byLabel[s.Label] = s.ID
		}
		lost := map[int64]bool{}
		var others, mine []string
		for _, l := range se.Seats {
			id, ok := byLabel[l]
			switch {
			case ok && m.States[id] == services.StateFree:
				continue // freed again since: not lost after all
			case ok && m.Owners[id] == userID:
				mine = append(mine, l)
			default:
				others = append(others, l)
			}
			if ok {
				lost[id] = true
			}
		}
		var msg string
		switch {
		case len(others) > 0:
			msg = views.SeatTakenMessage(others)
		case len(mine) > 0:
			msg = "You already hold " + views.JoinLabels(mine) + " in another order (see My orders)."
		default:
			msg = "Some seats were taken a moment ago; the map below is up to date."
		}
		return msg + " Your other seats are still selected: check them and book again.", lost
	case services.CodeNotOnSale:
		if st := views.StateOf(m.Show, now, loc); st.Reason != "" {
			return st.Reason, nil
		}
		return "This show is not on sale right now.", nil
	case services.CodeSeatNotInShow:
		return "Some of these seats cannot be booked for this show: " + views.JoinLabels(se.Seats) + ". Please pick again.", nil
	case services.CodeRateLimited:
		return "Too many booking attempts. Please wait " + views.Plural(max(se.RetryAfterS, 1), "second", "seconds") + " and try again.", nil
	case services.CodeUnavailable:
		return "Booking is briefly unavailable; nothing was booked. Please try again.", nil
	}
	return sentence(se.Message), nil
}

// sentence capitalises a service message and ends it with a full stop.
func sentence(s string) string {
	if s == "" {
		return s
	}
	if s[0] >= 'a' && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	if last := s[len(s)-1]; last != '.' && last != '!' && last != '?' {
		s += "."
	}
	return s
}

// seatIDs parses the form's seat values into ids (duplicates dropped); problem says
// what is wrong with them.
func seatIDs(values [][]byte) (ids []int64, problem string) {
	if len(values) > services.MaxSeatsPerRequest {
		return nil, "Too many seats in one booking."
	}
	seen := make(map[int64]bool, len(values))
	ids = make([]int64, 0, len(values))
	for _, v := range values {
		id, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil || id <= 0 {
			return nil, "That seat selection was not understood; please pick again."
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids, ""
}
