package views

import (
	"net/url"
	"strconv"
	"time"

	"seatflow/services"
)

// VouchersURL is the console's voucher list; VoucherURL one voucher's page.
const VouchersURL = "/admin/vouchers"

// VoucherURL is the console page of the voucher with code.
func VoucherURL(code string) string { return VouchersURL + "/" + url.PathEscape(code) }

// VoucherBatchCSVURL is the CSV of the batch named name (the staff API, by the session).
func VoucherBatchCSVURL(name string) string {
	return "/api/v1/admin/vouchers/batch/" + url.PathEscape(name) + ".csv"
}

// VoucherForm is what the new voucher and new batch forms hold, as typed: the rule is
// Rule ("percent", "amount" or "price") with Value (a whole percent, or money in major
// units of the chosen cinema's currency: "5", "5.50"), the window dates and times in
// that cinema's zone, ShowIDs comma-separated ids and Types comma-separated ticket type
// codes.
type VoucherForm struct {
	Code, CinemaID, MaxUses, Rule, Value     string
	FromDate, FromTime, UntilDate, UntilTime string
	ShowIDs, Types, Prefix, Count, Batch     string
}

// VouchersPageProps are the props of the console's voucher list: the vouchers with
// their cinemas, the filters, the forms as typed and what went wrong or was done last.
type VouchersPageProps struct {
	Page
	Vouchers  []*services.Voucher
	Sites     []services.Cinema
	Cinemas   map[int64]services.Cinema
	CinemaID  string // the cinema filter ("": all)
	Batch     string // the batch filter ("": any)
	Form      VoucherForm
	BatchForm VoucherForm
	Now       time.Time
	Error     string
	Done      string
}

// VoucherPageProps are the props of one voucher's console page: the voucher, its
// cinema, its live orders and their totals.
type VoucherPageProps struct {
	Page
	Voucher *services.Voucher
	Cinema  services.Cinema
	Orders  []VoucherOrderRow
	Totals  VoucherTotals
	Now     time.Time
	Error   string
	Done    string
}

// VoucherOrderRow is a live order that used a voucher: its number, show (movie, start
// UTC), status, the seats the voucher discounted (labels), the saving on them and the
// order's total (minor units).
type VoucherOrderRow struct {
	OrderNo, Movie, Status, Seats, Currency string
	StartsAt                                time.Time
	DiscountMinor, TotalMinor               int64
}

// VoucherTotals sums a voucher's live orders: how many, the seats it discounted, the
// saving and the orders' totals (minor units).
type VoucherTotals struct {
	Orders, Seats, DiscountMinor, RevenueMinor int64
}

// VoucherRule says what a voucher takes off: "15 % off", "¥5.00 off", "¥25.00 a seat".
func VoucherRule(v *services.Voucher, currency string) string {
	switch {
	case v.PercentOff != nil:
		return strconv.FormatInt(*v.PercentOff, 10) + " % off"
	case v.AmountOffMinor != nil:
		return Money(*v.AmountOffMinor, currency) + " off"
	case v.PriceMinor != nil:
		return Money(*v.PriceMinor, currency) + " a seat"
	}
	return ""
}

// VoucherWindow says when a voucher may be used, in its cinema's zone.
func VoucherWindow(v *services.Voucher, loc *time.Location) string {
	switch {
	case v.ValidFrom != nil && v.ValidUntil != nil:
		return DayTime(*v.ValidFrom, loc) + " – " + DayTime(*v.ValidUntil, loc)
	case v.ValidFrom != nil:
		return "from " + DayTime(*v.ValidFrom, loc)
	case v.ValidUntil != nil:
		return "until " + DayTime(*v.ValidUntil, loc)
	}
	return "any time"
}

// VoucherState is "Active", "Ended", "Expired", "Not yet valid" or "Used up" at now.
func VoucherState(v *services.Voucher, now time.Time) string {
	switch {
	case !v.Active:
		return "Ended"
	case v.ValidUntil != nil && !now.Before(*v.ValidUntil):
		return "Expired"
	case v.ValidFrom != nil && now.Before(*v.ValidFrom):
		return "Not yet valid"
	case v.Uses >= v.MaxUses:
		return "Used up"
	}
	return "Active"
}

// voucherLimits says which shows and ticket types a voucher covers.
func voucherLimits(v *services.Voucher) string {
	s := "every show"
	if len(v.ShowIDs) > 0 {
		s = "shows "
		for i, id := range v.ShowIDs {
			if i > 0 {
				s += ", "
			}
			s += i64(id)
		}
	}
	if len(v.TicketTypes) > 0 {
		s += " · "
		for i, t := range v.TicketTypes {
			if i > 0 {
				s += ", "
			}
			s += t
		}
	} else {
		s += " · every ticket type"
	}
	return s
}
