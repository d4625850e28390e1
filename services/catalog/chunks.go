package catalog

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services/store"
)

// maxInList is the most values one statement lists in an IN (...) or a multi-row
// VALUES: a stadium's 90,000 seats are read, locked and written in several statements,
// each far below MariaDB's max_allowed_packet (16 MiB by default) and the 65,535
// placeholders of a prepared statement.
const maxInList = 5000

// maxSeatRows is the most seats one multi-row INSERT or UPDATE of seats writes.
const maxSeatRows = 1000

// inChunks calls f with consecutive parts of vals of at most n values, in order, and
// returns the first error.
func inChunks[T any](vals []T, n int, f func([]T) error) error {
	for start := 0; start < len(vals); start += n {
		if err := f(vals[start:min(start+n, len(vals))]); err != nil {
			return err
		}
	}
	return nil
}

// execIn runs q, whose last placeholder is "IN (?)", for ids in chunks of maxInList, with
// args before the ids. Errors: the database's.
func execIn(ctx context.Context, tx *sqlx.Tx, q string, args []any, ids []int64) error {
	return inChunks(ids, maxInList, func(part []int64) error {
		sq, sargs, err := sqlx.In(q, append(append([]any(nil), args...), part)...)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, tx.Rebind(sq), sargs...)
		return err
	})
}

// sortedIDs returns ids in ascending order (a copy).
func sortedIDs(ids []int64) []int64 {
	out := append([]int64(nil), ids...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// hallTxTimeout bounds a hall write's transaction: store.DBTimeout plus 100 µs a seat of
// the larger of the layouts before and after (13 s for a 83,521-seat stadium, whose
// seats are inserted, locked and compared in the one transaction).
func hallTxTimeout(seats int) time.Duration {
	return store.DBTimeout + time.Duration(seats)*100*time.Microsecond
}

// placeholders is n comma-separated groups, each "(?, ..., ?)" of width placeholders.
func placeholders(n, width int) string {
	one := "(" + strings.Repeat("?, ", width-1) + "?)"
	return strings.Repeat(one+", ", n-1) + one
}
