package store

import (
	"context"

	"seatflow/services"
)

// ZoneCode is a zone's id and code.
type ZoneCode struct {
	ID   int64  `db:"id"`
	Code string `db:"code"`
}

// HallZoneCodes lists the id and code of every zone of a hall.
func HallZoneCodes(ctx context.Context, q Querier, hallID int64) ([]ZoneCode, error) {
	var rows []ZoneCode
	err := q.SelectContext(ctx, &rows, "SELECT id, code FROM zones WHERE hall_id = ?", hallID)
	return rows, err
}

// HallSeatZones lists the zones of a hall that at least one of its seats is in, by id (PriceMinor 0).
func HallSeatZones(ctx context.Context, q Querier, hallID int64) ([]services.Zone, error) {
	var zones []services.Zone
	err := q.SelectContext(ctx, &zones, `SELECT id, code, name, 0 AS price_minor FROM zones
		WHERE hall_id = ? AND id IN (SELECT zone_id FROM seats WHERE hall_id = ?) ORDER BY id`, hallID, hallID)
	return zones, err
}

// InsertZone inserts a zone of a hall and returns its id.
func InsertZone(ctx context.Context, q Querier, hallID int64, code, name string) (int64, error) {
	res, err := q.ExecContext(ctx, "INSERT INTO zones (hall_id, code, name) VALUES (?, ?, ?)", hallID, code, name)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// EnsureZone inserts a zone of a hall unless the hall has one with that code.
func EnsureZone(ctx context.Context, q Querier, hallID int64, code, name string) error {
	_, err := q.ExecContext(ctx, "INSERT IGNORE INTO zones (hall_id, code, name) VALUES (?, ?, ?)", hallID, code, name)
	return err
}

// DeleteUnusedZones deletes the zones of a hall that no seat, no show price and no ticket type price names.
func DeleteUnusedZones(ctx context.Context, q Querier, hallID int64) error {
	_, err := q.ExecContext(ctx, `DELETE FROM zones WHERE hall_id = ?
		AND id NOT IN (SELECT zone_id FROM seats) AND id NOT IN (SELECT zone_id FROM show_prices)
		AND id NOT IN (SELECT zone_id FROM show_ticket_prices)`, hallID)
	return err
}
