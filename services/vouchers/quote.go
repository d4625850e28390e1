package vouchers

import (
	"context"
	"strconv"

	"seatflow/services"
	"seatflow/services/store"
)

// The reasons a code cannot be used (services.ErrVoucher*), the cause (errors.Is) of Quote's VOUCHER_INVALID,
// for pages that word them in the buyer's language.
var (
	ErrUnknown     = services.ErrVoucherUnknown
	ErrOtherCinema = services.ErrVoucherOtherCinema
	ErrInactive    = services.ErrVoucherInactive
	ErrNotYetValid = services.ErrVoucherNotYetValid
	ErrExpired     = services.ErrVoucherExpired
	ErrCoversNone  = services.ErrVoucherCoversNone
	ErrTooFewUses  = services.ErrVoucherTooFewUses
)

// QuoteSeat is a seat a buyer is about to book: its id and label, the ticket type asked
// for and its list price (minor units).
type QuoteSeat struct {
	SeatID     int64
	Label      string
	Type       string
	ListMinor  int64
	PriceMinor int64 // set by Quote: the price with the voucher
	Covered    bool  // set by Quote: the voucher discounts this seat
}

// Quote is what a voucher saves on some seats of a show before booking: each seat's
// price with it, the saving and the total (minor units of the show's currency).
type Quote struct {
	Code          string
	Seats         []QuoteSeat
	DiscountMinor int64
	TotalMinor    int64
}

// Quote prices seats of show with the voucher code as an order would at this moment,
// reading its uses from MySQL (a preview: the order itself decides). Errors:
// VOUCHER_INVALID (unknown, another cinema's, inactive, not yet valid, expired, covering
// none of the seats, fewer uses left than seats it covers; the message says which),
// UNAVAILABLE.
func (s *Vouchers) Quote(ctx context.Context, code string, show *services.Show, seats []QuoteSeat) (*Quote, error) {
	c, ok := services.CanonicalVoucherCode(code)
	if !ok {
		return nil, voucherInvalid(ErrUnknown, "%s is not a voucher code", strconv.Quote(code))
	}
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	v, err := store.VoucherByCode(qctx, s.db, c)
	if store.IsNoRows(err) {
		return nil, voucherInvalid(ErrUnknown, "voucher %s is unknown", c)
	}
	if err == nil && v.CinemaID != show.CinemaID {
		return nil, voucherInvalid(ErrOtherCinema, "voucher %s is not valid at this cinema", c) // as the order says
	}
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	now := s.clock.Now()
	switch {
	case !v.Active:
		return nil, voucherInvalid(ErrInactive, "voucher %s is no longer active", c)
	case v.ValidFrom != nil && now.Before(*v.ValidFrom):
		return nil, voucherInvalid(ErrNotYetValid, "voucher %s is not valid yet", c)
	case v.ValidUntil != nil && !now.Before(*v.ValidUntil):
		return nil, voucherInvalid(ErrExpired, "voucher %s has expired", c)
	}
	q := &Quote{Code: c, Seats: make([]QuoteSeat, len(seats))}
	covered := int64(0)
	for i, st := range seats {
		st.PriceMinor = st.ListMinor
		if st.Covered = v.Covers(show.ID, st.Type); st.Covered {
			st.PriceMinor = v.Price(st.ListMinor)
			covered++
		}
		q.Seats[i] = st
		q.DiscountMinor += st.ListMinor - st.PriceMinor
		q.TotalMinor += st.PriceMinor
	}
	if covered == 0 {
		return nil, voucherInvalid(ErrCoversNone, "voucher %s covers none of these seats", c)
	}
	if left := v.MaxUses - v.Uses; left < covered {
		return nil, voucherInvalid(ErrTooFewUses, "voucher %s has %d uses left, fewer than the %d seats it covers", c, max(left, 0), covered)
	}
	return q, nil
}

// voucherInvalid is VOUCHER_INVALID with the message format says, caused by reason.
func voucherInvalid(reason error, format string, a ...any) error {
	return services.VoucherInvalid(reason, format, a...)
}
