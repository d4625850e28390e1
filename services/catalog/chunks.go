package catalog

import (
	"sort"
	"time"

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

// sortedIDs returns ids in ascending order (a copy).
func sortedIDs(ids []int64) []int64 {
	out := append([]int64(nil), ids...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// hallTxTimeout bounds a hall write's transaction: twice store.DBTimeout plus 100 µs a
// seat of the larger of the layouts before and after (10.7 s for 7,208 seats, 18 s for
// a 83,521-seat stadium, whose seats are inserted, locked and compared in the one
// transaction). A staff write of thousands of rows on a busy 2-core machine took 6.5 s
// where it takes 0.7 s on a quiet one; the buyers' path keeps store.DBTimeout.
func hallTxTimeout(seats int) time.Duration {
	return 2*store.DBTimeout + time.Duration(seats)*100*time.Microsecond
}
