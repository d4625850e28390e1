package store

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// OrderEndFact is what decides why order ID ended besides its own columns: its show is
// cancelled, one of its payments was refunded, and it is a waiting-list offer.
type OrderEndFact struct {
	ID              int64 `db:"id"`
	ShowCancelled   bool  `db:"show_cancelled"`
	PaymentRefunded bool  `db:"payment_refunded"`
	Offer           bool  `db:"offer"`
}

// OrderEndFacts returns the end facts of the orders ids (not empty) in one query.
func OrderEndFacts(ctx context.Context, q Querier, ids []int64) ([]OrderEndFact, error) {
	query, args, err := sqlx.In(`SELECT o.id, sh.status = 'cancelled' AS show_cancelled,
		EXISTS (SELECT 1 FROM payments p WHERE p.order_id = o.id AND p.status = 'refunded') AS payment_refunded,
		EXISTS (SELECT 1 FROM waitlist_entries w WHERE w.show_id = o.show_id AND w.user_id = o.user_id AND w.order_no = o.order_no) AS offer
		FROM orders o JOIN shows sh ON sh.id = o.show_id WHERE o.id IN (?)`, ids)
	if err != nil {
		return nil, err
	}
	var rows []OrderEndFact
	err = q.SelectContext(ctx, &rows, q.Rebind(query), args...)
	return rows, err
}
