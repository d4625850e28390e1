package handlers

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/views"
)

// Form parsing of the console's show pages: prices are typed in major units ("45",
// "45.5", "45.50") and stored in minor units.

var priceRe = regexp.MustCompile(`^[0-9]{1,9}(\.[0-9]{1,2})?$`)

// apiWords turns the field names of service messages into the console's words.
var apiWords = strings.NewReplacer("sale_opens_at", "the sale opening", "sale_closes_at", "the sale closing",
	"starts_at", "the start", "purchase_limit", "the purchase limit", "admit_per_minute", "the pace", "runtime_min", "the runtime", "movie_id", "the movie", "hall_id", "the hall",
	"single_seat_rule", "the single-seat rule")

var utcTime = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z`)

// consoleMessage is a service message as the console says it: API field names in
// words, UTC times in the cinema's zone ("2027-03-20 19:30"), a capital and a full stop.
func consoleMessage(msg string, loc *time.Location) string {
	msg = utcTime.ReplaceAllStringFunc(msg, func(s string) string {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return s
		}
		return t.In(loc).Format("2006-01-02 15:04")
	})
	return sentence(apiWords.Replace(msg))
}

// parsePrice reads a price typed in major units of currency into minor units.
func parsePrice(s, currency string) (int64, bool) {
	s = strings.TrimSpace(s)
	if !priceRe.MatchString(s) {
		return 0, false
	}
	whole, frac, _ := strings.Cut(s, ".")
	digits := views.MinorDigits(currency)
	if len(frac) > digits {
		return 0, false
	}
	for len(frac) < digits {
		frac += "0"
	}
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	return n, err == nil
}

// formPrices reads the price_<zone> fields of zones into prices, keeping what was
// typed in typed; problem names the first price that is not an amount, or, when
// required, the first zone left empty (otherwise an empty field gives no price).
func formPrices(c *fiber.Ctx, zones []services.Zone, currency string, required bool) (prices []catalog.ZonePrice, typed map[string]string, problem string) {
	typed = map[string]string{}
	for _, z := range zones {
		v := utils.CopyString(strings.TrimSpace(c.FormValue("price_" + z.Code)))
		typed[z.Code] = v
		if v == "" {
			if required && problem == "" {
				problem = "Enter a price for zone " + z.Name + "."
			}
			continue
		}
		n, ok := parsePrice(v, currency)
		if !ok {
			if problem == "" {
				problem = "The price of zone " + z.Name + " must be an amount such as " + views.PriceInput(4550, currency) + "."
			}
			continue
		}
		prices = append(prices, catalog.ZonePrice{Zone: z.Code, PriceMinor: n})
	}
	return prices, typed, problem
}

// consoleDateRe and consoleClockRe are the console's date and time fields as typed:
// YYYY-MM-DD, and H:MM or HH:MM on the 24-hour clock, whatever the browser's locale.
var (
	consoleDateRe  = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
	consoleClockRe = regexp.MustCompile(`^([01]?[0-9]|2[0-3]):[0-5][0-9]$`)
)

// formClock is a time field as typed with a one-digit hour given its leading zero
// ("9:30" reads "09:30"); anything else is kept as typed, for dateTimeProblem to name.
func formClock(s string) string {
	if len(s) == 4 && consoleClockRe.MatchString(s) {
		return "0" + s
	}
	return s
}

// dateTimeField is one date or time field of a console form: its label in the
// problem's words, its value as typed, whether it is a time (HH:MM) rather than a date
// (YYYY-MM-DD), and whether it may be left empty.
type dateTimeField struct {
	label, value    string
	clock, optional bool
}

// dateTimeProblem names the first of fields that is not a calendar date YYYY-MM-DD or
// a time HH:MM on the 24-hour clock (the cinema's clock: never "7:30 PM", never the
// browser's mm/dd/yyyy); "" when every field reads.
func dateTimeProblem(fields ...dateTimeField) string {
	for _, f := range fields {
		if f.value == "" && f.optional {
			continue
		}
		if f.clock {
			if !consoleClockRe.MatchString(f.value) {
				return f.label + " must be a time on the 24-hour clock written HH:MM, such as 19:30 (not 7:30 PM)."
			}
			continue
		}
		if _, err := time.Parse(time.DateOnly, f.value); err != nil || !consoleDateRe.MatchString(f.value) {
			return f.label + " must be a date written YYYY-MM-DD, such as 2026-12-24."
		}
	}
	return ""
}

// paceProblem says what a waiting room's pace must be.
var paceProblem = "The pace must be a whole number of buyers a minute from 1 to " + strconv.Itoa(catalog.MaxAdmitPerMinute) + "."

// showForm reads the new-show form as typed.
func showForm(c *fiber.Ctx) views.ShowForm {
	v := func(name string) string { return utils.CopyString(strings.TrimSpace(c.FormValue(name))) }
	return views.ShowForm{MovieID: v("movie_id"), HallID: v("hall_id"), Date: v("date"), Start: formClock(v("start")),
		OpensDate: v("opens_date"), OpensTime: formClock(v("opens_time")), ClosesDate: v("closes_date"), ClosesTime: formClock(v("closes_time")),
		Limit: v("purchase_limit"), SelfRefundH: v("self_refund_until_h"), Days: v("days"), WaitingRoom: c.FormValue("waiting_room") == "on",
		Pace: v("admit_per_minute"), SingleSeatRule: v("single_seat_rule"), Prices: map[string]string{},
		OpensDefault: v("opens_default"), DefaultsZone: v("defaults_zone"),
		TicketPrices: utils.CopyString(c.FormValue("ticket_prices")), PriceCard: v("price_card")}
}

// roomForm reads a show's waiting room form as typed (the box unticked: off).
func roomForm(c *fiber.Ctx) views.WaitingRoomForm {
	return views.WaitingRoomForm{On: c.FormValue("waiting_room") == "on",
		Pace: utils.CopyString(strings.TrimSpace(c.FormValue("admit_per_minute")))}
}

// localShow turns the typed form into the service's input; problem says what is
// wrong in words (empty closing: the sale closes at the start).
func localShow(f views.ShowForm, hall *catalog.HallSummary, prices []catalog.ZonePrice) (catalog.LocalShow, string) {
	in := catalog.LocalShow{Date: f.Date, Start: f.Start, OpensDate: f.OpensDate, OpensTime: f.OpensTime,
		ClosesDate: f.ClosesDate, ClosesTime: f.ClosesTime, Prices: prices, WaitingRoom: f.WaitingRoom,
		SingleSeatRule: f.SingleSeatRule}
	if in.ClosesDate == "" {
		in.ClosesDate = f.Date
	}
	if in.ClosesTime == "" {
		in.ClosesTime = f.Start
	}
	var ok bool
	if in.MovieID, ok = parseID(f.MovieID); !ok {
		return in, "Choose a movie."
	}
	if hall == nil {
		return in, "Choose a hall."
	}
	in.HallID = hall.ID
	if p := dateTimeProblem(dateTimeField{label: "The date", value: f.Date}, dateTimeField{label: "The start time", value: f.Start, clock: true},
		dateTimeField{label: "The sale opening date", value: f.OpensDate}, dateTimeField{label: "The sale opening time", value: f.OpensTime, clock: true},
		dateTimeField{label: "The sale closing date", value: f.ClosesDate, optional: true},
		dateTimeField{label: "The sale closing time", value: f.ClosesTime, clock: true, optional: true}); p != "" {
		return in, p
	}
	if f.Limit != "" { // empty: the cinema's default purchase limit
		n, err := strconv.Atoi(f.Limit)
		if err != nil || n < 1 || n > catalog.MaxPurchaseLimit {
			return in, "The purchase limit must be a whole number from 1 to " + strconv.Itoa(catalog.MaxPurchaseLimit) + "."
		}
		in.PurchaseLimit = n
	}
	h, problem := selfRefundHours(f.SelfRefundH)
	if problem != "" {
		return in, problem
	}
	in.SelfRefundUntilH = h
	if f.Pace != "" { // empty: the default pace
		n, err := strconv.Atoi(f.Pace)
		if err != nil || n < 1 || n > catalog.MaxAdmitPerMinute {
			return in, paceProblem
		}
		in.AdmitPerMinute = n
	}
	if f.SingleSeatRule != "" && !catalog.ValidRule(f.SingleSeatRule) { // empty: off
		return in, views.SeatRuleProblem
	}
	if f.PriceCard != "" {
		if in.PriceCardID, ok = parseID(f.PriceCard); !ok {
			return in, "Choose a price card from the list."
		}
	}
	tp, problem := parseTicketPriceChanges(f.TicketPrices)
	if problem != "" {
		return in, problem
	}
	in.TicketPrices = tp
	var err error
	if in.Days, err = strconv.Atoi(f.Days); err != nil || in.Days < 1 || in.Days > catalog.MaxRepeatDays {
		return in, "Every day for must be a whole number of days from 1 to " + strconv.Itoa(catalog.MaxRepeatDays) + "."
	}
	return in, ""
}

// editForm reads a show's edit form as typed.
func editForm(c *fiber.Ctx) views.ShowEditForm {
	v := func(name string) string { return utils.CopyString(strings.TrimSpace(c.FormValue(name))) }
	return views.ShowEditForm{OpensDate: v("opens_date"), OpensTime: formClock(v("opens_time")), ClosesDate: v("closes_date"),
		ClosesTime: formClock(v("closes_time")), Limit: v("purchase_limit"), SelfRefundH: v("self_refund_until_h"),
		SingleSeatRule: v("single_seat_rule")}
}

// editDateTimeProblem names the first date or time field of a show's edit form that
// does not read (dateTimeProblem); "" when all do.
func editDateTimeProblem(f views.ShowEditForm) string {
	return dateTimeProblem(dateTimeField{label: "The sale opening date", value: f.OpensDate},
		dateTimeField{label: "The sale opening time", value: f.OpensTime, clock: true},
		dateTimeField{label: "The sale closing date", value: f.ClosesDate},
		dateTimeField{label: "The sale closing time", value: f.ClosesTime, clock: true})
}

// storedEditForm is the edit form of a show as stored.
func storedEditForm(s *services.Show, d *Deps) views.ShowEditForm {
	loc := d.showZone(s)
	f := views.ShowEditForm{OpensDate: views.LocalDate(s.SaleOpensAt, loc), OpensTime: views.LocalClock(s.SaleOpensAt, loc),
		ClosesDate: views.LocalDate(s.SaleClosesAt, loc), ClosesTime: views.LocalClock(s.SaleClosesAt, loc),
		Limit: strconv.Itoa(s.PurchaseLimit), SelfRefundH: storedSelfRefund(s), SingleSeatRule: storedRule(s), Prices: map[string]string{}}
	for _, z := range s.Zones {
		f.Prices[z.Code] = views.PriceInput(z.PriceMinor, s.Currency)
	}
	return f
}

// selfRefundHours reads the self-refund field: "" is none (buyers may not refund
// themselves), else a whole number of hours from 0 to catalog.MaxSelfRefundHours;
// problem says what is wrong in words.
func selfRefundHours(v string) (*int, string) {
	if v == "" {
		return nil, ""
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > catalog.MaxSelfRefundHours {
		return nil, "Cancel and refund until must be empty or a whole number of hours from 0 to " + strconv.Itoa(catalog.MaxSelfRefundHours) + "."
	}
	return &n, ""
}

// storedSelfRefund is a show's self-refund cut-off as the form shows it ("" for none).
func storedSelfRefund(s *services.Show) string {
	if s.SelfRefundUntilH == nil {
		return ""
	}
	return strconv.Itoa(*s.SelfRefundUntilH)
}

// storedRule is a show's single-seat rule as stored ("" reads as off).
func storedRule(s *services.Show) string {
	if s.SingleSeatRule == "" {
		return catalog.RuleOff
	}
	return s.SingleSeatRule
}
