package store

import (
	"context"
	"time"

	"seatflow/services"
)

// ShowTicketPriceRow is a show's price of a ticket type in a zone, with the show's id.
type ShowTicketPriceRow struct {
	ShowID int64 `db:"show_id"`
	services.TicketPrice
}

// ShowTicketPrices lists a show's prices of ticket types other than adult, by type and zone id.
func ShowTicketPrices(ctx context.Context, q Querier, showID int64) ([]services.TicketPrice, error) {
	var ps []services.TicketPrice
	err := q.SelectContext(ctx, &ps, `SELECT p.type_code, z.code AS zone_code, p.price_minor
		FROM show_ticket_prices p JOIN zones z ON z.id = p.zone_id WHERE p.show_id = ? ORDER BY p.type_code, z.id`, showID)
	return ps, err
}

// ShowsTicketPrices lists the ticket type prices of the shows ids (at least one), by show, type and zone id.
func ShowsTicketPrices(ctx context.Context, q Querier, ids []int64) ([]ShowTicketPriceRow, error) {
	var rows []ShowTicketPriceRow
	err := catalogSelectIn(ctx, q, &rows, `SELECT p.show_id, p.type_code, z.code AS zone_code, p.price_minor
		FROM show_ticket_prices p JOIN zones z ON z.id = p.zone_id WHERE p.show_id IN (?) ORDER BY p.show_id, p.type_code, z.id`, ids)
	return rows, err
}

// SetShowTicketPrice prices a ticket type in a zone of a show (minor units), replacing its price.
func SetShowTicketPrice(ctx context.Context, q Querier, showID int64, typ string, zoneID, priceMinor int64) error {
	_, err := q.ExecContext(ctx, `INSERT INTO show_ticket_prices (show_id, type_code, zone_id, price_minor) VALUES (?, ?, ?, ?)
		ON DUPLICATE KEY UPDATE price_minor = VALUES(price_minor)`, showID, typ, zoneID, priceMinor)
	return err
}

// DeleteShowTicketPrice stops a show selling a ticket type in a zone.
func DeleteShowTicketPrice(ctx context.Context, q Querier, showID int64, typ string, zoneID int64) error {
	_, err := q.ExecContext(ctx, "DELETE FROM show_ticket_prices WHERE show_id = ? AND type_code = ? AND zone_id = ?", showID, typ, zoneID)
	return err
}

// DeleteShowTicketPrices stops a show selling every ticket type but adult.
func DeleteShowTicketPrices(ctx context.Context, q Querier, showID int64) error {
	_, err := q.ExecContext(ctx, "DELETE FROM show_ticket_prices WHERE show_id = ?", showID)
	return err
}

// DeleteUnusedZoneTicketPrices deletes, for a hall's shows starting after now and not of status except, the ticket type prices of zones no seat of the hall is in.
func DeleteUnusedZoneTicketPrices(ctx context.Context, q Querier, hallID int64, now time.Time, except string) error {
	_, err := q.ExecContext(ctx, `DELETE p FROM show_ticket_prices p JOIN shows sh ON sh.id = p.show_id
		WHERE sh.hall_id = ? AND sh.starts_at > ? AND sh.status <> ?
		AND NOT EXISTS (SELECT 1 FROM seats s WHERE s.zone_id = p.zone_id AND s.hall_id = ?)`, hallID, now, except, hallID)
	return err
}
