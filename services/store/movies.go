package store

import (
	"context"
	"time"

	"seatflow/services"
)

// MovieRow is a movie with its retirement time (UTC, nil while current) and its number
// of upcoming shows (0 where the query does not count them).
type MovieRow struct {
	services.Movie
	RetiredAt     *time.Time `db:"retired_at"`
	UpcomingShows int        `db:"upcoming_shows"`
}

// MovieShow is an upcoming show of a movie: its id, start (UTC) and hall name.
type MovieShow struct {
	ID       int64     `db:"id"`
	StartsAt time.Time `db:"starts_at"`
	HallName string    `db:"hall_name"`
}

// MovieOffer is a movie's title and retirement time (UTC, nil while current).
type MovieOffer struct {
	Title     string     `db:"title"`
	RetiredAt *time.Time `db:"retired_at"`
}

const movieRowSQL = `SELECT m.id, m.title, m.runtime_min, m.rating, m.synopsis, m.retired_at,
	(SELECT COUNT(*) FROM shows sh WHERE sh.movie_id = m.id AND sh.status <> 'cancelled' AND sh.starts_at > ?) AS upcoming_shows
	FROM movies m`

// MovieList lists every movie ordered by title, then id.
func MovieList(ctx context.Context, q Querier) ([]*services.Movie, error) {
	out := []*services.Movie{}
	err := q.SelectContext(ctx, &out, "SELECT id, title, runtime_min, rating, synopsis FROM movies ORDER BY title, id")
	return out, err
}

// MovieByID reads one movie; sql.ErrNoRows when there is none.
func MovieByID(ctx context.Context, q Querier, id int64) (services.Movie, error) {
	var m services.Movie
	err := q.GetContext(ctx, &m, "SELECT id, title, runtime_min, rating, synopsis FROM movies WHERE id = ?", id)
	return m, err
}

// MovieIDByTitle returns the id of the movie titled title; sql.ErrNoRows when there is none.
func MovieIDByTitle(ctx context.Context, q Querier, title string) (int64, error) {
	var id int64
	err := q.GetContext(ctx, &id, "SELECT id FROM movies WHERE title = ?", title)
	return id, err
}

// InsertMovie inserts a movie (its ID is ignored) and returns the new id.
func InsertMovie(ctx context.Context, q Querier, m services.Movie) (int64, error) {
	res, err := q.ExecContext(ctx, "INSERT INTO movies (title, runtime_min, rating, synopsis) VALUES (?, ?, ?, ?)",
		m.Title, m.RuntimeMin, m.Rating, m.Synopsis)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// InsertMovieIfNew inserts a movie unless its title is taken and reports whether it did.
func InsertMovieIfNew(ctx context.Context, q Querier, m services.Movie) (bool, error) {
	res, err := q.ExecContext(ctx, "INSERT IGNORE INTO movies (title, runtime_min, rating, synopsis) VALUES (?, ?, ?, ?)",
		m.Title, m.RuntimeMin, m.Rating, m.Synopsis)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// MovieRows lists every movie, current ones first, each group by title, with its shows not cancelled starting after now.
func MovieRows(ctx context.Context, q Querier, now time.Time) ([]*MovieRow, error) {
	out := []*MovieRow{}
	err := q.SelectContext(ctx, &out, movieRowSQL+" ORDER BY m.retired_at IS NOT NULL, m.title, m.id", now)
	return out, err
}

// MovieRowByID reads one movie with its shows not cancelled starting after now; sql.ErrNoRows when there is none.
func MovieRowByID(ctx context.Context, q Querier, id int64, now time.Time) (*MovieRow, error) {
	m := &MovieRow{}
	err := q.GetContext(ctx, m, movieRowSQL+" WHERE m.id = ?", now, id)
	return m, err
}

// LockMovie reads a movie locked for update (UpcomingShows 0); sql.ErrNoRows when there is none.
func LockMovie(ctx context.Context, q Querier, id int64) (*MovieRow, error) {
	m := &MovieRow{}
	err := q.GetContext(ctx, m, "SELECT id, title, runtime_min, rating, synopsis, retired_at FROM movies WHERE id = ? FOR UPDATE", id)
	return m, err
}

// ShareLockMovieOffer reads a movie's title and retirement under a shared lock; sql.ErrNoRows when there is none.
func ShareLockMovieOffer(ctx context.Context, q Querier, id int64) (MovieOffer, error) {
	var m MovieOffer
	err := q.GetContext(ctx, &m, "SELECT title, retired_at FROM movies WHERE id = ? LOCK IN SHARE MODE", id)
	return m, err
}

// SetMovieTitleRuntime sets a movie's title and runtime (minutes).
func SetMovieTitleRuntime(ctx context.Context, q Querier, id int64, title string, runtimeMin int) error {
	_, err := q.ExecContext(ctx, "UPDATE movies SET title = ?, runtime_min = ? WHERE id = ?", title, runtimeMin, id)
	return err
}

// SetMovieRetiredAt sets a movie's retirement time (UTC; nil un-retires it).
func SetMovieRetiredAt(ctx context.Context, q Querier, id int64, at *time.Time) error {
	_, err := q.ExecContext(ctx, "UPDATE movies SET retired_at = ? WHERE id = ?", at, id)
	return err
}

// MovieUpcomingShows lists a movie's shows not cancelled starting after now, by start and id.
func MovieUpcomingShows(ctx context.Context, q Querier, movieID int64, now time.Time) ([]MovieShow, error) {
	var rows []MovieShow
	err := q.SelectContext(ctx, &rows, `SELECT sh.id, sh.starts_at, h.name AS hall_name FROM shows sh JOIN halls h ON h.id = sh.hall_id
		WHERE sh.movie_id = ? AND sh.status <> 'cancelled' AND sh.starts_at > ? ORDER BY sh.starts_at, sh.id`, movieID, now)
	return rows, err
}
