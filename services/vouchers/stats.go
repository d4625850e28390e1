package vouchers

import (
	"context"

	"seatflow/services"
	"seatflow/services/store"
)

// MaxStatsOrders is the most orders Stats lists (its totals count every order).
const MaxStatsOrders = 500

// Stats is a voucher with its live orders (newest first, at most MaxStatsOrders) and
// their totals: the seats it discounted, the saving and the orders' totals (revenue),
// minor units of the cinema's currency.
type Stats struct {
	Voucher *services.Voucher
	Cinema  services.Cinema
	Orders  []*store.VoucherOrder
	Totals  store.VoucherTotals
}

// Stats returns the voucher with code and its orders. Errors: NOT_FOUND, FORBIDDEN,
// UNAVAILABLE.
func (s *Vouchers) Stats(ctx context.Context, code string) (*Stats, error) {
	v, err := s.ByCode(ctx, code)
	if err != nil {
		return nil, err
	}
	cinema, err := s.catalog.Cinema(ctx, v.CinemaID)
	if err != nil {
		return nil, err
	}
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	out := &Stats{Voucher: v, Cinema: cinema}
	if out.Orders, err = store.VoucherOrders(qctx, s.db, v.ID, MaxStatsOrders); err != nil {
		return nil, store.Unavailable("the database", err)
	}
	if out.Totals, err = store.VoucherTotalsOf(qctx, s.db, v.ID); err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return out, nil
}
