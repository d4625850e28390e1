package store

import (
	"context"
)

// BatchSeat is a seat as an order batch's lock read returns it (ShareLockBatch): the
// seat (LockedSeat), and HouseShowID, a show of the batch whose staff keep it as a house
// seat (nil: none).
type BatchSeat struct {
	LockedSeat
	HouseShowID *int64 `db:"house_show_id"`
}

// BatchBuyer is a buyer as an order batch's lock read returns it: the address and
// language its e-mails are sent to.
type BatchBuyer struct {
	ID    int64  `db:"id"`
	Email string `db:"email"`
	Lang  string `db:"lang"`
}

// batchLockRow is one row of ShareLockBatch's statement: a seat (part "s") or a buyer ("u").
type batchLockRow struct {
	Part string `db:"part"`
	BatchSeat
	Email *string `db:"email"`
	Lang  *string `db:"lang"`
}

// ShareLockBatch reads under a shared lock, in one statement, the seats ids with their zones (each once per show of shows keeping it as a house seat, those house-seat rows or their absence locked too) and the users buyers (ids, shows and buyers must not be empty).
func ShareLockBatch(ctx context.Context, q Querier, ids, shows, buyers []int64) ([]BatchSeat, []BatchBuyer, error) {
	var rows []batchLockRow
	err := catalogSelectIn(ctx, q, &rows, `(SELECT 's' AS part, s.id, s.hall_id, s.label, s.kind, s.row_no, s.col_no, z.code AS zone_code,
			z.name AS zone_name, h.show_id AS house_show_id, NULL AS email, NULL AS lang
		FROM seats s JOIN zones z ON z.id = s.zone_id LEFT JOIN show_house_seats h ON h.show_id IN (?) AND h.seat_id = s.id
		WHERE s.id IN (?) LOCK IN SHARE MODE)
		UNION ALL (SELECT 'u', u.id, NULL, '', '', 0, 0, '', '', NULL, u.email, u.lang FROM users u WHERE u.id IN (?) LOCK IN SHARE MODE)`,
		shows, ids, buyers)
	if err != nil {
		return nil, nil, err
	}
	seats := make([]BatchSeat, 0, len(rows))
	var users []BatchBuyer
	for _, r := range rows {
		if r.Part == "u" && r.Email != nil && r.Lang != nil {
			users = append(users, BatchBuyer{ID: r.ID, Email: *r.Email, Lang: *r.Lang})
		} else if r.Part == "s" {
			seats = append(seats, r.BatchSeat)
		}
	}
	return seats, users, nil
}
