package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// ShowSeat names one seat of one show.
type ShowSeat struct {
	ShowID int64 `db:"show_id"`
	SeatID int64 `db:"seat_id"`
}

// HouseSeatsAmong returns which of the seats (show id → seat ids) staff keep as house seats, by show and seat id.
func HouseSeatsAmong(ctx context.Context, q Querier, seats map[int64][]int64) ([]ShowSeat, error) {
	where, args := showAndIDs("show_id", "seat_id", seats)
	if where == "" {
		return nil, nil
	}
	var rows []ShowSeat
	err := q.SelectContext(ctx, &rows, "SELECT show_id, seat_id FROM show_house_seats WHERE "+where+" ORDER BY show_id, seat_id", args...)
	return rows, err
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
