package handlers

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
	"seatflow/services/vouchers"
	"seatflow/views"
)

// The console's vouchers (views.VouchersPage, views.VoucherPage): forms POST and answer
// 303 to the page to show next, or re-render the list with the input and what was
// wrong.

// vouchersPage lists the vouchers (?cinema_id=, ?batch=) with the add forms.
func (d *Deps) vouchersPage(c *fiber.Ctx) error {
	return d.renderVouchers(c, fiber.StatusOK, views.VouchersPageProps{Done: utils.CopyString(c.Query("done"))})
}

// createVoucherPage adds one voucher from the form and opens its page.
func (d *Deps) createVoucherPage(c *fiber.Ctx) error {
	f := voucherForm(c)
	props := views.VouchersPageProps{Form: f}
	in, problem := d.voucherInput(c, f)
	if problem != "" {
		props.Error = problem
		return d.renderVouchers(c, fiber.StatusBadRequest, props)
	}
	in.Code = f.Code
	ctx, cancel := ctxOf(c)
	defer cancel()
	v, err := d.Vouchers.Create(ctx, currentUser(c).ID, in)
	if err != nil {
		return d.refusedVouchers(c, err, props)
	}
	return c.Redirect(views.VoucherURL(v.Code)+"?done="+url.QueryEscape("Added the voucher "+v.Code+"."), fiber.StatusSeeOther)
}

// createVoucherBatchPage adds a batch of codes from the form and lists it, with its
// CSV's link.
func (d *Deps) createVoucherBatchPage(c *fiber.Ctx) error {
	f := voucherForm(c)
	props := views.VouchersPageProps{BatchForm: f}
	in, problem := d.voucherInput(c, f)
	count, err := strconv.Atoi(strings.TrimSpace(f.Count))
	if problem == "" && err != nil {
		problem = "How many codes must be a whole number from 1 to " + strconv.Itoa(vouchers.MaxBatch) + "."
	}
	if problem != "" {
		props.Error = problem
		return d.renderVouchers(c, fiber.StatusBadRequest, props)
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	vs, err := d.Vouchers.CreateBatch(ctx, currentUser(c).ID, vouchers.BatchInput{Prefix: f.Prefix, Count: count, Name: f.Batch, Input: in})
	if err != nil {
		return d.refusedVouchers(c, err, props)
	}
	name := strings.TrimSpace(f.Batch)
	done := "Added " + strconv.Itoa(len(vs)) + " codes in the batch " + name + "."
	return c.Redirect(views.VouchersURL+"?batch="+url.QueryEscape(name)+"&done="+url.QueryEscape(done), fiber.StatusSeeOther)
}

// voucherPage shows one voucher with its orders and revenue.
func (d *Deps) voucherPage(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	st, err := d.Vouchers.Stats(ctx, copyParam(c, "code"))
	if err != nil {
		return errorPage(c, err)
	}
	p := views.VoucherPageProps{Voucher: st.Voucher, Cinema: st.Cinema, Now: d.now(), Done: utils.CopyString(c.Query("done")),
		Totals: views.VoucherTotals{Orders: st.Totals.Orders, Seats: st.Totals.Seats, DiscountMinor: st.Totals.DiscountMinor, RevenueMinor: st.Totals.RevenueMinor}}
	for _, o := range st.Orders {
		p.Orders = append(p.Orders, views.VoucherOrderRow{OrderNo: o.OrderNo, Movie: o.Movie, Status: o.Status, Seats: o.Seats,
			Currency: o.Currency, StartsAt: o.StartsAt, DiscountMinor: o.DiscountMinor, TotalMinor: o.TotalMinor})
	}
	p.Page = page(c, "Voucher "+st.Voucher.Code)
	return render(c, fiber.StatusOK, views.VoucherPage(p))
}

// voucherActivePage ends (active=0) or reactivates (active=1) a voucher.
func (d *Deps) voucherActivePage(c *fiber.Ctx) error {
	active := c.FormValue("active") == "1"
	ctx, cancel := ctxOf(c)
	defer cancel()
	v, err := d.Vouchers.Update(ctx, currentUser(c).ID, copyParam(c, "code"), vouchers.Change{Active: &active})
	if err != nil {
		return errorPage(c, err)
	}
	done := "Ended the voucher " + v.Code + ": no new uses."
	if active {
		done = "Reactivated the voucher " + v.Code + "."
	}
	return c.Redirect(views.VoucherURL(v.Code)+"?done="+url.QueryEscape(done), fiber.StatusSeeOther)
}

// voucherForm reads the voucher and batch forms as typed.
func voucherForm(c *fiber.Ctx) views.VoucherForm {
	v := func(k string) string { return strings.TrimSpace(utils.CopyString(c.FormValue(k))) }
	f := views.VoucherForm{Code: v("code"), CinemaID: v("cinema_id"), MaxUses: v("max_uses"), Rule: v("rule"), Value: v("value"),
		ShowIDs: v("show_ids"), Types: v("ticket_types"), Prefix: v("prefix"), Count: v("count"), Batch: v("batch")}
	for _, p := range []string{"v", "b"} {
		if f.FromDate == "" && f.FromTime == "" && f.UntilDate == "" && f.UntilTime == "" {
			f.FromDate, f.FromTime = v(p+"-from_date"), formClock(v(p+"-from_time"))
			f.UntilDate, f.UntilTime = v(p+"-until_date"), formClock(v(p+"-until_time"))
		}
	}
	return f
}

// voucherInput turns the form into the service's input, the window read in the chosen
// cinema's zone; problem says what does not read ("" none).
func (d *Deps) voucherInput(c *fiber.Ctx, f views.VoucherForm) (vouchers.Input, string) {
	var in vouchers.Input
	var ok bool
	if in.CinemaID, ok = parseID(f.CinemaID); !ok && f.CinemaID != "" {
		return in, "Pick the voucher's cinema."
	}
	if f.MaxUses != "" {
		n, err := strconv.ParseInt(f.MaxUses, 10, 64)
		if err != nil {
			return in, "Uses must be a whole number of seats."
		}
		in.MaxUses = n
	}
	loc, currency := time.UTC, ""
	ctx, cancel := ctxOf(c)
	defer cancel()
	if in.CinemaID != 0 {
		cin, err := d.Cinemas.Cinema(ctx, in.CinemaID)
		if err != nil {
			return in, "Pick the voucher's cinema."
		}
		loc, currency = services.Location(cin.TimeZone), cin.Currency
	} else if all, err := d.Cinemas.Cinemas(ctx); err == nil && len(all) > 0 {
		currency = all[0].Currency
	}
	switch f.Rule {
	case "amount", "price":
		// money is typed in major units of the cinema's currency ("5", "5.50")
		n, ok := parsePrice(f.Value, currency)
		if !ok {
			return in, "The amount must be money in " + currency + ", like 5 or 5.50."
		}
		if f.Rule == "amount" {
			in.Rule.AmountOffMinor = &n
		} else {
			in.Rule.PriceMinor = &n
		}
	default:
		n, err := strconv.ParseInt(f.Value, 10, 64)
		if err != nil {
			return in, "The percent off must be a whole number."
		}
		in.Rule.PercentOff = &n
	}
	if p := dateTimeProblem(dateTimeField{label: "The from date", value: f.FromDate, optional: true},
		dateTimeField{label: "The from time", value: f.FromTime, clock: true, optional: true},
		dateTimeField{label: "The until date", value: f.UntilDate, optional: true},
		dateTimeField{label: "The until time", value: f.UntilTime, clock: true, optional: true}); p != "" {
		return in, p
	}
	var err error
	if in.ValidFrom, err = formInstant(f.FromDate, f.FromTime, "00:00", loc); err != nil {
		return in, "The from date and time do not exist in the cinema's time zone."
	}
	if in.ValidUntil, err = formInstant(f.UntilDate, f.UntilTime, "00:00", loc); err != nil {
		return in, "The until date and time do not exist in the cinema's time zone."
	}
	for _, s := range splitList(f.ShowIDs) {
		id, ok := parseID(s)
		if !ok {
			return in, "Show ids must be show numbers separated by commas."
		}
		in.ShowIDs = append(in.ShowIDs, id)
	}
	in.TicketTypes = splitList(f.Types)
	return in, ""
}

// formInstant is a local date and time (the time defaulting to clock) in loc as an
// instant; nil when the date is empty.
func formInstant(date, clock, def string, loc *time.Location) (*time.Time, error) {
	if date == "" {
		return nil, nil
	}
	if clock == "" {
		clock = def
	}
	t, err := services.LocalTime(date, clock, loc)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// splitList splits a comma- or space-separated list, dropping empty parts.
func splitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
}

// refusedVouchers shows the list again with p's input and why err refused it (a 5xx:
// the error page).
func (d *Deps) refusedVouchers(c *fiber.Ctx, err error, p views.VouchersPageProps) error {
	st, se := pageError(c, err)
	if st >= fiber.StatusInternalServerError {
		return renderErrorPage(c, st, se.Message)
	}
	p.Error = sentence(se.Message)
	return d.renderVouchers(c, st, p)
}

func (d *Deps) renderVouchers(c *fiber.Ctx, status int, p views.VouchersPageProps) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	f := vouchers.Filter{Batch: strings.TrimSpace(utils.CopyString(c.Query("batch")))}
	if id, ok := parseID(c.Query("cinema_id")); ok {
		f.CinemaID, p.CinemaID = id, strconv.FormatInt(id, 10)
	}
	p.Batch = f.Batch
	var err error
	if p.Vouchers, err = d.Vouchers.List(ctx, f); err != nil {
		return errorPage(c, err)
	}
	sites, err := d.Cinemas.Cinemas(ctx)
	if err != nil {
		return errorPage(c, err)
	}
	p.Cinemas = map[int64]services.Cinema{}
	scope := cinemaScope(c)
	for _, cin := range sites {
		p.Cinemas[cin.ID] = cin
		if scope.Allows(cin.ID) {
			p.Sites = append(p.Sites, cin)
		}
	}
	p.Now = d.now()
	p.Page = page(c, "Vouchers")
	return render(c, status, views.VouchersPage(p))
}
