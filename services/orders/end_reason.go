package orders

import (
	"context"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/store"
)

// AttachEnds sets End (services.DecideEndReason) on the ended orders among orders,
// reading the facts it needs (the show's status, a refunded payment, a waiting-list
// offer) in one query; pending and paid orders get nil. Errors: UNAVAILABLE.
func (o *Orders) AttachEnds(ctx context.Context, orders []*services.Order) error {
	var ids []int64
	byID := map[int64]*services.Order{}
	for _, ord := range orders {
		ord.End = nil
		if ord.Status != services.OrderPending && ord.Status != services.OrderPaid {
			ids = append(ids, ord.ID)
			byID[ord.ID] = ord
		}
	}
	if len(ids) == 0 {
		return nil
	}
	q, args, err := sqlx.In(`SELECT o.id, sh.status = 'cancelled' AS show_cancelled,
		EXISTS (SELECT 1 FROM payments p WHERE p.order_id = o.id AND p.status = 'refunded') AS payment_refunded,
		EXISTS (SELECT 1 FROM waitlist_entries w WHERE w.show_id = o.show_id AND w.user_id = o.user_id AND w.order_no = o.order_no) AS offer
		FROM orders o JOIN shows sh ON sh.id = o.show_id WHERE o.id IN (?)`, ids)
	if err != nil {
		return err
	}
	var rows []struct {
		ID              int64 `db:"id"`
		ShowCancelled   bool  `db:"show_cancelled"`
		PaymentRefunded bool  `db:"payment_refunded"`
		Offer           bool  `db:"offer"`
	}
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	if err := o.db.SelectContext(ctx, &rows, o.db.Rebind(q), args...); err != nil {
		return store.Unavailable("the database", err)
	}
	for _, r := range rows {
		byID[r.ID].End = services.DecideEndReason(byID[r.ID], services.EndFacts{
			ShowCancelled: r.ShowCancelled, PaymentRefunded: r.PaymentRefunded, Offer: r.Offer})
	}
	return nil
}
