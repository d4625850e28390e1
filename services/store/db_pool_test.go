package store_test

import (
	"context"
	"testing"

	"seatflow/services/internal/testenv"
	"seatflow/services/store"
)

// TestOpenDB_PoolAndOneRoundTripStatements: the pool is bounded (default 40, so three
// processes fit in MariaDB's default 151 connections; configurable), and a statement
// with arguments is interpolated on the client: the server sees no prepared statement.
func TestOpenDB_PoolAndOneRoundTripStatements(t *testing.T) {
	t.Run("pool sizes", func(t *testing.T) {
		for _, tc := range []struct {
			pool      []store.Pool
			open, idl int
		}{{nil, 40, 40}, {[]store.Pool{{MaxOpen: 12}}, 12, 12}, {[]store.Pool{{MaxOpen: 12, MaxIdle: 3}}, 12, 3}} {
			db, err := store.OpenDB("root@tcp(127.0.0.1:3306)/"+testenv.TestDBName, tc.pool...)
			if err != nil {
				t.Fatal(err)
			}
			if got := db.Stats().MaxOpenConnections; got != tc.open {
				t.Errorf("%v: max open %d, want %d", tc.pool, got, tc.open)
			}
			db.Close()
		}
	})
	t.Run("no server-side prepare", func(t *testing.T) {
		db := testenv.NewTestDB(t)
		ctx := context.Background()
		conn, err := db.Connx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		prepared := func() int {
			var name string
			var n int
			if err := conn.QueryRowxContext(ctx, "SHOW SESSION STATUS LIKE 'Com_stmt_prepare'").Scan(&name, &n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		before := prepared()
		var one int
		if err := conn.QueryRowxContext(ctx, "SELECT ? + ?", 0, 1).Scan(&one); err != nil || one != 1 {
			t.Fatalf("select: %v %d", err, one)
		}
		if after := prepared(); after != before {
			t.Errorf("%d statements prepared on the server for one query with arguments", after-before)
		}
	})
}
