package store

import (
	"context"
	"strings"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
)

// NewSeat is a seat to insert: its hall, zone id, cell, label and kind.
type NewSeat struct {
	HallID, ZoneID int64
	Row, Col       int
	Label, Kind    string
}

// SeatMove is a seat's new cell, kind and zone id.
type SeatMove struct {
	ID       int64
	Row, Col int
	Kind     string
	ZoneID   int64
}

// LabelledSeat is a seat's id and label.
type LabelledSeat struct {
	ID    int64  `db:"id"`
	Label string `db:"label"`
}

// LockedSeat is a seat as a transaction that locked it reads it: the latest committed
// row, whatever the transaction's snapshot.
type LockedSeat struct {
	ID       int64  `db:"id"`
	HallID   *int64 `db:"hall_id"` // nil once the seat left its hall (retired)
	Label    string `db:"label"`
	Kind     string `db:"kind"`
	ZoneCode string `db:"zone_code"`
	ZoneName string `db:"zone_name"`
	RowNo    int    `db:"row_no"`
	ColNo    int    `db:"col_no"`
}

// SellableIn reports whether the seat is a sellable (not blocked) seat of hall hallID.
func (s LockedSeat) SellableIn(hallID int64) bool {
	return s.HallID != nil && *s.HallID == hallID && s.Kind != services.KindBlocked
}

// catalogSelectIn runs a SELECT whose placeholders include "IN (?)" lists into dest.
func catalogSelectIn(ctx context.Context, q Querier, dest any, query string, args ...any) error {
	sq, sargs, err := sqlx.In(query, args...)
	if err != nil {
		return err
	}
	return q.SelectContext(ctx, dest, q.Rebind(sq), sargs...)
}

// catalogExecIn runs a statement whose placeholders include "IN (?)" lists.
func catalogExecIn(ctx context.Context, q Querier, query string, args ...any) error {
	sq, sargs, err := sqlx.In(query, args...)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, q.Rebind(sq), sargs...)
	return err
}

// catalogRowGroups is n comma-separated groups, each "(?, ..., ?)" of width placeholders.
func catalogRowGroups(n, width int) string {
	one := "(" + strings.Repeat("?, ", width-1) + "?)"
	return strings.Repeat(one+", ", n-1) + one
}

// HallSeats lists a hall's seats with their zone codes by row, then column.
func HallSeats(ctx context.Context, q Querier, hallID int64) ([]services.Seat, error) {
	var seats []services.Seat
	err := q.SelectContext(ctx, &seats, `SELECT s.id, s.hall_id, s.zone_id, z.code AS zone_code, s.row_no, s.col_no, s.label, s.kind
		FROM seats s JOIN zones z ON z.id = s.zone_id WHERE s.hall_id = ? ORDER BY s.row_no, s.col_no`, hallID)
	return seats, err
}

// HallSeatCount counts the seats of a hall.
func HallSeatCount(ctx context.Context, q Querier, hallID int64) (int, error) {
	var n int
	err := q.GetContext(ctx, &n, "SELECT COUNT(*) FROM seats WHERE hall_id = ?", hallID)
	return n, err
}

// InsertSeats inserts seats in one multi-row statement (seats must not be empty).
func InsertSeats(ctx context.Context, q Querier, seats []NewSeat) error {
	args := make([]any, 0, 6*len(seats))
	for _, s := range seats {
		args = append(args, s.HallID, s.ZoneID, s.Row, s.Col, s.Label, s.Kind)
	}
	_, err := q.ExecContext(ctx, "INSERT INTO seats (hall_id, zone_id, row_no, col_no, label, kind) VALUES "+catalogRowGroups(len(seats), 6), args...)
	return err
}

// ShareLockSeats reads the seats ids under a shared lock in id order, with their zone codes and names (ids must not be empty).
func ShareLockSeats(ctx context.Context, q Querier, ids []int64) ([]LockedSeat, error) {
	var rows []LockedSeat
	err := catalogSelectIn(ctx, q, &rows, `SELECT s.id, s.hall_id, s.label, s.kind, s.row_no, s.col_no, z.code AS zone_code, z.name AS zone_name
		FROM seats s JOIN zones z ON z.id = s.zone_id WHERE s.id IN (?) ORDER BY s.id LOCK IN SHARE MODE`, ids)
	return rows, err
}

// ShareLockHallSeatIDs lists the ids of a hall's seats with a locking read under a shared lock.
func ShareLockHallSeatIDs(ctx context.Context, q Querier, hallID int64) ([]int64, error) {
	var ids []int64
	err := q.SelectContext(ctx, &ids, "SELECT id FROM seats WHERE hall_id = ? LOCK IN SHARE MODE", hallID)
	return ids, err
}

// LockSeatsForUpdate reads the seats ids locked for update in id order, zone codes empty (ids must not be empty).
func LockSeatsForUpdate(ctx context.Context, q Querier, ids []int64) ([]services.Seat, error) {
	var seats []services.Seat
	err := catalogSelectIn(ctx, q, &seats, `SELECT s.id, s.hall_id, s.zone_id, s.row_no, s.col_no, s.label, s.kind
			FROM seats s WHERE s.id IN (?) ORDER BY s.id FOR UPDATE`, ids)
	return seats, err
}

// SeatsNamedByOrders returns those of the seats ids that an order seat or a house seat names (ids must not be empty).
func SeatsNamedByOrders(ctx context.Context, q Querier, ids []int64) ([]int64, error) {
	var named []int64
	err := catalogSelectIn(ctx, q, &named, `SELECT seat_id FROM order_seats WHERE seat_id IN (?)
				UNION SELECT seat_id FROM show_house_seats WHERE seat_id IN (?)`, ids, ids)
	return named, err
}

// RetireSeats takes the seats ids out of their hall, remembering hallID as the hall they left (ids must not be empty).
func RetireSeats(ctx context.Context, q Querier, hallID int64, ids []int64) error {
	return catalogExecIn(ctx, q, "UPDATE seats SET hall_id = NULL, retired_hall_id = ? WHERE id IN (?)", hallID, ids)
}

// DeleteSeats deletes the seats ids (ids must not be empty).
func DeleteSeats(ctx context.Context, q Querier, ids []int64) error {
	return catalogExecIn(ctx, q, "DELETE FROM seats WHERE id IN (?)", ids)
}

// ParkSeats moves the seats ids 1,000,000 rows down, off the grid, so their cells are free (ids must not be empty).
func ParkSeats(ctx context.Context, q Querier, ids []int64) error {
	return catalogExecIn(ctx, q, "UPDATE seats SET row_no = row_no + 1000000 WHERE id IN (?)", ids)
}

// MoveSeats sets the cell, kind and zone of each seat of moves in one statement (moves must not be empty).
func MoveSeats(ctx context.Context, q Querier, moves []SeatMove) error {
	var sb strings.Builder
	args := make([]any, 0, 5*len(moves))
	sb.WriteString("UPDATE seats s JOIN (")
	for i, m := range moves {
		if i == 0 {
			sb.WriteString("SELECT ? AS id, ? AS row_no, ? AS col_no, ? AS kind, ? AS zone_id")
		} else {
			sb.WriteString(" UNION ALL SELECT ?, ?, ?, ?, ?")
		}
		args = append(args, m.ID, m.Row, m.Col, m.Kind, m.ZoneID)
	}
	sb.WriteString(") v ON v.id = s.id SET s.row_no = v.row_no, s.col_no = v.col_no, s.kind = v.kind, s.zone_id = v.zone_id")
	_, err := q.ExecContext(ctx, sb.String(), args...)
	return err
}

// RetiredSeatsByLabel lists, by id, the seats that left hall hallID with one of labels (labels must not be empty).
func RetiredSeatsByLabel(ctx context.Context, q Querier, hallID int64, labels []string) ([]LabelledSeat, error) {
	var rows []LabelledSeat
	err := catalogSelectIn(ctx, q, &rows, "SELECT id, label FROM seats WHERE hall_id IS NULL AND retired_hall_id = ? AND label IN (?) ORDER BY id", hallID, labels)
	return rows, err
}

// ReviveSeat brings retired seat id back into hall hallID at cell m (m.ID is ignored).
func ReviveSeat(ctx context.Context, q Querier, id, hallID int64, m SeatMove) error {
	_, err := q.ExecContext(ctx, `UPDATE seats SET hall_id = ?, retired_hall_id = NULL, row_no = ?, col_no = ?, kind = ?, zone_id = ?
			WHERE id = ?`, hallID, m.Row, m.Col, m.Kind, m.ZoneID, id)
	return err
}

// PricedSeat is a seat of a show's hall with its zone code and the show's price for it (minor units).
type PricedSeat struct {
	ID    int64  `db:"id"`
	Label string `db:"label"`
	Zone  string `db:"zone_code"`
	Price int64  `db:"price_minor"`
}

// ShowPricedSeats lists the seats of a show's hall whose zone the show prices, in no set order.
func ShowPricedSeats(ctx context.Context, q Querier, showID int64) ([]PricedSeat, error) {
	var seats []PricedSeat
	err := q.SelectContext(ctx, &seats, `SELECT s.id, s.label, z.code AS zone_code, p.price_minor
		FROM shows sh JOIN seats s ON s.hall_id = sh.hall_id JOIN zones z ON z.id = s.zone_id
		JOIN show_prices p ON p.show_id = sh.id AND p.zone_id = s.zone_id WHERE sh.id = ?`, showID)
	return seats, err
}

// ShowSellablePricedSeats lists the seats of a show's hall that are not blocked and whose zone the show prices, by row, then column.
func ShowSellablePricedSeats(ctx context.Context, q Querier, showID int64) ([]PricedSeat, error) {
	var seats []PricedSeat
	err := q.SelectContext(ctx, &seats, `SELECT s.id, s.label, z.code AS zone_code, p.price_minor
		FROM shows sh
		JOIN seats s ON s.hall_id = sh.hall_id
		JOIN zones z ON z.id = s.zone_id
		JOIN show_prices p ON p.show_id = sh.id AND p.zone_id = s.zone_id
		WHERE sh.id = ? AND s.kind <> ?
		ORDER BY s.row_no, s.col_no`, showID, services.KindBlocked)
	return seats, err
}
