package store

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"
)

// HouseSeatLiveOrder is a live seat of a show with its order's number and status.
type HouseSeatLiveOrder struct {
	SeatID  int64  `db:"seat_id"`
	OrderNo string `db:"order_no"`
	Status  string `db:"status"`
}

// LockShowForHouseSeats reads the status and start of show showID under a shared lock (sql.ErrNoRows when there is none).
func LockShowForHouseSeats(ctx context.Context, q Querier, showID int64) (status string, startsAt time.Time, err error) {
	var row struct {
		Status   string    `db:"status"`
		StartsAt time.Time `db:"starts_at"`
	}
	err = q.GetContext(ctx, &row, "SELECT status, starts_at FROM shows WHERE id = ? LOCK IN SHARE MODE", showID)
	return row.Status, row.StartsAt, err
}

// LockHouseSeatIDs returns the house seats of show showID, locking their rows (FOR UPDATE).
func LockHouseSeatIDs(ctx context.Context, q Querier, showID int64) ([]int64, error) {
	var ids []int64
	err := q.SelectContext(ctx, &ids, "SELECT seat_id FROM show_house_seats WHERE show_id = ? FOR UPDATE", showID)
	return ids, err
}

// LockHouseSeatLiveOrders returns the live seats among seatIDs (not empty) of show showID
// with their orders. It locks the seats' order_seats rows (FOR UPDATE), so it waits for
// an order written or cancelled now, and reads the orders' numbers and statuses without
// locking them: a cancel locks its order's row before its seats, and a read that locked
// both in the other order would deadlock with it.
func LockHouseSeatLiveOrders(ctx context.Context, q Querier, showID int64, seatIDs []int64) ([]HouseSeatLiveOrder, error) {
	query, args, err := sqlx.In(`SELECT seat_id, order_id FROM order_seats
		WHERE show_id = ? AND live = 1 AND seat_id IN (?) FOR UPDATE`, showID, seatIDs)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		SeatID  int64 `db:"seat_id"`
		OrderID int64 `db:"order_id"`
	}
	if err := q.SelectContext(ctx, &rows, q.Rebind(query), args...); err != nil || len(rows) == 0 {
		return nil, err
	}
	orderIDs := make([]int64, len(rows))
	for i, r := range rows {
		orderIDs[i] = r.OrderID
	}
	query, args, err = sqlx.In("SELECT id, order_no, status FROM orders WHERE id IN (?)", orderIDs)
	if err != nil {
		return nil, err
	}
	var orders []struct {
		ID      int64  `db:"id"`
		OrderNo string `db:"order_no"`
		Status  string `db:"status"`
	}
	if err := q.SelectContext(ctx, &orders, q.Rebind(query), args...); err != nil {
		return nil, err
	}
	byID := make(map[int64]HouseSeatLiveOrder, len(orders))
	for _, o := range orders {
		byID[o.ID] = HouseSeatLiveOrder{OrderNo: o.OrderNo, Status: o.Status}
	}
	live := make([]HouseSeatLiveOrder, 0, len(rows))
	for _, r := range rows {
		l := byID[r.OrderID] // an order the transaction's snapshot missed stays live, its number unknown
		l.SeatID = r.SeatID
		live = append(live, l)
	}
	return live, nil
}

// InsertHouseSeats makes seatIDs (not empty) house seats of show showID, set by actorID (0: the system) for reason at now.
func InsertHouseSeats(ctx context.Context, q Querier, showID int64, seatIDs []int64, actorID int64, reason string, now time.Time) error {
	ins := "INSERT INTO show_house_seats (show_id, seat_id, created_by, reason, created_at) VALUES "
	iargs := make([]any, 0, 5*len(seatIDs))
	for i, id := range seatIDs {
		if i > 0 {
			ins += ", "
		}
		ins += "(?, ?, ?, ?, ?)"
		iargs = append(iargs, showID, id, NullID(actorID), reason, now)
	}
	_, err := q.ExecContext(ctx, ins, iargs...)
	return err
}

// DeleteHouseSeats ends seatIDs (not empty) as house seats of show showID.
func DeleteHouseSeats(ctx context.Context, q Querier, showID int64, seatIDs []int64) error {
	query, args, err := sqlx.In("DELETE FROM show_house_seats WHERE show_id = ? AND seat_id IN (?)", showID, seatIDs)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, q.Rebind(query), args...)
	return err
}
