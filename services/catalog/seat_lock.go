package catalog

import (
	"context"

	"github.com/jmoiron/sqlx"

	"seatflow/services/store"
)

// LockedSeat is a seat as a transaction that locked it reads it: the latest committed
// row, whatever the transaction's snapshot (store.LockedSeat).
type LockedSeat = store.LockedSeat

// LockSeats reads the seats ids inside tx under a shared lock and returns them by id; an
// id with no row (a seat a hall edit deleted) is absent. A hall edit (UpdateHall) locks
// every seat of its hall for update before it looks for live orders, so a commit that
// locks its seats first is seen by the edit, and one that locks them after the edit
// reads the seats as the edit left them: whichever commits first, the other one sees it
// (DESIGN.md, invariant 12). Errors: the database's.
func LockSeats(ctx context.Context, tx *sqlx.Tx, ids []int64) (map[int64]LockedSeat, error) {
	out := make(map[int64]LockedSeat, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := store.ShareLockSeats(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.ID] = r
	}
	return out, nil
}
