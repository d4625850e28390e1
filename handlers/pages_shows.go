package handlers

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/orders"
	"seatflow/services/seats"
	"seatflow/views"
)

// showPage shows one show with its seat map form (a show whose waiting room is on sends
// whoever it has not admitted to the waiting page). A refused booking redirected here
// (see bookSeats) is told above the map with the picks kept; ?seat= ticks seats too
// (coming back from signing in). Either way only seats still free stay ticked. A large
// hall (views.SectionedSeats) shows the overview of its sections, or ?section=N; without
// one in the address, a refused booking comes back to the section it was made in, and
// picks open the section of the first pick. A section's page reads only its own seats
// and the picks from the seat cache (Listing.SeatMapOf: a stadium's whole map
// is 27-77 ms of Redis time a read).
func (d *Deps) showPage(c *fiber.Ctx) error {
	id, ok := idParam(c, "id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, tr(c, "err.no_show", nil))
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	picks := queryPicks(c)
	counts := queryTicketCounts(c)
	section, chosen := sectionNumber(c.Query("section"))
	steps := stepThrough(c.Query("pick"), c.Query("zone"), c.Query("row"))
	flashed := c.Cookies(bookFlashCookie) != "" // a refused booking to tell (read below)
	var userID int64
	if u := currentUser(c); u != nil {
		userID = u.ID
	}
	// a large hall's section page reads its own seats (and the picks carried along)
	// alone; a refused booking's message and the step-through need the whole map
	pick := func(*services.Hall) []int64 { return nil }
	if chosen && section > 0 && !flashed && steps == nil {
		pick = func(h *services.Hall) []int64 { return sectionReadIDs(h, section, picks) }
	}
	m, err := d.Shows.SeatMapOf(ctx, id, pick, userID)
	if err != nil {
		return errorPage(c, err)
	}
	if d.mustQueue(c, m.Show) {
		return c.Redirect(views.QueueURL(id), fiber.StatusSeeOther)
	}
	var msg string
	var lost map[int64]bool
	// the voucher typed with the seats: checked on them when the page shows their total
	// ("Show the total" without JavaScript), kept as typed after a refusal
	v := pageVoucher{code: strings.TrimSpace(c.Query("voucher"))}
	if f, ok := takeBookFlash(c, id); ok {
		msg, lost = flashMessage(langOf(c), f, m, userID, d.now(), d.showZone(m.Show))
		picks, counts, v.code = f.Picks, f.Counts, f.Voucher
		if !chosen && f.Section > 0 {
			section, chosen = f.Section, true
		}
		if f.StepZone != "" {
			steps = stepThrough("list", f.StepZone, f.StepRow)
		}
	}
	if !chosen && len(picks) > 0 && len(m.Hall.Seats) > views.SectionedSeats {
		// back from signing in, or a refused booking: the section of the first pick
		section = views.SectionsOf(m.Hall).Of(m.Hall, picks[0])
	}
	if v.code != "" && msg == "" && len(picks) > 0 && len(v.code) <= 64 {
		r := d.voucherCheck(c, m.Show.ID, v.code, picks, counts)
		v.result = &r
	}
	return d.renderShowSteps(c, m, fiber.StatusOK, msg, picks, counts, lost, section, steps, v)
}

// pageVoucher is the seat form's voucher as the show's page brings it back: the code as
// typed and what it saves on the picks (nil: not checked).
type pageVoucher struct {
	code   string
	result *views.VoucherPreviewProps
}

// sectionReadIDs are the seat ids a large hall's section page reads from the seat
// cache: the seats of section index of h and the picks carried from other sections
// (nil when h is shown whole or has no such section: the page reads every seat).
func sectionReadIDs(h *services.Hall, index int, picks []int64) []int64 {
	if len(h.Seats) <= views.SectionedSeats {
		return nil
	}
	sec, ok := views.SectionsOf(h).Find(index)
	if !ok {
		return nil
	}
	ids := make([]int64, 0, len(sec.Seats)+len(picks))
	for _, i := range sec.Seats {
		ids = append(ids, h.Seats[i].ID)
	}
	for _, id := range picks {
		if _, ok := h.Seat(id); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// stepThrough reads the step-through selection of a show's address (?pick=list, with
// ?zone= and ?row= once chosen); nil without pick=list. The view checks the zone and
// row against the show's.
func stepThrough(pick, zone, row string) *views.StepThrough {
	if pick != "list" {
		return nil
	}
	if len(zone) > 64 || len(row) > 16 {
		zone, row = "", ""
	}
	return &views.StepThrough{Zone: strings.Clone(zone), Row: strings.Clone(row)}
}

// mustQueue reports whether the visitor must go through show's waiting room before its
// seat map: the room is on, the sale is open or about to, and they hold no valid
// admission (a signed-out visitor signs in on the way).
func (d *Deps) mustQueue(c *fiber.Ctx, show *services.Show) bool {
	if !show.WaitingRoom || d.Admission == nil {
		return false
	}
	if st := show.StatusAt(nowUTC()); st != services.ShowOnSale && st != services.ShowScheduled {
		return false
	}
	u := currentUser(c)
	return u == nil || !d.Admission.Valid(admissionToken(c, show.ID), u.ID, show.ID, show.RoomEpoch, nowUTC())
}

// renderShow renders the show page at section (a large hall's section, 0 for its
// overview); selected seats stay checked where still free, lost seats are highlighted.
func (d *Deps) renderShow(c *fiber.Ctx, m *seats.SeatMap, status int, msg string, selected []int64, lost map[int64]bool, section int) error {
	return d.renderShowSteps(c, m, status, msg, selected, nil, lost, section, nil, pageVoucher{})
}

// renderShowSteps is renderShow with the step-through selection steps instead of the
// seat map (nil: the map), the seat form's ticket counts (nil: all adult) and its voucher.
func (d *Deps) renderShowSteps(c *fiber.Ctx, m *seats.SeatMap, status int, msg string, selected []int64, counts map[string]int, lost map[int64]bool, section int, steps *views.StepThrough, v pageVoucher) error {
	keep := make(map[int64]bool, len(selected))
	for _, id := range selected {
		if !lost[id] && m.States[id] == services.StateFree {
			keep[id] = true
		}
	}
	return render(c, status, views.ShowPage(views.ShowPageProps{
		Page:          page(c, m.Show.Movie.Title),
		Map:           seatMapView(m),
		Now:           d.now(),
		Zone:          d.showZone(m.Show),
		CinemaName:    d.chainCinema(c.UserContext(), m.Show),
		HoldFor:       d.Orders.HoldFor(),
		Selected:      keep,
		Error:         msg,
		JustTaken:     lost,
		Section:       section,
		Waitlist:      d.waitlistView(c, m),
		CancelNote:    d.cancelNote(c, m.Show),
		Steps:         steps,
		TicketCounts:  counts,
		Voucher:       v.code,
		VoucherResult: v.result,
	}))
}

// cancelNote is what staff wrote for buyers when they cancelled show (the reason of its
// show.cancel audit entry), "" when the show is not cancelled, they wrote nothing, or it
// cannot be read.
func (d *Deps) cancelNote(c *fiber.Ctx, show *services.Show) string {
	if show.Status != services.ShowCancelled || d.Audit == nil {
		return ""
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	entries, err := d.Audit.List(ctx, audit.AuditFilter{Entity: "show", EntityID: strconv.FormatInt(show.ID, 10), Action: "show.cancel", Limit: 1})
	if err != nil || len(entries) == 0 {
		return ""
	}
	var after struct {
		Reason string `json:"reason"`
	}
	if json.Unmarshal(entries[0].After, &after) != nil || after.Reason == services.ReasonShowCancelled {
		return ""
	}
	return after.Reason
}

// toShow sends a GET of a show's form URL (a reload, a shared link) to the show's page.
func toShow(c *fiber.Ctx) error {
	id, ok := idParam(c, "id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, tr(c, "err.no_show", nil))
	}
	return c.Redirect(views.ShowURL(id), fiber.StatusSeeOther)
}

// bookSeats creates a pending order of the checked seats and sends the buyer to it,
// naming the single empty seats it left (the single-seat rule's warn). A refused
// booking redirects (303) to the show's page, which tells why with fresh seat states
// and the picks kept (post/redirect/get: reloading never re-posts). A signed-out
// visitor goes to sign in and comes back to the show with the picks. The form's
// "Show the total" button (no JavaScript) brings the show's page back with the picks
// and ticket counts and their total, booking nothing.
func (d *Deps) bookSeats(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, tr(c, "err.no_show", nil))
	}
	ids, problem := seatIDs(c.Request().PostArgs().PeekMulti("seat"))
	if problem != "" && langOf(c).IsZh() { // seatIDs words its problems in English (the console shares it)
		problem = tr(c, "book.bad_selection", nil)
	}
	counts, countsOK := ticketCountsOf(c)
	if c.FormValue("preview") != "" {
		return c.Redirect(withVoucher(picksCountsURL(showID, ids, counts), formVoucher(c)), fiber.StatusSeeOther)
	}
	u := currentUser(c)
	if u == nil {
		return redirectToLogin(c, picksCountsURL(showID, ids, counts))
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	if problem == "" && len(ids) == 0 {
		problem = tr(c, "book.pick_one", nil)
	}
	section, _ := sectionNumber(c.FormValue("section"))                                                  // a large hall's section: the page to come back to
	stepZone, stepRow := strings.Clone(c.FormValue("step_zone")), strings.Clone(c.FormValue("step_row")) // or the step-through's row
	if problem == "" && c.FormValue("wheelchair_ok") != "1" {
		if problem, err := d.wheelchairUnconfirmed(ctx, langOf(c), showID, ids); err != nil {
			return errorPage(c, err)
		} else if problem != "" {
			return setBookFlash(c, showID, bookFlash{Code: "input", Message: problem, Picks: ids, Section: section, StepZone: stepZone, StepRow: stepRow, Voucher: formVoucher(c)})
		}
	}
	if problem == "" && (!countsOK || sumCounts(counts) > len(ids)) {
		problem = tr(c, "tickets.too_many", nil)
	}
	if problem != "" {
		return setBookFlash(c, showID, bookFlash{Code: "input", Message: problem, Picks: ids, Counts: counts, Section: section, StepZone: stepZone, StepRow: stepRow, Voucher: formVoucher(c)})
	}
	order, err := d.Orders.Create(ctx, orders.CreateOrderRequest{UserID: u.ID, Email: u.Email, Lang: u.Lang, ShowID: showID, SeatIDs: ids,
		SeatTicketCounts: counts, AdmissionToken: admissionToken(c, showID), Voucher: formVoucher(c)})
	if err == nil {
		return c.Redirect(withStranded(views.OrderURL(order.OrderNo), order.Stranded), fiber.StatusSeeOther)
	}
	status, refused := pageError(c, err)
	if status == fiber.StatusNotFound || status >= fiber.StatusInternalServerError && status != fiber.StatusServiceUnavailable {
		return errorPage(c, err)
	}
	return setBookFlash(c, showID, bookFlash{Code: refused.Code, Message: refused.Message, Seats: refused.Seats,
		Retry: refused.RetryAfterS, Picks: ids, Counts: counts, Section: section, StepZone: stepZone, StepRow: stepRow,
		Voucher: formVoucher(c), Reason: voucherReasonID(err)})
}

// formVoucher is the booking form's voucher code as typed ("" for none).
func formVoucher(c *fiber.Ctx) string {
	return strings.TrimSpace(strings.Clone(c.FormValue("voucher")))
}

// wheelchairUnconfirmed says why a pick of wheelchair spaces needs the form's
// confirmation box ("" when ids has none): a wheelchair space has no fixed seat.
func (d *Deps) wheelchairUnconfirmed(ctx context.Context, l views.Lang, showID int64, ids []int64) (string, error) {
	m, err := d.Shows.SeatMap(ctx, showID)
	if err != nil {
		return "", err
	}
	picked := make(map[int64]bool, len(ids))
	for _, id := range ids {
		picked[id] = true
	}
	var labels []string
	for _, st := range m.Hall.Seats {
		if picked[st.ID] && st.Kind == services.KindWheelchair {
			labels = append(labels, st.Label)
		}
	}
	if len(labels) == 0 {
		return "", nil
	}
	return l.N("book.wheelchair_unconfirmed", len(labels), views.D{"Seats": l.JoinLabels(labels)}), nil
}

// bookBest books the best available seats together in one zone (the form's zone,
// quantity and accessible) and sends the buyer to the order, which says the seats were
// chosen for them. A refusal goes back to the show's page like bookSeats'.
func (d *Deps) bookBest(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, tr(c, "err.no_show", nil))
	}
	zone := strings.TrimSpace(c.FormValue("zone"))
	qty, err := strconv.Atoi(c.FormValue("quantity"))
	switch {
	case zone == "" || len(zone) > 64:
		return setBookFlash(c, showID, bookFlash{Code: "input", Message: tr(c, "book.choose_zone", nil)})
	case err != nil || qty < 1 || qty > orders.MaxSeatsPerRequest:
		return setBookFlash(c, showID, bookFlash{Code: "input", Message: tr(c, "book.choose_quantity", nil)})
	}
	counts, countsOK := ticketCountsOf(c)
	typed, fits := bestTicketCounts(counts, qty)
	if !countsOK || !fits {
		return setBookFlash(c, showID, bookFlash{Code: "input", Message: tr(c, "tickets.too_many", nil)})
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	u := currentUser(c)
	order, err := d.Orders.Create(ctx, orders.CreateOrderRequest{UserID: u.ID, Email: u.Email, Lang: u.Lang, ShowID: showID,
		Zone: strings.Clone(zone), Quantity: qty, Accessible: c.FormValue("accessible") == "1",
		TicketCounts: typed, AdmissionToken: admissionToken(c, showID), Voucher: formVoucher(c)})
	if err == nil {
		return c.Redirect(withStranded(views.OrderURL(order.OrderNo)+"?chosen=1", order.Stranded), fiber.StatusSeeOther)
	}
	status, refused := pageError(c, err)
	if status == fiber.StatusNotFound || status >= fiber.StatusInternalServerError && status != fiber.StatusServiceUnavailable {
		return errorPage(c, err)
	}
	return setBookFlash(c, showID, bookFlash{Code: refused.Code, Message: refused.Message, Seats: refused.Seats, Retry: refused.RetryAfterS,
		Voucher: formVoucher(c), Reason: voucherReasonID(err)})
}

// bookingMessage words a refused booking for the show page, given the fresh seat map,
// and returns the seats it lost (to highlight them).
func bookingMessage(l views.Lang, se *services.Error, m *seats.SeatMap, userID int64, now time.Time, loc *time.Location) (string, map[int64]bool) {
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
			msg = l.SeatTakenMessage(others)
		case len(mine) > 0:
			msg = l.T("book.already_yours", views.D{"Seats": l.JoinLabels(mine)})
		default:
			msg = l.T("book.taken_moment", nil)
		}
		return msg + l.T("book.others_kept", nil), lost
	case services.CodeNotOnSale:
		if st := l.StateOf(m.Show, now, loc); st.Reason != "" {
			return st.Reason, nil
		}
		return l.T("book.not_on_sale", nil), nil
	case services.CodeLimitExceeded:
		owned := 0
		for id, owner := range m.Owners {
			if owner == userID && (m.States[id] == services.StateHeld || m.States[id] == services.StateSold) {
				owned++
			}
		}
		if owned > 0 {
			return l.N("book.over_limit_owned", m.Show.PurchaseLimit, views.D{"Owned": owned, "Left": max(m.Show.PurchaseLimit-owned, 0)}), nil
		}
		return l.N("book.over_limit", m.Show.PurchaseLimit, nil), nil
	case services.CodeSeatNotInShow:
		return l.T("book.not_in_show", views.D{"Seats": l.JoinLabels(se.Seats)}), nil
	case services.CodeRateLimited:
		return l.RetryText(se.RetryAfterS), nil
	case services.CodeUnavailable:
		return l.T("book.unavailable", nil), nil
	}
	return serviceText(l, se, sentence(se.Message)), nil
}

// sentence capitalises a service message and ends it with a full stop. A message that
// opens with a field's name as the API spells it ("time_zone must be …", "cinema_id …")
// opens with it in words ("Time zone must be …").
func sentence(s string) string {
	if s == "" {
		return s
	}
	end := strings.IndexByte(s, ' ')
	if end < 0 {
		end = len(s)
	}
	if fieldName.MatchString(s[:end]) {
		s = strings.ReplaceAll(s[:end], "_", " ") + s[end:]
	}
	if s[0] >= 'a' && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	if last := s[len(s)-1]; last != '.' && last != '!' && last != '?' {
		s += "."
	}
	return s
}

// fieldName is a request field's name as the API spells it: lower-case words joined by "_".
var fieldName = regexp.MustCompile(`^[a-z]+(_[a-z]+)+$`)

// seatIDs parses the form's seat values into ids (duplicates dropped); problem says
// what is wrong with them.
func seatIDs(values [][]byte) (ids []int64, problem string) {
	if len(values) > orders.MaxSeatsPerRequest {
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
