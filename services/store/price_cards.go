package store

import (
	"context"
	"time"

	"seatflow/services"
)

// PriceCardNameIndex is the unique key of a cinema's price card names (a name in use is a CONFLICT).
const PriceCardNameIndex = "uq_price_cards_cinema_name"

const priceCardColumns = "id, cinema_id, name, created_at, updated_at"

// PriceCards lists the price cards of a cinema (cinemaID 0: of every cinema), by cinema and name, without their prices.
func PriceCards(ctx context.Context, q Querier, cinemaID int64) ([]*services.PriceCard, error) {
	var cards []*services.PriceCard
	err := q.SelectContext(ctx, &cards, "SELECT "+priceCardColumns+" FROM price_cards WHERE ? = 0 OR cinema_id = ? ORDER BY cinema_id, name, id", cinemaID, cinemaID)
	return cards, err
}

// PriceCardByID reads one price card without its prices; sql.ErrNoRows when there is none.
func PriceCardByID(ctx context.Context, q Querier, id int64) (*services.PriceCard, error) {
	c := &services.PriceCard{}
	err := q.GetContext(ctx, c, "SELECT "+priceCardColumns+" FROM price_cards WHERE id = ?", id)
	return c, err
}

// InsertPriceCard creates a price card (times UTC) and returns its id; a name in use fails on PriceCardNameIndex.
func InsertPriceCard(ctx context.Context, q Querier, cinemaID int64, name string, at time.Time) (int64, error) {
	res, err := q.ExecContext(ctx, "INSERT INTO price_cards (cinema_id, name, created_at, updated_at) VALUES (?, ?, ?, ?)", cinemaID, name, at, at)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// UpdatePriceCard renames a price card and sets its updated_at (UTC); a name in use fails on PriceCardNameIndex.
func UpdatePriceCard(ctx context.Context, q Querier, id int64, name string, at time.Time) error {
	_, err := q.ExecContext(ctx, "UPDATE price_cards SET name = ?, updated_at = ? WHERE id = ?", name, at, id)
	return err
}
