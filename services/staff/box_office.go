package staff

import (
	"context"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/orders"
	"seatflow/services/store"
)

// BoxOffice sells at the counter (orders.Orders.SellAtCounter, audited as
// order.box_office_sale) and reads a counter sale's receipt.
type BoxOffice struct {
	db     *sqlx.DB
	orders *orders.Orders
	audit  *audit.Audit
}

// NewBoxOffice wires the box office.
func NewBoxOffice(db *sqlx.DB, o *orders.Orders, a *audit.Audit) *BoxOffice {
	return &BoxOffice{db: db, orders: o, audit: a}
}

// Sell is orders.Orders.SellAtCounter with the box office's audit log; the show's
// cinema must be in ctx's scope (FORBIDDEN otherwise, invariant 18). Errors: those of
// SellAtCounter, FORBIDDEN.
func (b *BoxOffice) Sell(ctx context.Context, s orders.CounterSale) (*services.Order, *orders.CounterReceipt, error) {
	show, err := b.orders.Catalog().CachedShow(ctx, s.ShowID)
	if err != nil {
		return nil, nil, err
	}
	if err := services.CinemaScopeOf(ctx).Check(show.CinemaID); err != nil {
		return nil, nil, err
	}
	return b.orders.SellAtCounter(ctx, b.audit, s)
}

// Quote prices s as Sell would, holding nothing (orders.Orders.QuoteCounter), for a
// show of ctx's scope. Errors: those of QuoteCounter, FORBIDDEN.
func (b *BoxOffice) Quote(ctx context.Context, s orders.CounterSale) (*services.Order, error) {
	show, err := b.orders.Catalog().CachedShow(ctx, s.ShowID)
	if err != nil {
		return nil, err
	}
	if err := services.CinemaScopeOf(ctx).Check(show.CinemaID); err != nil {
		return nil, err
	}
	return b.orders.QuoteCounter(ctx, s)
}

// Receipt returns the counter sale record of order orderID, nil for an online order.
// Errors: UNAVAILABLE.
func (b *BoxOffice) Receipt(ctx context.Context, orderID int64) (*orders.CounterReceipt, error) {
	r, err := store.BoxOfficeSaleOf(ctx, b.db, orderID)
	if store.IsNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return r, nil
}
