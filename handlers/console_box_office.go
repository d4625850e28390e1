package handlers

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
	"seatflow/services/orders"
	"seatflow/services/staff"
	"seatflow/views"
)

// boxOfficeDays is how many local days ahead the box office lists shows (today first).
const boxOfficeDays = 7

// boxOfficePage lists the shows the counter sells now: today's in each cinema's local
// day first, then the next days', of the staff member's cinemas.
func (d *Deps) boxOfficePage(c *fiber.Ctx) error {
	if d.BoxOffice == nil {
		return renderErrorPage(c, fiber.StatusNotFound, "The box office is not set up.")
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	now := d.now()
	var shows []*services.Show
	today, _ := time.Parse(time.DateOnly, d.Shows.Today())
	for day := 0; day < boxOfficeDays; day++ {
		date := ""
		if day > 0 {
			date = today.AddDate(0, 0, day).Format(time.DateOnly)
		}
		list, err := d.Shows.OnDate(ctx, date, 0)
		if err != nil {
			return errorPage(c, err)
		}
		for _, s := range services.InCinemaScope(cinemaScope(c), list, showCinemaID) {
			if orders.CounterOpen(s, now) && !slices.ContainsFunc(shows, func(x *services.Show) bool { return x.ID == s.ID }) {
				shows = append(shows, s)
			}
		}
	}
	return render(c, fiber.StatusOK, views.BoxOfficePage(views.BoxOfficeProps{Page: page(c, "Box office"), Shows: shows,
		Shift: d.currentShiftRow(c), Zone: d.Shows.Zone(), Now: now}))
}

// currentShiftRow is the signed-in staff member's open shift, nil when none (or unread).
func (d *Deps) currentShiftRow(c *fiber.Ctx) *views.ShiftRow {
	if d.Shifts == nil {
		return nil
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	v, err := d.Shifts.Current(ctx, currentUser(c).ID)
	if err != nil || v == nil {
		return nil
	}
	r := shiftRow(v)
	return &r
}

// boxOfficeSalePage is the counter screen of show :id; ?sold=<order_no> shows the sale
// just made with its change and printed tickets.
func (d *Deps) boxOfficeSalePage(c *fiber.Ctx) error {
	p := views.BoxOfficeSaleProps{Form: views.CounterForm{Mode: "seats", Tender: orders.TenderCash, Quantity: "2"}}
	if no := c.Query("sold"); no != "" {
		ctx, cancel := ctxOf(c)
		defer cancel()
		if o, err := d.Orders.ByNo(ctx, utils.CopyString(no)); err == nil && o.Channel == services.ChannelBoxOffice {
			if err := d.staffMayRead(ctx, c, o.OrderNo); err != nil {
				return errorPage(c, err)
			}
			r, _ := d.BoxOffice.Receipt(ctx, o.ID)
			p.Done = counterDone(o, r)
		}
	}
	return d.renderCounter(c, fiber.StatusOK, p)
}

// counterDone is the finished sale's panel.
func counterDone(o *services.Order, r *orders.CounterReceipt) *views.CounterDone {
	done := &views.CounterDone{OrderNo: o.OrderNo, Seats: views.SeatLabels(o), TotalMinor: o.TotalMinor, Currency: o.Currency,
		TicketPDF: "/orders/" + o.OrderNo + "/ticket.pdf"}
	if r != nil {
		done.Tender, done.TenderedMinor, done.ChangeM, done.InShift = r.Tender, r.TenderedMinor, r.ChangeMinor, r.ShiftID != nil
	}
	return done
}

// renderCounter renders the counter screen of show :id with p's form, quote, sale and
// error: the seat map read now, the show's zones and ticket types, the staff member's shift.
func (d *Deps) renderCounter(c *fiber.Ctx, status int, p views.BoxOfficeSaleProps) error {
	showID, ok := idParam(c, "id")
	if !ok || d.BoxOffice == nil {
		return noSuchShow(c)
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	m, err := d.Shows.SeatMap(ctx, showID)
	if services.ErrorCode(err) == services.CodeNotFound {
		return noSuchShow(c)
	}
	if err != nil {
		return errorPage(c, err)
	}
	p.Page, p.Show, p.Zone = page(c, "Box office: "+m.Show.Movie.Title), m.Show, d.showZone(m.Show)
	p.Rows, p.Cols, p.Zones = m.Hall.Rows, m.Hall.Cols, m.Show.Zones
	for _, s := range m.Hall.Seats {
		_, priced := m.Show.ZonePrice(s.ZoneCode)
		if !s.Sellable() || !priced {
			continue
		}
		p.Seats = append(p.Seats, views.CounterSeat{ID: s.ID, Label: s.Label, Zone: s.ZoneCode, Row: s.Row, Col: s.Col,
			Sellable: true, Free: m.States[s.ID] == services.StateFree})
	}
	p.Types = views.TicketChoices(c.UserContext(), m.Show)
	p.Shift = d.currentShiftRow(c)
	if !orders.CounterOpen(m.Show, d.now()) && p.Error == "" && p.Done == nil {
		p.Error = "The counter does not sell this show now: it sells from the sale's opening until the start."
	}
	return render(c, status, views.BoxOfficeSalePage(p))
}

// boxOfficeForm sells or prices (step quote) at the counter from the counter screen's
// form; a sale redirects to the screen with the sale shown (a reload sells nothing).
func (d *Deps) boxOfficeForm(c *fiber.Ctx) error {
	showID, ok := idParam(c, "id")
	if !ok || d.BoxOffice == nil {
		return noSuchShow(c)
	}
	form := views.CounterForm{Mode: c.FormValue("mode"), Zone: utils.CopyString(c.FormValue("zone")), Quantity: utils.CopyString(c.FormValue("quantity")),
		Voucher: utils.CopyString(strings.TrimSpace(c.FormValue("voucher"))), Tender: utils.CopyString(c.FormValue("tender")),
		Given: utils.CopyString(c.FormValue("given")), Email: utils.CopyString(strings.TrimSpace(c.FormValue("email"))),
		Lang: utils.CopyString(c.FormValue("lang")), SeatIDs: map[int64]bool{}, Types: map[string]string{}}
	s := orders.CounterSale{StaffID: currentUser(c).ID, ShowID: showID, Voucher: form.Voucher, Tender: form.Tender, Email: form.Email, Lang: form.Lang}
	fail := func(msg string) error {
		return d.renderCounter(c, fiber.StatusBadRequest, views.BoxOfficeSaleProps{Form: form, Error: msg})
	}
	for _, v := range c.Request().PostArgs().PeekMulti("seat") {
		if id, ok := parseID(string(v)); ok {
			form.SeatIDs[id] = true
		}
	}
	counts := map[string]int{}
	sum := 0
	c.Request().PostArgs().VisitAll(func(k, v []byte) {
		if typ, ok := strings.CutPrefix(string(k), "type_"); ok {
			form.Types[typ] = strings.TrimSpace(string(v))
			if n, err := strconv.Atoi(form.Types[typ]); err == nil && n > 0 {
				counts[typ] = n
				sum += n
			}
		}
	})
	if form.Mode == "best" {
		q, err := strconv.Atoi(strings.TrimSpace(form.Quantity))
		if err != nil || q < 1 {
			return fail("Type how many seats to sell.")
		}
		s.Zone, s.Quantity = form.Zone, q
		if sum > 0 {
			if sum > q {
				return fail("More tickets of other types than seats.")
			}
			counts[services.TicketAdult] += q - sum
			s.TicketCounts = counts
		}
	} else {
		for id := range form.SeatIDs {
			s.SeatIDs = append(s.SeatIDs, id)
		}
		slices.Sort(s.SeatIDs)
		if len(s.SeatIDs) == 0 {
			return fail("Tick the seats to sell on the map, or choose best available.")
		}
		if sum > 0 {
			s.SeatTicketCounts = counts
		}
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	if form.Given != "" && s.Tender == orders.TenderCash {
		show, err := d.Catalog.Show(ctx, showID)
		if err != nil {
			return errorPage(c, err)
		}
		given, ok := parsePrice(form.Given, show.Currency)
		if !ok {
			return fail("Type the cash given as an amount such as 100.00.")
		}
		s.TenderedMinor = &given
	}
	if c.FormValue("step") == "quote" {
		o, err := d.BoxOffice.Quote(ctx, s)
		if err != nil {
			return d.counterError(c, form, err)
		}
		q := &views.CounterQuote{TotalMinor: o.TotalMinor, DiscountMinor: o.DiscountMinor, Currency: o.Currency}
		show, _ := d.Catalog.Show(ctx, showID)
		for _, st := range o.Seats {
			line := views.TicketTypeName(c.UserContext(), ticketTypeOrAdult(st.TicketType)) + " · " + views.ZoneName(show, st.ZoneCode) + " · " + services.Money(st.PriceMinor, o.Currency)
			if st.Label != "" {
				line = st.Label + " · " + line
			}
			q.Lines = append(q.Lines, line)
		}
		return d.renderCounter(c, fiber.StatusOK, views.BoxOfficeSaleProps{Form: form, Quote: q})
	}
	o, _, err := d.BoxOffice.Sell(ctx, s)
	if err != nil {
		return d.counterError(c, form, err)
	}
	return c.Redirect(views.BoxOfficeShowURL(showID)+"?sold="+url.QueryEscape(o.OrderNo), fiber.StatusSeeOther)
}

// counterError renders the counter screen with a refusal's message (a contract error:
// 409 or 422 as the API answers, 400 for bad input), or the error page.
func (d *Deps) counterError(c *fiber.Ctx, form views.CounterForm, err error) error {
	var e *services.Error
	if !errors.As(err, &e) || e.Code == services.CodeUnavailable || e.Code == services.CodeForbidden {
		return errorPage(c, err)
	}
	status := fiber.StatusConflict
	switch e.Code {
	case services.CodeInvalidRequest:
		status = fiber.StatusBadRequest
	case services.CodeNotOnSale, services.CodeSeatNotInShow, services.CodeTicketTypeNotOffered, services.CodeVoucherInvalid:
		status = fiber.StatusUnprocessableEntity
	case services.CodeNotFound:
		return noSuchShow(c)
	}
	return d.renderCounter(c, status, views.BoxOfficeSaleProps{Form: form, Error: upperFirst(e.Message) + "."})
}

// shiftRow is a shift for the console.
func shiftRow(v *staff.ShiftView) views.ShiftRow {
	cu := v.CashUp
	r := views.ShiftRow{ID: v.ID, Staff: v.StaffEmail, Cinema: v.CinemaName, Currency: v.Currency, Note: v.Note, CloseNote: v.CloseNote,
		OpenedAt: v.OpenedAt, ClosedAt: v.ClosedAt, ClosedBy: v.ClosedByEmail, Float: cu.FloatMinor, CashSales: cu.CashSales, CashSalesMinor: cu.CashSalesMinor,
		CardSales: cu.CardSales, CardSalesMinor: cu.CardSalesMinor, CashRefunds: cu.CashRefunds, CashRefundsMinor: cu.CashRefundsMinor,
		CardRefunds: cu.CardRefunds, CardRefundsMinor: cu.CardRefundsMinor, Expected: cu.ExpectedCashMinor(), CardNet: cu.CardNetMinor(),
		Counted: cu.CountedMinor}
	if diff, ok := cu.DifferenceMinor(); ok {
		r.Difference = &diff
	}
	return r
}

// shiftsPage is the shifts page: the caller's open shift or the open form, and the
// shifts of their cinemas.
func (d *Deps) shiftsPage(c *fiber.Ctx) error {
	return d.renderShifts(c, fiber.StatusOK, "", "")
}

func (d *Deps) renderShifts(c *fiber.Ctx, status int, msg, float string) error {
	if d.Shifts == nil {
		return renderErrorPage(c, fiber.StatusNotFound, "The box office is not set up.")
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	list, err := d.Shifts.List(ctx, 0, 100)
	if err != nil {
		return errorPage(c, err)
	}
	p := views.ShiftsProps{Page: page(c, "Shifts"), Current: d.currentShiftRow(c), Zone: d.Shows.Zone(), Error: msg, Float: float,
		Note: utils.CopyString(c.FormValue("note"))}
	for _, v := range list {
		p.List = append(p.List, shiftRow(v))
	}
	if d.Cinemas != nil {
		cs, err := d.Cinemas.Cinemas(ctx)
		if err != nil {
			return errorPage(c, err)
		}
		p.Cinemas = services.InCinemaScope(cinemaScope(c), cs, func(x services.Cinema) int64 { return x.ID })
	}
	return render(c, status, views.ShiftsPage(p))
}

// openShiftForm opens the caller's shift from the form (cinema_id, float in major units,
// an optional note).
func (d *Deps) openShiftForm(c *fiber.Ctx) error {
	cinemaID, ok := parseID(c.FormValue("cinema_id"))
	float := utils.CopyString(c.FormValue("float"))
	if !ok {
		return d.renderShifts(c, fiber.StatusBadRequest, "Choose the cinema.", float)
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	cinema, err := d.Cinemas.Cinema(ctx, cinemaID)
	if err != nil {
		return errorPage(c, err)
	}
	minor, ok := parsePrice(float, cinema.Currency)
	if !ok {
		return d.renderShifts(c, fiber.StatusBadRequest, "Type the float as an amount such as 200.00.", float)
	}
	v, err := d.Shifts.Open(ctx, currentUser(c).ID, cinemaID, minor, utils.CopyString(c.FormValue("note")))
	if code := services.ErrorCode(err); code == services.CodeConflict || code == services.CodeInvalidRequest {
		return d.renderShifts(c, fiber.StatusConflict, upperFirst(err.(*services.Error).Message)+".", float)
	}
	if err != nil {
		return errorPage(c, err)
	}
	return c.Redirect(views.ShiftURL(v.ID), fiber.StatusSeeOther)
}

// shiftPage is one shift's cash-up, with its close form while open.
func (d *Deps) shiftPage(c *fiber.Ctx) error {
	return d.renderShift(c, fiber.StatusOK, "", "")
}

func (d *Deps) renderShift(c *fiber.Ctx, status int, msg, counted string) error {
	shiftID, ok := idParam(c, "id")
	if !ok || d.Shifts == nil {
		return renderErrorPage(c, fiber.StatusNotFound, "There is no such shift.")
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	v, err := d.Shifts.Get(ctx, shiftID)
	if services.ErrorCode(err) == services.CodeNotFound {
		return renderErrorPage(c, fiber.StatusNotFound, "There is no such shift.")
	}
	if err != nil {
		return errorPage(c, err)
	}
	return render(c, status, views.ShiftPage(views.ShiftProps{Page: page(c, "Cash-up of shift "+id(v.ID)), Shift: shiftRow(v),
		Zone: d.Shows.Zone(), Error: msg, Counted: counted, Mine: v.StaffID == currentUser(c).ID}))
}

// closeShiftForm closes shift :id with the cash counted (major units).
func (d *Deps) closeShiftForm(c *fiber.Ctx) error {
	shiftID, ok := idParam(c, "id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, "There is no such shift.")
	}
	counted := utils.CopyString(c.FormValue("counted"))
	ctx, cancel := ctxOf(c)
	defer cancel()
	v, err := d.Shifts.Get(ctx, shiftID)
	if err != nil {
		return errorPage(c, err)
	}
	minor, ok := parsePrice(counted, v.Currency)
	if !ok {
		return d.renderShift(c, fiber.StatusBadRequest, "Type the cash counted as an amount such as 412.50.", counted)
	}
	if _, err := d.Shifts.Close(ctx, currentUser(c).ID, shiftID, minor, utils.CopyString(c.FormValue("note"))); err != nil {
		if code := services.ErrorCode(err); code == services.CodeConflict || code == services.CodeInvalidRequest {
			return d.renderShift(c, fiber.StatusConflict, upperFirst(err.(*services.Error).Message)+".", counted)
		}
		return errorPage(c, err)
	}
	return c.Redirect(views.ShiftURL(shiftID), fiber.StatusSeeOther)
}
