package store

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"
)

// GetNamedLock takes MySQL's named lock name on conn, waiting up to wait (whole seconds); false when another connection kept it.
func GetNamedLock(ctx context.Context, conn *sqlx.Conn, name string, wait time.Duration) (bool, error) {
	var got *int
	if err := conn.GetContext(ctx, &got, "SELECT GET_LOCK(?, ?)", name, int(wait/time.Second)); err != nil {
		return false, err
	}
	return got != nil && *got == 1, nil
}

// ReleaseNamedLock releases the named lock name that conn holds; a failure is ignored, the lock ends with the connection.
func ReleaseNamedLock(ctx context.Context, conn *sqlx.Conn, name string) {
	conn.ExecContext(ctx, "SELECT RELEASE_LOCK(?)", name)
}
