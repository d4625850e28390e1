package store

import (
	"context"
	"time"

	"seatflow/services"
)

// ShowZone is a zone priced for a show.
type ShowZone struct {
	ShowID int64 `db:"show_id"`
	services.Zone
}

// ShowZoneCode is a zone code priced for a show.
type ShowZoneCode struct {
	ShowID int64  `db:"show_id"`
	Code   string `db:"code"`
}

// ShowPrices lists a show's priced zones, dearest first, then by zone id.
func ShowPrices(ctx context.Context, q Querier, showID int64) ([]services.Zone, error) {
	var zones []services.Zone
	err := q.SelectContext(ctx, &zones, `SELECT z.id, z.code, z.name, p.price_minor
		FROM show_prices p JOIN zones z ON z.id = p.zone_id WHERE p.show_id = ? ORDER BY p.price_minor DESC, z.id`, showID)
	return zones, err
}

// ShowPricesByZone lists a show's priced zones by zone id.
func ShowPricesByZone(ctx context.Context, q Querier, showID int64) ([]services.Zone, error) {
	var zones []services.Zone
	err := q.SelectContext(ctx, &zones, `SELECT z.id, z.code, z.name, p.price_minor
		FROM show_prices p JOIN zones z ON z.id = p.zone_id WHERE p.show_id = ? ORDER BY z.id`, showID)
	return zones, err
}

// ShowsPrices lists the priced zones of the shows ids, dearest first, then by zone id (ids must not be empty).
func ShowsPrices(ctx context.Context, q Querier, ids []int64) ([]ShowZone, error) {
	var rows []ShowZone
	err := catalogSelectIn(ctx, q, &rows, `SELECT p.show_id, z.id, z.code, z.name, p.price_minor
		FROM show_prices p JOIN zones z ON z.id = p.zone_id WHERE p.show_id IN (?) ORDER BY p.price_minor DESC, z.id`, ids)
	return rows, err
}

// ShowsPricedCodes lists the zone codes each of the shows ids has a price for (ids must not be empty).
func ShowsPricedCodes(ctx context.Context, q Querier, ids []int64) ([]ShowZoneCode, error) {
	var rows []ShowZoneCode
	err := catalogSelectIn(ctx, q, &rows, `SELECT p.show_id, z.code FROM show_prices p JOIN zones z ON z.id = p.zone_id WHERE p.show_id IN (?)`, ids)
	return rows, err
}

// InsertShowPrice prices a zone for a show (minor units).
func InsertShowPrice(ctx context.Context, q Querier, showID, zoneID, priceMinor int64) error {
	_, err := q.ExecContext(ctx, "INSERT INTO show_prices (show_id, zone_id, price_minor) VALUES (?, ?, ?)", showID, zoneID, priceMinor)
	return err
}

// SetShowPrice prices a zone for a show (minor units), replacing its price.
func SetShowPrice(ctx context.Context, q Querier, showID, zoneID, priceMinor int64) error {
	_, err := q.ExecContext(ctx, `INSERT INTO show_prices (show_id, zone_id, price_minor) VALUES (?, ?, ?)
					ON DUPLICATE KEY UPDATE price_minor = VALUES(price_minor)`, showID, zoneID, priceMinor)
	return err
}

// unusedZonePrices are the prices, for a hall's shows starting after a time and not of a status, of zones no seat of the hall is in.
const unusedZonePrices = `FROM show_prices p JOIN shows sh ON sh.id = p.show_id
		WHERE sh.hall_id = ? AND sh.starts_at > ? AND sh.status <> ?
		AND NOT EXISTS (SELECT 1 FROM seats s WHERE s.zone_id = p.zone_id AND s.hall_id = ?)`

// ShowsPricingUnusedZones lists the hall's shows starting after now, not of status except, that price a zone no seat of the hall is in.
func ShowsPricingUnusedZones(ctx context.Context, q Querier, hallID int64, now time.Time, except string) ([]int64, error) {
	var shows []int64
	err := q.SelectContext(ctx, &shows, "SELECT DISTINCT p.show_id "+unusedZonePrices, hallID, now, except, hallID)
	return shows, err
}

// DeleteUnusedZonePrices deletes the prices ShowsPricingUnusedZones finds.
func DeleteUnusedZonePrices(ctx context.Context, q Querier, hallID int64, now time.Time, except string) error {
	_, err := q.ExecContext(ctx, "DELETE p "+unusedZonePrices, hallID, now, except, hallID)
	return err
}
