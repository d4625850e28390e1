package orders

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"time"

	"seatflow/services"
	"seatflow/services/store"
)

// VoucherCacheTTL is how long a process keeps a voucher code as it read it (or that the
// code is unknown): an order with a voucher costs no MySQL read within it. The hold's
// cap and the commit's guarded update (persistBatch) decide the uses, never this copy.
const VoucherCacheTTL = time.Second

// cachedVoucher is a code as the cache holds it: the voucher (nil: no such code) and its
// live uses per show (show id -> seats) when it was read.
type cachedVoucher struct {
	v    *services.Voucher
	uses map[int64]int64
}

// loadVoucher reads a canonical code's voucher and its live uses per show (two
// statements; an unknown code one). Errors: UNAVAILABLE.
func (o *Orders) loadVoucher(ctx context.Context, code string) (cachedVoucher, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	v, err := store.VoucherByCode(ctx, o.db, code)
	if errors.Is(err, sql.ErrNoRows) {
		return cachedVoucher{}, nil
	}
	if err != nil {
		return cachedVoucher{}, store.Unavailable("the database", err)
	}
	uses, err := store.VoucherShowUses(ctx, o.db, v.ID)
	if err != nil {
		return cachedVoucher{}, store.Unavailable("the database", err)
	}
	return cachedVoucher{v: v, uses: uses}, nil
}

// useVoucher reads the request's voucher from the cache and keeps it on c with its cap
// in this show: max_uses less its live uses in other shows (the hold refuses past it).
// A code an order cannot use is kept as c.voucherErr, answered by hold after the rate
// limits, so guessing codes costs the guesser's tokens. Errors: UNAVAILABLE.
func (o *Orders) useVoucher(ctx context.Context, c *creation) error {
	if c.req.Voucher == "" {
		return nil
	}
	code, ok := services.CanonicalVoucherCode(c.req.Voucher)
	if !ok {
		c.voucherErr = services.VoucherInvalid(services.ErrVoucherUnknown, "voucher %q is not a voucher code", c.req.Voucher)
		return nil
	}
	e, err := o.vouchers.Get(ctx, code)
	if err != nil {
		return err
	}
	v := e.v
	switch {
	case v == nil:
		c.voucherErr = services.VoucherInvalid(services.ErrVoucherUnknown, "voucher %s is unknown", code)
	case v.CinemaID != c.show.CinemaID:
		c.voucherErr = services.VoucherInvalid(services.ErrVoucherOtherCinema, "voucher %s is not valid at this cinema", code)
	case !v.Active:
		c.voucherErr = services.VoucherInvalid(services.ErrVoucherInactive, "voucher %s is no longer active", code)
	case v.ValidFrom != nil && c.now.Before(*v.ValidFrom):
		c.voucherErr = services.VoucherInvalid(services.ErrVoucherNotYetValid, "voucher %s is not valid yet", code)
	case v.ValidUntil != nil && !c.now.Before(*v.ValidUntil):
		c.voucherErr = services.VoucherInvalid(services.ErrVoucherExpired, "voucher %s has expired", code)
	default:
		c.voucher = v
		c.voucherCap = v.MaxUses
		for show, n := range e.uses {
			if show != c.show.ID {
				c.voucherCap -= n
			}
		}
	}
	return nil
}

// applyVoucher prices the seats of order that v covers (services.Voucher.Price of their
// price), sets each its discount and the order its voucher and saving; TotalMinor is
// lowered by the saving. It returns how many seats it covers. Errors: VOUCHER_INVALID
// when it covers none.
func applyVoucher(show *services.Show, order *services.Order, v *services.Voucher) (int64, error) {
	order.VoucherID, order.Voucher, order.DiscountMinor = nil, "", 0
	if v == nil {
		return 0, nil
	}
	var covered int64
	for i := range order.Seats {
		s := &order.Seats[i]
		if !v.Covers(show.ID, s.TicketType) {
			continue
		}
		d := s.PriceMinor - v.Price(s.PriceMinor)
		s.PriceMinor -= d
		s.DiscountMinor = &d
		order.DiscountMinor += d
		covered++
	}
	if covered == 0 {
		return 0, services.VoucherInvalid(services.ErrVoucherCoversNone, "voucher %s covers none of these seats", v.Code)
	}
	order.TotalMinor -= order.DiscountMinor
	order.VoucherID, order.Voucher = &v.ID, v.Code
	return covered, nil
}

// voucherSeats returns how many of the order's seats its voucher covers.
func voucherSeats(order *services.Order) int64 {
	var n int64
	for _, s := range order.Seats {
		if s.DiscountMinor != nil {
			n++
		}
	}
	return n
}

// tooFewUses is the VOUCHER_INVALID of a hold refused by the voucher's cap.
func tooFewUses(order *services.Order, left int64) error {
	if left < 0 {
		left = 0
	}
	return services.VoucherInvalid(services.ErrVoucherTooFewUses, "voucher %s has too few uses left: %d left, %d seats to cover", order.Voucher, left, voucherSeats(order))
}

// takeVoucherUses adds the seats each voucher of ps covers to its uses, in tx, with one
// guarded UPDATE per voucher (store.AddVoucherUses, in id order: no two batches wait on
// each other's vouchers). A voucher that refuses (inactive, or past max_uses: another
// instance or show took the uses, or Redis lost them) is read under its row lock, its
// orders admitted in queue order while they fit and the rest refused VOUCHER_INVALID:
// the caller reruns the batch without them (errRetryWithout). Errors: the database's.
func takeVoucherUses(ctx context.Context, tx store.Querier, ps []*pendingCommit) (map[*pendingCommit]error, error) {
	per := map[int64]int64{}
	var ids []int64
	for _, p := range ps {
		if id := p.order.VoucherID; id != nil {
			if _, seen := per[*id]; !seen {
				ids = append(ids, *id)
			}
			per[*id] += voucherSeats(p.order)
		}
	}
	slices.Sort(ids)
	var out map[*pendingCommit]error
	for _, id := range ids {
		ok, err := store.AddVoucherUses(ctx, tx, id, per[id])
		if err != nil || ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		left, active, err := store.LockVoucherUsesLeft(ctx, tx, id)
		if err != nil {
			return nil, err
		}
		refusedHere := false
		for _, p := range ps {
			if p.order.VoucherID == nil || *p.order.VoucherID != id {
				continue
			}
			n := voucherSeats(p.order)
			if active && n <= left {
				left -= n
				continue
			}
			if out == nil {
				out = map[*pendingCommit]error{}
			}
			refusedHere = true
			if !active {
				out[p] = services.VoucherInvalid(services.ErrVoucherInactive, "voucher %s is no longer active", p.order.Voucher)
			} else {
				out[p] = tooFewUses(p.order, left)
			}
		}
		if !refusedHere {
			// the uses came back between the update and the read: every order fits now
			if ok, err := store.AddVoucherUses(ctx, tx, id, per[id]); err != nil || !ok {
				return nil, errors.Join(err, errVoucherMoved)
			}
		}
	}
	return out, nil
}

// errVoucherMoved fails a batch whose voucher's uses moved under its row lock (never,
// but for a staff edit of max_uses between two statements): the batch's orders fail.
var errVoucherMoved = errors.New("voucher uses moved during the batch")

// voucherUsesOf are the voucher_uses rows of the orders of ps (their ids set).
func voucherUsesOf(ps []*pendingCommit) []store.VoucherUse {
	var out []store.VoucherUse
	for _, p := range ps {
		o := p.order
		if o.VoucherID == nil {
			continue
		}
		for _, s := range o.Seats {
			if s.DiscountMinor != nil {
				out = append(out, store.VoucherUse{OrderID: o.ID, SeatID: s.SeatID, VoucherID: *o.VoucherID, ShowID: o.ShowID, DiscountMinor: *s.DiscountMinor})
			}
		}
	}
	return out
}
