package store

import (
	"context"

	"seatflow/services"
)

// PriceCardPriceRow is one ticket type × zone price of a price card, with the card's id.
type PriceCardPriceRow struct {
	CardID int64 `db:"card_id"`
	services.TicketPrice
}

// PriceCardPrices lists the prices of the cards ids (at least one), by card, adult first, then type and zone code.
func PriceCardPrices(ctx context.Context, q Querier, ids []int64) ([]PriceCardPriceRow, error) {
	var rows []PriceCardPriceRow
	err := catalogSelectIn(ctx, q, &rows, `SELECT card_id, type_code, zone_code, price_minor FROM price_card_prices
		WHERE card_id IN (?) ORDER BY card_id, type_code <> 'adult', type_code, zone_code`, ids)
	return rows, err
}

// ReplacePriceCardPrices sets a card's prices to ps (minor units), dropping those it had.
func ReplacePriceCardPrices(ctx context.Context, q Querier, cardID int64, ps []services.TicketPrice) error {
	if _, err := q.ExecContext(ctx, "DELETE FROM price_card_prices WHERE card_id = ?", cardID); err != nil {
		return err
	}
	if len(ps) == 0 {
		return nil
	}
	args := make([]any, 0, 4*len(ps))
	for _, p := range ps {
		args = append(args, cardID, p.Type, p.Zone, p.PriceMinor)
	}
	_, err := q.ExecContext(ctx, "INSERT INTO price_card_prices (card_id, type_code, zone_code, price_minor) VALUES "+placeholderRows(len(ps), 4), args...)
	return err
}
