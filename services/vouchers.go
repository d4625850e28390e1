package services

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The reasons a voucher code cannot be used: the cause (errors.Is) of an order's or a
// quote's VOUCHER_INVALID, for pages that word them in the buyer's language.
var (
	ErrVoucherUnknown     = errors.New("vouchers: unknown code")
	ErrVoucherOtherCinema = errors.New("vouchers: another cinema's code")
	ErrVoucherInactive    = errors.New("vouchers: ended")
	ErrVoucherNotYetValid = errors.New("vouchers: not valid yet")
	ErrVoucherExpired     = errors.New("vouchers: expired")
	ErrVoucherCoversNone  = errors.New("vouchers: covers none of the seats")
	ErrVoucherTooFewUses  = errors.New("vouchers: too few uses left")
)

// VoucherInvalid is VOUCHER_INVALID with the message format says, caused by reason (one
// of the ErrVoucher* above).
func VoucherInvalid(reason error, format string, a ...any) *Error {
	e := Errorf(CodeVoucherInvalid, format, a...)
	e.Err = reason
	return e
}

// Voucher is a promo code of one cinema (the vouchers table). Exactly one of PercentOff
// (1..100), AmountOffMinor and PriceMinor is set (minor units of the cinema's currency).
// One use is one seat the code discounted; Uses counts the seats of live orders (pending
// or paid) and never exceeds MaxUses. ShowIDs and TicketTypes limit the seats it covers
// (empty: every seat of the cinema's shows). ValidFrom/ValidUntil bound when an order may
// use it (nil: unbounded); times UTC.
type Voucher struct {
	ID             int64      `db:"id"`
	Code           string     `db:"code"`
	CinemaID       int64      `db:"cinema_id"`
	MaxUses        int64      `db:"max_uses"`
	Uses           int64      `db:"uses"`
	PercentOff     *int64     `db:"percent_off"`
	AmountOffMinor *int64     `db:"amount_off_minor"`
	PriceMinor     *int64     `db:"price_minor"`
	ValidFrom      *time.Time `db:"valid_from"`
	ValidUntil     *time.Time `db:"valid_until"`
	Active         bool       `db:"active"`
	Batch          string     `db:"batch"`
	CreatedAt      time.Time  `db:"created_at"`
	UpdatedAt      time.Time  `db:"updated_at"`
	ShowIDs        []int64    `db:"-"`
	TicketTypes    []string   `db:"-"`
}

var voucherCode = regexp.MustCompile(`^[A-Z0-9-]{4,32}$`)

// CanonicalVoucherCode returns code trimmed and upper-cased, and whether it is a voucher
// code (4..32 characters of A-Z, 0-9 and '-'): codes match without regard to case.
func CanonicalVoucherCode(code string) (string, bool) {
	c := strings.ToUpper(strings.TrimSpace(code))
	return c, voucherCode.MatchString(c)
}

// Covers reports whether the voucher discounts a seat of show showID sold as ticket type
// typ: its shows and ticket types (none named: all).
func (v *Voucher) Covers(showID int64, typ string) bool {
	return (len(v.ShowIDs) == 0 || slices.Contains(v.ShowIDs, showID)) &&
		(len(v.TicketTypes) == 0 || slices.Contains(v.TicketTypes, typ))
}

// Price returns what a covered seat of price price (minor units) costs with the voucher:
// price × (100 − PercentOff) / 100 rounded down to the minor unit (15 % off 4599 is
// 3909), price − AmountOffMinor but never below 0, or PriceMinor (never above price).
func (v *Voucher) Price(price int64) int64 {
	switch {
	case v.PercentOff != nil:
		return price * (100 - *v.PercentOff) / 100
	case v.AmountOffMinor != nil:
		return max(price-*v.AmountOffMinor, 0)
	case v.PriceMinor != nil:
		return min(*v.PriceMinor, price)
	}
	return price
}
