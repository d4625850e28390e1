package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/jmoiron/sqlx"
)

// DoorAdmissionRow is the buyer, show and admission of an order, as the door reads them.
type DoorAdmissionRow struct {
	BuyerName      string         `db:"buyer_name"`
	ShowTitle      string         `db:"title"`
	ShowStartsAt   time.Time      `db:"starts_at"`
	ShowStatus     string         `db:"show_status"`
	AdmittedAt     sql.NullTime   `db:"admitted_at"`
	AdmittedBy     sql.NullInt64  `db:"admitted_by"`
	AdmittedByName sql.NullString `db:"admitted_by_name"`
}

// DoorCount is how many seats of paid orders (people with a ticket) a door's shows have
// and how many of them were admitted (their order's ticket was scanned).
type DoorCount struct {
	Admitted int `db:"admitted"`
	Seats    int `db:"seats"`
}

// DoorAdmission returns the buyer, show and admission of order orderID (sql.ErrNoRows when there is none).
func DoorAdmission(ctx context.Context, q Querier, orderID int64) (DoorAdmissionRow, error) {
	var r DoorAdmissionRow
	err := q.GetContext(ctx, &r, `SELECT u.name AS buyer_name, m.title, s.starts_at, s.status AS show_status,
		o.admitted_at, o.admitted_by, a.name AS admitted_by_name
		FROM orders o JOIN users u ON u.id = o.user_id JOIN shows s ON s.id = o.show_id JOIN movies m ON m.id = s.movie_id
		LEFT JOIN users a ON a.id = o.admitted_by WHERE o.id = ?`, orderID)
	return r, err
}

// AdmitOrder marks paid, not yet admitted order orderID admitted at now by actorID and returns the rows changed.
func AdmitOrder(ctx context.Context, q Querier, orderID, actorID int64, now time.Time) (int64, error) {
	res, err := q.ExecContext(ctx, "UPDATE orders SET admitted_at = ?, admitted_by = ? WHERE id = ? AND status = 'paid' AND admitted_at IS NULL",
		now, actorID, orderID)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// DoorSeatCount counts the seats of the paid orders of showIDs (not empty) and those of the admitted ones.
func DoorSeatCount(ctx context.Context, q Querier, showIDs []int64) (DoorCount, error) {
	var c DoorCount
	query, args, err := sqlx.In(`SELECT COUNT(*) AS seats, COUNT(o.admitted_at) AS admitted
		FROM orders o JOIN order_seats os ON os.order_id = o.id
		WHERE o.show_id IN (?) AND o.status = 'paid' AND os.exchanged_at IS NULL`, showIDs)
	if err != nil {
		return c, err
	}
	err = q.GetContext(ctx, &c, q.Rebind(query), args...)
	return c, err
}
