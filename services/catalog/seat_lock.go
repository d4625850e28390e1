package catalog

import (
	"context"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
)

// LockedSeat is a seat as a transaction that locked it reads it: the latest committed
// row, whatever the transaction's snapshot.
type LockedSeat struct {
	ID       int64  `db:"id"`
	HallID   *int64 `db:"hall_id"` // nil once the seat left its hall (retired)
	Label    string `db:"label"`
	Kind     string `db:"kind"`
	ZoneCode string `db:"zone_code"`
}

// SellableIn reports whether the seat is a sellable (not blocked) seat of hall hallID.
func (s LockedSeat) SellableIn(hallID int64) bool {
	return s.HallID != nil && *s.HallID == hallID && s.Kind != services.KindBlocked
}

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
	q, args, err := sqlx.In(`SELECT s.id, s.hall_id, s.label, s.kind, z.code AS zone_code
		FROM seats s JOIN zones z ON z.id = s.zone_id WHERE s.id IN (?) ORDER BY s.id LOCK IN SHARE MODE`, ids)
	if err != nil {
		return nil, err
	}
	var rows []LockedSeat
	if err := tx.SelectContext(ctx, &rows, tx.Rebind(q), args...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.ID] = r
	}
	return out, nil
}
