package store

import (
	"context"
	"database/sql"
)

// LoadTestRecreateDatabase drops the database name when it exists and creates it empty (utf8mb4); q must name no database.
func LoadTestRecreateDatabase(ctx context.Context, q Querier, name string) error {
	for _, stmt := range []string{"DROP DATABASE IF EXISTS `" + name + "`", "CREATE DATABASE `" + name + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"} {
		if _, err := q.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}

// LoadTestServerFiles returns the MariaDB server's @@pid_file and @@datadir (either may be NULL).
func LoadTestServerFiles(ctx context.Context, q Querier) (pidFile, datadir sql.NullString, err error) {
	err = q.QueryRowxContext(ctx, "SELECT @@pid_file, @@datadir").Scan(&pidFile, &datadir)
	return pidFile, datadir, err
}
