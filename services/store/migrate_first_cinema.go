package store

import (
	"context"
	"database/sql"

	"github.com/pressly/goose/v3"

	"seatflow/services"
)

// firstCinemaVersion is the version of the Go migration firstCinemaMigration returns
// (between migrations/00030_cinemas.sql and 00032_halls_cinema_required.sql).
const firstCinemaVersion = 31

// firstCinemaMigration returns migration 31: it makes the install's first cinema from its
// settings (name, IANA time zone, ISO 4217 currency: SEATFLOW_CINEMA_NAME,
// SEATFLOW_TIME_ZONE, SEATFLOW_CURRENCY) when there is no cinema yet, and puts every hall
// without a cinema in it, so an install of one cinema upgrades with every hall, show,
// order and price as it was. The settings are only the first cinema's defaults.
func firstCinemaMigration(c services.Cinema) *goose.Migration {
	up := func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, insertFirstCinemaSQL, c.Name, c.TimeZone, c.Currency); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "UPDATE halls SET cinema_id = (SELECT MIN(id) FROM cinemas) WHERE cinema_id IS NULL")
		return err
	}
	// going down keeps the cinema: migration 30's down drops the table
	down := func(context.Context, *sql.Tx) error { return nil }
	return goose.NewGoMigration(firstCinemaVersion, &goose.GoFunc{RunTx: up}, &goose.GoFunc{RunTx: down})
}
