package store

import (
	"context"
	"strings"
	"time"
)

// ReportBench is the sales report benchmark's chain (services/reports/bench_test.go):
// Halls (10 rows x 20 standard seats each, already created), a show in each at each of
// Slots times of day on each of Days days from First (UTC midnight), movies from Movies,
// OrdersPerShow paid orders of 1 to 3 seats (ticket types adult and child), UserID their
// buyer, in Currency.
type ReportBench struct {
	Halls         []int64
	Movies        []int64
	First         time.Time
	Days, Slots   int
	OrdersPerShow int
	UserID        int64
	Currency      string
}

// digitsSQL is the numbers 0..10^n−1 as column n of a derived table (cross joins of digits).
func digitsSQL(n int) string {
	d := "(SELECT 0 AS d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)"
	var from, sum []string
	p := "1"
	for i := 0; i < n; i++ {
		a := "d" + string(rune('0'+i))
		from = append(from, d+" "+a)
		sum = append(sum, a+".d * "+p)
		p += "0"
	}
	return "(SELECT " + strings.Join(sum, " + ") + " AS n FROM " + strings.Join(from, " CROSS JOIN ") + ")"
}

// ReportBenchInsertShows inserts the fixture's shows (Halls x Days x Slots, from 11:00 UTC every 3 hours, on sale from 30 days before) and returns the first and last show id.
func ReportBenchInsertShows(ctx context.Context, q Querier, f ReportBench) (first, last int64, err error) {
	in, args := cinemaInClause("h.id", f.Halls)
	movies, margs := cinemaInClause("id", f.Movies)
	_, err = q.ExecContext(ctx, `INSERT INTO shows (movie_id, hall_id, starts_at, sale_opens_at, sale_closes_at, status, purchase_limit, currency, created_at)
		SELECT m.id, h.id, ? + INTERVAL d.n DAY + INTERVAL (11 + 3 * sl.n) HOUR, ? + INTERVAL d.n DAY - INTERVAL 30 DAY,
			? + INTERVAL d.n DAY + INTERVAL (11 + 3 * sl.n) HOUR, 'scheduled', 10, ?, ?
		FROM halls h CROSS JOIN `+digitsSQL(3)+` d CROSS JOIN `+digitsSQL(1)+` sl
		JOIN (SELECT id, ROW_NUMBER() OVER (ORDER BY id) - 1 AS k FROM movies WHERE 1 = 1`+movies+`) m
			ON m.k = (d.n * 7 + sl.n * 3 + h.id) % ?
		WHERE d.n < ? AND sl.n < ?`+in,
		append(append(append([]any{f.First, f.First, f.First, f.Currency, f.First}, margs...), len(f.Movies), f.Days, f.Slots), args...)...)
	if err != nil {
		return 0, 0, err
	}
	var r struct {
		First int64 `db:"a"`
		Last  int64 `db:"b"`
	}
	err = q.GetContext(ctx, &r, `SELECT MIN(s.id) AS a, MAX(s.id) AS b FROM shows s JOIN halls h ON h.id = s.hall_id WHERE 1 = 1`+in, args...)
	return r.First, r.Last, err
}

// ReportBenchInsertSales inserts the orders of shows fromID..toID with their seats and refunds: OrdersPerShow orders a show, paid 1 to 30 days (and some hours) before it starts; every 5th at the box office; every 10th with a 20 % voucher on each seat; one in 50 refunded whole a day after it was paid (status refunded, seats no longer live). Adult seats list at 1200, child ones at 800.
func ReportBenchInsertSales(ctx context.Context, q Querier, f ReportBench, fromID, toID int64) error {
	_, err := q.ExecContext(ctx, `INSERT INTO orders (order_no, user_id, show_id, status, channel, total_minor, currency, created_at, expires_at, paid_at)
		SELECT CONCAT('RB', s.id, '-', n.n), ?, s.id, IF((s.id + n.n) % 50 = 7, 'refunded', 'paid'),
			IF(n.n % 5 = 0, 'box_office', 'online'), 0, s.currency,
			s.starts_at - INTERVAL (1 + (s.id * 13 + n.n * 7) % 30) DAY - INTERVAL ((s.id + n.n * 5) % 600) MINUTE,
			s.starts_at, s.starts_at - INTERVAL (1 + (s.id * 13 + n.n * 7) % 30) DAY - INTERVAL ((s.id + n.n * 5) % 600) MINUTE
		FROM shows s CROSS JOIN `+digitsSQL(2)+` n
		WHERE s.id BETWEEN ? AND ? AND n.n BETWEEN 1 AND ?`, f.UserID, fromID, toID, f.OrdersPerShow)
	if err != nil {
		return err
	}
	// seat j of order n: position (n − 1) * 3 + j of the hall, row by row
	_, err = q.ExecContext(ctx, `INSERT INTO order_seats (order_id, show_id, seat_id, zone_code, ticket_type, price_minor, discount_minor, live)
		SELECT o.id, o.show_id, se.id, 'standard', IF((o.id + j.n) % 4 = 0, 'child', 'adult'),
			IF((o.id + j.n) % 4 = 0, 800, 1200) - IF(o.id % 10 = 3, IF((o.id + j.n) % 4 = 0, 160, 240), 0),
			IF(o.id % 10 = 3, IF((o.id + j.n) % 4 = 0, 160, 240), NULL), IF(o.status = 'paid', 1, NULL)
		FROM orders o JOIN shows s ON s.id = o.show_id CROSS JOIN `+digitsSQL(1)+` j
		JOIN seats se ON se.hall_id = s.hall_id
			AND se.row_no = 1 + ((CAST(SUBSTRING_INDEX(o.order_no, '-', -1) AS UNSIGNED) - 1) * 3 + j.n) DIV 20
			AND se.col_no = 1 + ((CAST(SUBSTRING_INDEX(o.order_no, '-', -1) AS UNSIGNED) - 1) * 3 + j.n) % 20
		WHERE o.show_id BETWEEN ? AND ? AND o.order_no LIKE 'RB%' AND j.n <= o.id % 3`, fromID, toID)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, `INSERT INTO refunds (refund_id, order_id, amount_minor, currency, reason, created_at)
		SELECT CONCAT('rb-', o.id), o.id, SUM(os.price_minor), o.currency, 'bench', o.paid_at + INTERVAL 1 DAY
		FROM orders o JOIN order_seats os ON os.order_id = o.id
		WHERE o.show_id BETWEEN ? AND ? AND o.status = 'refunded' AND o.order_no LIKE 'RB%'
		GROUP BY o.id, o.currency, o.paid_at`, fromID, toID)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, `INSERT INTO refund_seats (refund_id, order_id, seat_id, amount_minor)
		SELECT r.id, os.order_id, os.seat_id, os.price_minor
		FROM orders o JOIN refunds r ON r.order_id = o.id JOIN order_seats os ON os.order_id = o.id
		WHERE o.show_id BETWEEN ? AND ? AND o.status = 'refunded' AND o.order_no LIKE 'RB%'`, fromID, toID)
	return err
}

// ReportBenchCounts counts the orders and order seats of the whole database.
func ReportBenchCounts(ctx context.Context, q Querier) (orders, seats int64, err error) {
	if err = q.GetContext(ctx, &orders, `SELECT COUNT(*) FROM orders`); err != nil {
		return 0, 0, err
	}
	err = q.GetContext(ctx, &seats, `SELECT COUNT(*) FROM order_seats`)
	return orders, seats, err
}

// ReportBenchFullScan is the ceiling the report is measured against: a plain full scan of order_seats summing a column of each row (no index answers it); it returns the sum.
func ReportBenchFullScan(ctx context.Context, q Querier) (int64, error) {
	var n int64
	err := q.GetContext(ctx, &n, `SELECT COALESCE(SUM(price_minor), 0) FROM order_seats`)
	return n, err
}

// ExplainRow is one line of MariaDB's EXPLAIN (the columns the benchmark prints).
type ExplainRow struct {
	ID           *int64  `db:"id"`
	SelectType   string  `db:"select_type"`
	Table        *string `db:"table"`
	Type         *string `db:"type"`
	PossibleKeys *string `db:"possible_keys"`
	Key          *string `db:"key"`
	KeyLen       *string `db:"key_len"`
	Ref          *string `db:"ref"`
	Rows         *int64  `db:"rows"`
	Extra        *string `db:"Extra"`
}

// ExplainSalesReport returns EXPLAIN of the report sq's statement.
func ExplainSalesReport(ctx context.Context, q Querier, sq SalesQuery) ([]ExplainRow, error) {
	query, args, err := salesReportSQL(sq)
	if err != nil {
		return nil, err
	}
	var rows []ExplainRow
	err = q.SelectContext(ctx, &rows, "EXPLAIN "+query, args...)
	return rows, err
}
