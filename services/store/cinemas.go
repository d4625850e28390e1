package store

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
)

// CinemaNameIndex is the unique key of cinemas' names (a duplicate name is a CONFLICT).
const CinemaNameIndex = "uq_cinemas_name"

const cinemaColumns = "id, name, time_zone, currency, created_at"

// Cinemas lists every cinema by id (the install's first cinema first).
func Cinemas(ctx context.Context, q Querier) ([]services.Cinema, error) {
	var cs []services.Cinema
	err := q.SelectContext(ctx, &cs, "SELECT "+cinemaColumns+" FROM cinemas ORDER BY id")
	return cs, err
}

// CinemaByID reads one cinema; sql.ErrNoRows when there is none.
func CinemaByID(ctx context.Context, q Querier, id int64) (*services.Cinema, error) {
	c := &services.Cinema{}
	err := q.GetContext(ctx, c, "SELECT "+cinemaColumns+" FROM cinemas WHERE id = ?", id)
	return c, err
}

// FirstCinemaID returns the id of the install's first cinema (the lowest); sql.ErrNoRows when there is none.
func FirstCinemaID(ctx context.Context, q Querier) (int64, error) {
	var id int64
	err := q.GetContext(ctx, &id, "SELECT id FROM cinemas ORDER BY id LIMIT 1")
	return id, err
}

// InsertCinema creates a cinema and returns its id; a duplicate name fails on CinemaNameIndex.
func InsertCinema(ctx context.Context, q Querier, name, timeZone, currency string, createdAt time.Time) (int64, error) {
	res, err := q.ExecContext(ctx, "INSERT INTO cinemas (name, time_zone, currency, created_at) VALUES (?, ?, ?, ?)",
		name, timeZone, currency, createdAt)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// UpdateCinema sets a cinema's name, time zone and currency; a duplicate name fails on CinemaNameIndex.
func UpdateCinema(ctx context.Context, q Querier, id int64, name, timeZone, currency string) error {
	_, err := q.ExecContext(ctx, "UPDATE cinemas SET name = ?, time_zone = ?, currency = ? WHERE id = ?", name, timeZone, currency, id)
	return err
}

// StaffCinemaIDs returns the cinemas a staff member is limited to, by id; empty: every cinema.
func StaffCinemaIDs(ctx context.Context, q Querier, userID int64) ([]int64, error) {
	ids := []int64{}
	err := q.SelectContext(ctx, &ids, "SELECT cinema_id FROM staff_cinemas WHERE user_id = ? ORDER BY cinema_id", userID)
	return ids, err
}

// StaffCinemasOf returns, for each of the users given, the cinemas they are limited to (users without limits are absent).
func StaffCinemasOf(ctx context.Context, q Querier, userIDs []int64) (map[int64][]int64, error) {
	out := map[int64][]int64{}
	if len(userIDs) == 0 {
		return out, nil
	}
	query, args, err := sqlx.In("SELECT user_id, cinema_id FROM staff_cinemas WHERE user_id IN (?) ORDER BY user_id, cinema_id", userIDs)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		UserID   int64 `db:"user_id"`
		CinemaID int64 `db:"cinema_id"`
	}
	if err := q.SelectContext(ctx, &rows, query, args...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.UserID] = append(out[r.UserID], r.CinemaID)
	}
	return out, nil
}

// SetStaffCinemas replaces the cinemas a staff member is limited to (empty: every cinema).
func SetStaffCinemas(ctx context.Context, q Querier, userID int64, cinemaIDs []int64) error {
	if _, err := q.ExecContext(ctx, "DELETE FROM staff_cinemas WHERE user_id = ?", userID); err != nil {
		return err
	}
	for _, id := range cinemaIDs {
		if _, err := q.ExecContext(ctx, "INSERT INTO staff_cinemas (user_id, cinema_id) VALUES (?, ?)", userID, id); err != nil {
			return err
		}
	}
	return nil
}

// CinemaIDOfHall returns the cinema a hall belongs to; sql.ErrNoRows when there is no such hall.
func CinemaIDOfHall(ctx context.Context, q Querier, hallID int64) (int64, error) {
	var id int64
	err := q.GetContext(ctx, &id, "SELECT cinema_id FROM halls WHERE id = ?", hallID)
	return id, err
}

// CinemaIDOfShow returns the cinema of a show's hall; sql.ErrNoRows when there is no such show.
func CinemaIDOfShow(ctx context.Context, q Querier, showID int64) (int64, error) {
	var id int64
	err := q.GetContext(ctx, &id, "SELECT h.cinema_id FROM shows sh JOIN halls h ON h.id = sh.hall_id WHERE sh.id = ?", showID)
	return id, err
}

const insertFirstCinemaSQL = `INSERT INTO cinemas (name, time_zone, currency, created_at)
	SELECT ?, ?, ?, UTC_TIMESTAMP(6) FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM cinemas)`

// EnsureFirstCinema inserts c as the install's first cinema when there is no cinema (as
// migration 31 does) and returns the first cinema's id.
func EnsureFirstCinema(ctx context.Context, q Querier, c services.Cinema) (int64, error) {
	if _, err := q.ExecContext(ctx, insertFirstCinemaSQL, c.Name, c.TimeZone, c.Currency); err != nil {
		return 0, err
	}
	return FirstCinemaID(ctx, q)
}

// CinemaHallCounts returns each cinema's number of halls by cinema id (cinemas without halls are absent).
func CinemaHallCounts(ctx context.Context, q Querier) (map[int64]int, error) {
	return countsByCinema(ctx, q, "SELECT cinema_id, COUNT(*) AS n FROM halls GROUP BY cinema_id")
}

// CinemaStaffCounts returns, by cinema id, how many staff accounts are limited to each cinema (staff_cinemas rows of role staff).
func CinemaStaffCounts(ctx context.Context, q Querier) (map[int64]int, error) {
	return countsByCinema(ctx, q, "SELECT sc.cinema_id, COUNT(*) AS n FROM staff_cinemas sc JOIN users u ON u.id = sc.user_id WHERE u.role = 'staff' GROUP BY sc.cinema_id")
}

// countsByCinema runs query, which selects cinema_id and n, into a map.
func countsByCinema(ctx context.Context, q Querier, query string) (map[int64]int, error) {
	var rows []struct {
		CinemaID int64 `db:"cinema_id"`
		N        int   `db:"n"`
	}
	if err := q.SelectContext(ctx, &rows, query); err != nil {
		return nil, err
	}
	out := make(map[int64]int, len(rows))
	for _, r := range rows {
		out[r.CinemaID] = r.N
	}
	return out, nil
}
