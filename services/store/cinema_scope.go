package store

import "context"

// CinemaIDOfOrderNo returns the cinema of an order's show by order number; sql.ErrNoRows when there is no such order.
func CinemaIDOfOrderNo(ctx context.Context, q Querier, orderNo string) (int64, error) {
	var id int64
	err := q.GetContext(ctx, &id, `SELECT h.cinema_id FROM orders o JOIN shows sh ON sh.id = o.show_id
		JOIN halls h ON h.id = sh.hall_id WHERE o.order_no = ?`, orderNo)
	return id, err
}

// cinemaInClause is the SQL condition "column names a cinema of ids" for a list filter: "" when ids is empty (every cinema).
func cinemaInClause(column string, ids []int64) (string, []any) {
	if len(ids) == 0 {
		return "", nil
	}
	q := " AND " + column + " IN (?"
	args := []any{ids[0]}
	for _, id := range ids[1:] {
		q += ", ?"
		args = append(args, id)
	}
	return q + ")", args
}

// showOfCinemasClause is the SQL condition "showColumn is a show of a cinema of ids": "" when ids is empty (every cinema).
func showOfCinemasClause(showColumn string, ids []int64) (string, []any) {
	in, args := cinemaInClause("h.cinema_id", ids)
	if in == "" {
		return "", nil
	}
	return " AND " + showColumn + " IN (SELECT sh.id FROM shows sh JOIN halls h ON h.id = sh.hall_id WHERE 1 = 1" + in + ")", args
}
