package store

import (
	"context"
	"time"
)

// DashboardShow is one show with its seat counts (staff.ShowOccupancy has the same
// fields and says what they mean; Status is derived, not read).
type DashboardShow struct {
	ShowID       int64     `db:"id"`
	StartsAt     time.Time `db:"starts_at"`
	MovieTitle   string    `db:"movie_title"`
	HallID       int64     `db:"hall_id"`
	HallName     string    `db:"hall_name"`
	CinemaName   string    `db:"cinema_name"`
	TimeZone     string    `db:"time_zone"` // the hall's cinema's IANA zone
	Status       string    `db:"-"`
	StoredStatus string    `db:"status"`
	SaleOpensAt  time.Time `db:"sale_opens_at"`
	SaleClosesAt time.Time `db:"sale_closes_at"`
	Sellable     int       `db:"sellable"`
	Sold         int       `db:"sold"`
	Held         int       `db:"held"`
}

// DashboardPendingOrder is one order waiting for payment. Times are UTC; TotalMinor is
// in minor units of Currency.
type DashboardPendingOrder struct {
	OrderNo    string    `db:"order_no"`
	ShowID     int64     `db:"show_id"`
	MovieTitle string    `db:"movie_title"`
	UserEmail  string    `db:"user_email"`
	Seats      int       `db:"seats"`
	TotalMinor int64     `db:"total_minor"`
	Currency   string    `db:"currency"`
	CreatedAt  time.Time `db:"created_at"`
	ExpiresAt  time.Time `db:"expires_at"`
}

// RevenueLine is what one movie or hall (ID, Name) took in one currency: Orders paid
// orders with Seats seats for AmountMinor.
type RevenueLine struct {
	ID          int64  `db:"id"`
	Name        string `db:"name"`
	Currency    string `db:"currency"`
	Orders      int    `db:"orders"`
	Seats       int    `db:"seats"`
	AmountMinor int64  `db:"amount_minor"`
}

// MinuteBucket is N orders in minute Bucket of a range (0 is its first minute).
type MinuteBucket struct {
	Bucket int `db:"b"`
	N      int `db:"n"`
}

// DashboardShowsBetween returns every show starting in [from, to) by start, hall name and id, with its cinema and its sellable, sold and held seats, of cinemaIDs' shows (empty: every cinema).
func DashboardShowsBetween(ctx context.Context, q Querier, from, to time.Time, cinemaIDs []int64) ([]*DashboardShow, error) {
	out := []*DashboardShow{}
	in, args := cinemaInClause("h.cinema_id", cinemaIDs)
	err := q.SelectContext(ctx, &out, `SELECT s.id, s.starts_at, s.hall_id, s.status, s.sale_opens_at, s.sale_closes_at,
		m.title AS movie_title, h.name AS hall_name, c.name AS cinema_name, c.time_zone,
		(SELECT COUNT(*) FROM seats se WHERE se.hall_id = s.hall_id AND se.kind <> 'blocked') AS sellable,
		(SELECT COUNT(*) FROM order_seats os JOIN orders o ON o.id = os.order_id
			WHERE os.show_id = s.id AND os.live = 1 AND o.status = 'paid') AS sold,
		(SELECT COUNT(*) FROM order_seats os JOIN orders o ON o.id = os.order_id
			WHERE os.show_id = s.id AND os.live = 1 AND o.status = 'pending') AS held
		FROM shows s JOIN movies m ON m.id = s.movie_id JOIN halls h ON h.id = s.hall_id
		JOIN cinemas c ON c.id = h.cinema_id
		WHERE s.starts_at >= ? AND s.starts_at < ?`+in+`
		ORDER BY s.starts_at, h.name, s.id`, append([]any{from, to}, args...)...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DashboardPendingCounts counts the pending orders and those of them whose deadline is at or before now, of cinemaIDs' shows (empty: every cinema).
func DashboardPendingCounts(ctx context.Context, q Querier, now time.Time, cinemaIDs []int64) (count, overdue int, err error) {
	in, args := showOfCinemasClause("show_id", cinemaIDs)
	var counts struct {
		Count   int `db:"n"`
		Overdue int `db:"overdue"`
	}
	err = q.GetContext(ctx, &counts, `SELECT COUNT(*) AS n, COALESCE(SUM(expires_at <= ?), 0) AS overdue
		FROM orders WHERE status = 'pending'`+in, append([]any{now}, args...)...)
	return counts.Count, counts.Overdue, err
}

// DashboardOldestPending returns the oldest limit pending orders, oldest first, with movie, buyer and seat count, of cinemaIDs' shows (empty: every cinema).
func DashboardOldestPending(ctx context.Context, q Querier, limit int, cinemaIDs []int64) ([]*DashboardPendingOrder, error) {
	out := []*DashboardPendingOrder{}
	in, args := showOfCinemasClause("o.show_id", cinemaIDs)
	if err := q.SelectContext(ctx, &out, `SELECT o.order_no, o.show_id, m.title AS movie_title,
		COALESCE(u.email, '') AS user_email, o.total_minor, o.currency, o.created_at, o.expires_at,
		(SELECT COUNT(*) FROM order_seats os WHERE os.order_id = o.id AND os.exchanged_at IS NULL) AS seats
		FROM orders o JOIN shows s ON s.id = o.show_id JOIN movies m ON m.id = s.movie_id
		LEFT JOIN users u ON u.id = o.user_id
		WHERE o.status = 'pending'`+in+` ORDER BY o.created_at, o.id LIMIT ?`, append(args, limit)...); err != nil {
		return nil, err
	}
	return out, nil
}

// DashboardRevenue sums the orders paid now with paid_at in [from, to), less their part refunds, per currency, per movie and per hall (the last two largest first), of cinemaIDs' shows (empty: every cinema).
func DashboardRevenue(ctx context.Context, q Querier, from, to time.Time, cinemaIDs []int64) (totals, byMovie, byHall []*RevenueLine, err error) {
	in, inArgs := cinemaInClause("h.cinema_id", cinemaIDs)
	paid := `FROM orders o JOIN shows s ON s.id = o.show_id
		JOIN movies m ON m.id = s.movie_id JOIN halls h ON h.id = s.hall_id
		WHERE o.status = 'paid' AND o.paid_at >= ? AND o.paid_at < ?` + in
	// a paid order's revenue is what it kept: its total less its part refunds; its seats the live ones
	const sums = `COUNT(*) AS orders, COALESCE(SUM(o.total_minor -
			(SELECT COALESCE(SUM(rs.amount_minor), 0) FROM refund_seats rs WHERE rs.order_id = o.id)), 0) AS amount_minor,
		COALESCE(SUM((SELECT COUNT(*) FROM order_seats os WHERE os.order_id = o.id AND os.live = 1)), 0) AS seats`
	queries := []struct {
		dst *[]*RevenueLine
		q   string
	}{
		{&totals, `SELECT 0 AS id, '' AS name, o.currency, ` + sums + ` ` + paid +
			` GROUP BY o.currency ORDER BY o.currency`},
		{&byMovie, `SELECT m.id, m.title AS name, o.currency, ` + sums + ` ` + paid +
			` GROUP BY m.id, m.title, o.currency ORDER BY amount_minor DESC, m.title, o.currency`},
		{&byHall, `SELECT h.id, h.name, o.currency, ` + sums + ` ` + paid +
			` GROUP BY h.id, h.name, o.currency ORDER BY amount_minor DESC, h.name, o.currency`},
	}
	for _, query := range queries {
		*query.dst = []*RevenueLine{}
		if err := q.SelectContext(ctx, query.dst, query.q, append([]any{from, to}, inArgs...)...); err != nil {
			return nil, nil, nil, err
		}
	}
	return totals, byMovie, byHall, nil
}

// DashboardOrdersCreatedPerMinute counts the orders created in [start, end) per minute since start, of cinemaIDs' shows (empty: every cinema).
func DashboardOrdersCreatedPerMinute(ctx context.Context, q Querier, start, end time.Time, cinemaIDs []int64) ([]MinuteBucket, error) {
	return dashboardOrdersPerMinute(ctx, q, "created_at", start, end, cinemaIDs)
}

// DashboardOrdersPaidPerMinute counts the orders paid in [start, end) per minute since start, of cinemaIDs' shows (empty: every cinema).
func DashboardOrdersPaidPerMinute(ctx context.Context, q Querier, start, end time.Time, cinemaIDs []int64) ([]MinuteBucket, error) {
	return dashboardOrdersPerMinute(ctx, q, "paid_at", start, end, cinemaIDs)
}

// dashboardOrdersPerMinute counts the orders whose time column col falls in [start, end) per minute since start.
func dashboardOrdersPerMinute(ctx context.Context, q Querier, col string, start, end time.Time, cinemaIDs []int64) ([]MinuteBucket, error) {
	var rows []MinuteBucket
	in, args := showOfCinemasClause("show_id", cinemaIDs)
	err := q.SelectContext(ctx, &rows, `SELECT FLOOR(TIMESTAMPDIFF(SECOND, ?, `+col+`) / 60) AS b, COUNT(*) AS n
			FROM orders WHERE `+col+` >= ? AND `+col+` < ?`+in+` GROUP BY b`, append([]any{start, start, end}, args...)...)
	return rows, err
}
