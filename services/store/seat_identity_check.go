package store

import (
	"context"
	"time"
)

// SeatOutsideHall is a live seat of a show that is no seat of the show's hall, with its order.
type SeatOutsideHall struct {
	ShowID  int64  `db:"show_id"`
	SeatID  int64  `db:"seat_id"`
	Label   string `db:"label"`
	OrderNo string `db:"order_no"`
	Status  string `db:"status"`
}

// DuplicateSeatLabel is a label that several live seats of one show carry, with their orders (comma separated).
type DuplicateSeatLabel struct {
	ShowID int64  `db:"show_id"`
	Label  string `db:"label"`
	Seats  int    `db:"seats"`
	Orders string `db:"orders"`
}

// seatIdentityFilter is the optional one-show condition of the seat identity checks.
func seatIdentityFilter(now time.Time, showID int64) (string, []any) {
	filter, args := "", []any{now}
	if showID != 0 {
		filter, args = " AND sh.id = ?", append(args, showID)
	}
	return filter, args
}

// LiveSeatsOutsideHall returns up to 1000 live seats of shows starting after now (showID, or every show for 0) that are no seat of the show's hall.
func LiveSeatsOutsideHall(ctx context.Context, q Querier, now time.Time, showID int64) ([]SeatOutsideHall, error) {
	filter, args := seatIdentityFilter(now, showID)
	var outside []SeatOutsideHall
	err := q.SelectContext(ctx, &outside, `SELECT sh.id AS show_id, s.id AS seat_id, s.label, o.order_no, o.status
		FROM order_seats os JOIN orders o ON o.id = os.order_id JOIN shows sh ON sh.id = os.show_id JOIN seats s ON s.id = os.seat_id
		WHERE os.live = 1 AND sh.starts_at > ? AND (s.hall_id IS NULL OR s.hall_id <> sh.hall_id)`+filter+`
		ORDER BY sh.id, s.id LIMIT 1000`, args...)
	return outside, err
}

// LiveDuplicateSeatLabels returns up to 1000 labels that two or more live seats of one show starting after now carry (showID, or every show for 0).
func LiveDuplicateSeatLabels(ctx context.Context, q Querier, now time.Time, showID int64) ([]DuplicateSeatLabel, error) {
	filter, args := seatIdentityFilter(now, showID)
	var dup []DuplicateSeatLabel
	err := q.SelectContext(ctx, &dup, `SELECT sh.id AS show_id, s.label, COUNT(DISTINCT s.id) AS seats,
		GROUP_CONCAT(DISTINCT o.order_no ORDER BY o.order_no SEPARATOR ', ') AS orders
		FROM order_seats os JOIN orders o ON o.id = os.order_id JOIN shows sh ON sh.id = os.show_id JOIN seats s ON s.id = os.seat_id
		WHERE os.live = 1 AND sh.starts_at > ?`+filter+`
		GROUP BY sh.id, s.label HAVING COUNT(DISTINCT s.id) > 1 ORDER BY sh.id, s.label LIMIT 1000`, args...)
	return dup, err
}
