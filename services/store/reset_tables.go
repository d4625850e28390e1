package store

import (
	"context"
	"slices"
	"strings"

	"github.com/jmoiron/sqlx"
)

// ResetTables empties every table of db's database except goose_db_version, so a test
// starts from the migrated schema with no rows and every AUTO_INCREMENT at 1. TRUNCATE
// recreates a table (a few ms each, most of a test's set-up), so only the tables written
// since the last reset are truncated: those with a row, or whose next id moved on. For
// test databases only: the product never calls it. It reads information_schema.tables
// AUTO_INCREMENT, live on MariaDB (MySQL 8 caches it: set information_schema_stats_expiry
// to 0 there). Errors: the database's.
func ResetTables(ctx context.Context, db *sqlx.DB) error {
	var all []struct {
		Name string `db:"table_name"`
		Next *int64 `db:"auto_increment"`
	}
	if err := db.SelectContext(ctx, &all, `SELECT table_name, auto_increment FROM information_schema.tables
		WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE' AND table_name <> 'goose_db_version'`); err != nil {
		return err
	}
	if len(all) == 0 {
		return nil
	}
	probe := make([]string, len(all))
	for i, tb := range all {
		probe[i] = "(SELECT '" + tb.Name + "' FROM `" + tb.Name + "` LIMIT 1)"
	}
	var written []string
	if err := db.SelectContext(ctx, &written, strings.Join(probe, " UNION ALL ")); err != nil {
		return err
	}
	for _, tb := range all {
		if tb.Next != nil && *tb.Next > 1 && !slices.Contains(written, tb.Name) {
			written = append(written, tb.Name)
		}
	}
	conn, err := db.Connx(ctx) // FOREIGN_KEY_CHECKS is per session: one connection for all
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET FOREIGN_KEY_CHECKS = 0"); err != nil {
		return err
	}
	for _, tb := range written {
		if _, err := conn.ExecContext(ctx, "TRUNCATE TABLE `"+tb+"`"); err != nil {
			return err
		}
	}
	_, err = conn.ExecContext(ctx, "SET FOREIGN_KEY_CHECKS = 1")
	return err
}
