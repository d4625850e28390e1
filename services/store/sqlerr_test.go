package store_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
	"seatflow/services/store"
)

// A database that cannot be reached is 503 UNAVAILABLE (try again); a statement the
// server refuses or a row that does not scan is 500 INTERNAL (trying again fails the
// same way).
func TestSQLErrorIsUnavailableOnlyWhenTheConnectionFails(t *testing.T) {
	db := testenv.NewTestDB(t)
	ctx := context.Background()
	from := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	to := from.Add(24 * time.Hour)

	closed, err := store.OpenDB("root@tcp(127.0.0.1:3306)/" + testenv.TestDBName)
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	refused, err := store.OpenDB("root@tcp(127.0.0.1:1)/" + testenv.TestDBName + "?timeout=2s")
	if err != nil {
		t.Fatal(err)
	}
	defer refused.Close()
	expired, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel()
	var n int
	scanErr := db.GetContext(ctx, &n, "SELECT 'not a number'")
	if scanErr == nil {
		t.Fatal("scanning text into an int should fail")
	}

	cases := []struct {
		name string
		err  func() error
		want string
	}{
		{"closed connection pool", func() error { _, err := catalog.NewCatalog(closed).ShowsBetween(ctx, from, to); return err }, services.CodeUnavailable},
		{"connection refused", func() error { _, err := catalog.NewCatalog(refused).ShowsBetween(ctx, from, to); return err }, services.CodeUnavailable},
		{"deadline passed", func() error { _, err := catalog.NewCatalog(db).ShowsBetween(expired, from, to); return err }, services.CodeUnavailable},
		{"year 0 time argument (driver refuses it)", func() error {
			_, err := catalog.NewCatalog(db).ShowsBetween(ctx, time.Date(0, 12, 31, 16, 0, 0, 0, time.UTC), time.Date(1, 1, 1, 16, 0, 0, 0, time.UTC))
			return err
		}, services.CodeInternal},
		{"unknown table (server error 1146)", func() error {
			_, err := db.ExecContext(ctx, "UPDATE no_such_table SET x = 1")
			return store.Unavailable("the database", err)
		}, services.CodeInternal},
		{"scan error", func() error { return store.Unavailable("the database", scanErr) }, services.CodeInternal},
		{"driver.ErrBadConn", func() error { return store.Unavailable("the database", fmt.Errorf("query: %w", driver.ErrBadConn)) }, services.CodeUnavailable},
		{"mysql.ErrInvalidConn", func() error { return store.Unavailable("the database", mysql.ErrInvalidConn) }, services.CodeUnavailable},
		{"i/o timeout", func() error {
			return store.Unavailable("the database", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded})
		}, services.CodeUnavailable},
		{"ECONNREFUSED", func() error { return store.Unavailable("the database", syscall.ECONNREFUSED) }, services.CodeUnavailable},
		{"deadlock 1213", func() error { return store.Unavailable("the database", &mysql.MySQLError{Number: 1213}) }, services.CodeUnavailable},
		{"too many connections 1040", func() error { return store.Unavailable("the database", &mysql.MySQLError{Number: 1040}) }, services.CodeUnavailable},
		{"syntax error 1064", func() error { return store.Unavailable("the database", &mysql.MySQLError{Number: 1064}) }, services.CodeInternal},
		{"unknown cause stays 503", func() error { return store.Unavailable("the seat cache", errors.New("redis: connection pool timeout")) }, services.CodeUnavailable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.err()
			if got := services.ErrorCode(err); got != c.want {
				t.Fatalf("code %q, want %q (err: %v)", got, c.want, err)
			}
		})
	}
}

// A calendar date MySQL's DATETIME cannot hold has no shows: an empty list, no error.
func TestShowsOnDateOutsideTheStoredRangeIsEmpty(t *testing.T) {
	e := testenv.NewTestEnv(t, orders.Limits{})
	for _, date := range []string{"0001-01-01", "0000-01-01", "0999-12-31", "9999-12-31"} {
		t.Run(date, func(t *testing.T) {
			shows, err := e.Shows.OnDate(context.Background(), date, 0)
			if err != nil {
				t.Fatalf("OnDate(%s): %v", date, err)
			}
			if len(shows) != 0 {
				t.Fatalf("OnDate(%s) = %v, want an empty list", date, shows)
			}
		})
	}
}

// TestIsNoTable: a read of a table that does not exist is error 1146; other errors are not.
func TestIsNoTable(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"1146", &mysql.MySQLError{Number: 1146, Message: "Table 'seatflow.waitlist_entries' doesn't exist"}, true},
		{"1062", &mysql.MySQLError{Number: 1062, Message: "Duplicate entry"}, false},
		{"no rows", sql.ErrNoRows, false},
		{"nil", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := store.IsNoTable(c.err); got != c.want {
				t.Errorf("IsNoTable(%v) = %v, want %v", c.err, got, c.want)
			}
		})
	}
}
