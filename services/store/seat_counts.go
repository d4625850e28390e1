package store

import (
	"context"
	"time"

	"seatflow/services"
)

// TakenSeat is a seat held, sold or kept as a house seat for a show that has not started.
type TakenSeat struct {
	SeatID   int64     `db:"seat_id"`
	Label    string    `db:"label"`
	Row      int       `db:"row_no"`
	Col      int       `db:"col_no"`
	ShowID   int64     `db:"show_id"`
	Title    string    `db:"title"`
	StartsAt time.Time `db:"starts_at"`
	State    string    `db:"state"` // held, sold or house seat
}

// ShowStatusCount is how many live seats a show's orders of one status have.
type ShowStatusCount struct {
	ShowID int64  `db:"show_id"`
	Status string `db:"status"`
	N      int    `db:"n"`
}

// ShowZoneCount is how many seats of a show's zone are taken.
type ShowZoneCount struct {
	ShowID int64  `db:"show_id"`
	Zone   string `db:"zone_code"`
	N      int    `db:"n"`
}

// LiveSeat is a seat of a live order of a show, with the order's number, buyer and status.
type LiveSeat struct {
	SeatID  int64  `db:"seat_id"`
	OrderNo string `db:"order_no"`
	UserID  int64  `db:"user_id"`
	Status  string `db:"status"`
}

// TakenSeatsAhead lists the seats of ids that a live order or, for a show not cancelled, a house seat ties to a show starting after now (ids must not be empty).
func TakenSeatsAhead(ctx context.Context, q Querier, ids []int64, now time.Time) ([]TakenSeat, error) {
	var taken []TakenSeat
	err := catalogSelectIn(ctx, q, &taken, `SELECT os.seat_id, s.label, s.row_no, s.col_no, sh.id AS show_id, m.title, sh.starts_at,
				IF(o.status = ?, 'sold', 'held') AS state
			FROM order_seats os JOIN orders o ON o.id = os.order_id JOIN seats s ON s.id = os.seat_id
			JOIN shows sh ON sh.id = os.show_id JOIN movies m ON m.id = sh.movie_id
			WHERE os.live = 1 AND os.seat_id IN (?) AND sh.starts_at > ?
			UNION ALL
			SELECT hs.seat_id, s.label, s.row_no, s.col_no, sh.id, m.title, sh.starts_at, 'house seat'
			FROM show_house_seats hs JOIN seats s ON s.id = hs.seat_id
			JOIN shows sh ON sh.id = hs.show_id JOIN movies m ON m.id = sh.movie_id
			WHERE hs.seat_id IN (?) AND sh.starts_at > ? AND sh.status <> ?`,
		services.OrderPaid, ids, now, ids, now, services.ShowCancelled)
	return taken, err
}

// ShowsLiveSeatsByStatus counts the live seats of the shows ids by show and order status (ids must not be empty).
func ShowsLiveSeatsByStatus(ctx context.Context, q Querier, ids []int64) ([]ShowStatusCount, error) {
	var rows []ShowStatusCount
	err := catalogSelectIn(ctx, q, &rows, `SELECT os.show_id, o.status, COUNT(*) AS n FROM order_seats os JOIN orders o ON o.id = os.order_id
		WHERE os.show_id IN (?) AND os.live = 1 GROUP BY os.show_id, o.status`, ids)
	return rows, err
}

// ShowsTakenByZone counts the taken seats of the shows ids by show and zone: live order seats, and house seats no live order has; a pair may come twice (ids must not be empty).
func ShowsTakenByZone(ctx context.Context, q Querier, ids []int64) ([]ShowZoneCount, error) {
	var rows []ShowZoneCount
	err := catalogSelectIn(ctx, q, &rows, `SELECT show_id, zone_code, COUNT(*) AS n FROM order_seats WHERE show_id IN (?) AND live = 1 GROUP BY show_id, zone_code
		UNION ALL
		SELECT h.show_id, z.code, COUNT(*) FROM show_house_seats h JOIN seats st ON st.id = h.seat_id JOIN zones z ON z.id = st.zone_id
		WHERE h.show_id IN (?) AND NOT EXISTS (SELECT 1 FROM order_seats os WHERE os.show_id = h.show_id AND os.seat_id = h.seat_id AND os.live = 1)
		GROUP BY h.show_id, z.code`, ids, ids)
	return rows, err
}

// ShowLiveSeats lists the seats of a show's live orders with their orders' numbers, buyers (a walk-in's 0, as in its seat values) and statuses.
func ShowLiveSeats(ctx context.Context, q Querier, showID int64) ([]LiveSeat, error) {
	var live []LiveSeat
	err := q.SelectContext(ctx, &live, `SELECT os.seat_id, o.order_no, COALESCE(o.user_id, 0) AS user_id, o.status
		FROM order_seats os JOIN orders o ON o.id = os.order_id WHERE os.show_id = ? AND os.live = 1`, showID)
	return live, err
}

// ShareLockShowHouseSeatIDs lists the house seats of a show with a locking read under a shared lock.
func ShareLockShowHouseSeatIDs(ctx context.Context, q Querier, showID int64) ([]int64, error) {
	var ids []int64
	err := q.SelectContext(ctx, &ids, "SELECT seat_id FROM show_house_seats WHERE show_id = ? LOCK IN SHARE MODE", showID)
	return ids, err
}
