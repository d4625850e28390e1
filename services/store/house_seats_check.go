package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// BatchSeat is a seat as an order batch's lock read returns it (ShareLockBatchSeats):
// the seat (LockedSeat), and HouseShowID, a show of the batch whose staff keep it as a
// house seat (nil: none).
type BatchSeat struct {
	LockedSeat
	HouseShowID *int64 `db:"house_show_id"`
}

// ShareLockBatchSeats reads the seats ids under a shared lock in id order with their zones, each once per show of shows keeping it as a house seat, locking those house-seat rows or their absence too (ids and shows must not be empty).
// It runs once per group-commit batch: its rows are scanned by hand, without sqlx's reflection.
func ShareLockBatchSeats(ctx context.Context, q Querier, ids, shows []int64) ([]BatchSeat, error) {
	args := make([]any, 0, len(shows)+len(ids))
	for _, id := range shows {
		args = append(args, id)
	}
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err := q.QueryContext(ctx, `SELECT s.id, s.hall_id, s.label, s.kind, s.row_no, s.col_no, z.code, z.name, h.show_id
		FROM seats s JOIN zones z ON z.id = s.zone_id LEFT JOIN show_house_seats h ON h.show_id IN `+catalogRowGroups(1, len(shows))+` AND h.seat_id = s.id
		WHERE s.id IN `+catalogRowGroups(1, len(ids))+` ORDER BY s.id LOCK IN SHARE MODE`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]BatchSeat, 0, len(ids))
	for rows.Next() {
		var r BatchSeat
		var hall, house sql.NullInt64
		if err := rows.Scan(&r.ID, &hall, &r.Label, &r.Kind, &r.RowNo, &r.ColNo, &r.ZoneCode, &r.ZoneName, &house); err != nil {
			return nil, err
		}
		if hall.Valid {
			r.HallID = &hall.Int64
		}
		if house.Valid {
			r.HouseShowID = &house.Int64
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// showAndIDs is a WHERE condition matching rows whose showCol is a show of ids and whose
// col is among that show's ids: "(showCol = ? AND col IN (?, ...)) OR ...", shows in id
// order, each show's ids sorted and once; "" when no show has ids. It sorts the slices
// of ids in place.
func showAndIDs(showCol, col string, ids map[int64][]int64) (string, []any) {
	shows := make([]int64, 0, len(ids))
	for s, list := range ids {
		if len(list) > 0 {
			shows = append(shows, s)
		}
	}
	slices.Sort(shows)
	var parts []string
	var args []any
	for _, s := range shows {
		list := ids[s]
		slices.Sort(list)
		list = slices.Compact(list)
		parts = append(parts, fmt.Sprintf("(%s = ? AND %s IN (%s))", showCol, col, strings.TrimSuffix(strings.Repeat("?, ", len(list)), ", ")))
		args = append(args, s)
		for _, id := range list {
			args = append(args, id)
		}
	}
	return strings.Join(parts, " OR "), args
}
