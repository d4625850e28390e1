package store

import (
	"context"

	"seatflow/services"
)

// HallByID reads a hall's cinema, name and grid (no zones or seats); sql.ErrNoRows when there is none.
func HallByID(ctx context.Context, q Querier, id int64) (*services.Hall, error) {
	h := &services.Hall{}
	err := q.GetContext(ctx, h, "SELECT id, cinema_id, name, rows_n, cols_n FROM halls WHERE id = ?", id)
	return h, err
}

// LockHall reads a hall's cinema, name and grid locked for update; sql.ErrNoRows when there is none.
func LockHall(ctx context.Context, q Querier, id int64) (*services.Hall, error) {
	h := &services.Hall{}
	err := q.GetContext(ctx, h, "SELECT id, cinema_id, name, rows_n, cols_n FROM halls WHERE id = ? FOR UPDATE", id)
	return h, err
}

// LockHallForShows locks a hall's row for update, if there is one, to write its shows or
// their house seats (one change of a hall's house seats at a time).
func LockHallForShows(ctx context.Context, q Querier, id int64) error {
	_, err := q.ExecContext(ctx, "SELECT id FROM halls WHERE id = ? FOR UPDATE", id)
	return err
}

// HallIDs lists the ids of every hall ordered by name, then id.
func HallIDs(ctx context.Context, q Querier) ([]int64, error) {
	var ids []int64
	err := q.SelectContext(ctx, &ids, "SELECT id FROM halls ORDER BY name, id")
	return ids, err
}

// HallIDByName returns the id of a cinema's hall named name; sql.ErrNoRows when there is none.
func HallIDByName(ctx context.Context, q Querier, cinemaID int64, name string) (int64, error) {
	var id int64
	err := q.GetContext(ctx, &id, "SELECT id FROM halls WHERE cinema_id = ? AND name = ?", cinemaID, name)
	return id, err
}

// InsertHall inserts a cinema's hall of rows x cols cells and returns its id; a name in use in the cinema fails on uq_halls_cinema_name.
func InsertHall(ctx context.Context, q Querier, cinemaID int64, name string, rows, cols int) (int64, error) {
	res, err := q.ExecContext(ctx, "INSERT INTO halls (cinema_id, name, rows_n, cols_n) VALUES (?, ?, ?, ?)", cinemaID, name, rows, cols)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// SetHallGrid sets a hall's name and grid (rows x cols cells).
func SetHallGrid(ctx context.Context, q Querier, id int64, name string, rows, cols int) error {
	_, err := q.ExecContext(ctx, "UPDATE halls SET name = ?, rows_n = ?, cols_n = ? WHERE id = ?", name, rows, cols, id)
	return err
}
