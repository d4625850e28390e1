package orders

import (
	"context"

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
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	rows, err := store.OrderEndFacts(ctx, o.db, ids)
	if err != nil {
		return store.Unavailable("the database", err)
	}
	for _, r := range rows {
		byID[r.ID].End = services.DecideEndReason(byID[r.ID], services.EndFacts{
			ShowCancelled: r.ShowCancelled, PaymentRefunded: r.PaymentRefunded, Offer: r.Offer})
	}
	return nil
}
