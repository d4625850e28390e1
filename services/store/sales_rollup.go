package store

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// RolledDays is the local dates From..To (UTC midnights standing for dates, both
// included) of a zone's cinemas, read from the sales rollup (DESIGN.md "Sales rollup").
type RolledDays struct {
	CinemaIDs []int64
	From, To  time.Time
}

// CinemaDay is a cinema's local date (a UTC midnight standing for the date).
type CinemaDay struct {
	CinemaID int64     `db:"cinema_id"`
	Day      time.Time `db:"local_day"`
}

// SalesDaysRolled returns the (cinema, local date) pairs of cinemaIDs over the dates
// from..to (UTC midnights, both included) that are rolled up (sales_days).
func SalesDaysRolled(ctx context.Context, q Querier, cinemaIDs []int64, from, to time.Time) ([]CinemaDay, error) {
	if len(cinemaIDs) == 0 {
		return nil, nil
	}
	query, args, err := sqlx.In(`SELECT cinema_id, local_day FROM sales_days WHERE cinema_id IN (?) AND local_day BETWEEN ? AND ?`,
		cinemaIDs, from.Format(time.DateOnly), to.Format(time.DateOnly))
	if err != nil {
		return nil, err
	}
	var out []CinemaDay
	if err := q.SelectContext(ctx, &out, query, args...); err != nil {
		return nil, err
	}
	for i := range out {
		d := out[i].Day
		out[i].Day = time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC)
	}
	return out, nil
}

// RollUpSales rolls up days (cinemas of zone z, whose From..To covers every day's UTC
// range) in one READ COMMITTED transaction: it marks each day in sales_days with a random
// token (INSERT IGNORE: a day another transaction marked, or is marking, is skipped after
// that one commits), then computes the figures of the days it marked from orders,
// order_seats and refunds (consistent reads, no locks on them) into sales_day_totals and
// sales_day_shows. It returns how many days it marked; two calls at once over one day add
// its figures once. A deadlock reruns the whole transaction (TxAttempts).
func RollUpSales(ctx context.Context, db *sqlx.DB, z SalesZone, days []CinemaDay, now time.Time) (int64, error) {
	if len(days) == 0 {
		return 0, nil
	}
	var marked int64
	var err error
	for attempt := 0; attempt < TxAttempts; attempt++ {
		if marked, err = rollUpTx(ctx, db, z, days, now); !IsRetryable(err) {
			return marked, err
		}
		RetryPause(attempt)
	}
	return marked, err
}

func rollUpTx(ctx context.Context, db *sqlx.DB, z SalesZone, days []CinemaDay, now time.Time) (int64, error) {
	tx, err := db.BeginTxx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	token := rand.Int64()
	var b strings.Builder
	args := make([]any, 0, 4*len(days))
	b.WriteString("INSERT IGNORE INTO sales_days (cinema_id, local_day, token, rolled_at) VALUES ")
	for i, d := range days {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("(?,?,?,?)")
		args = append(args, d.CinemaID, d.Day.Format(time.DateOnly), token, now.UTC())
	}
	res, err := tx.ExecContext(ctx, b.String(), args...)
	if err != nil {
		return 0, err
	}
	marked, err := res.RowsAffected()
	if err != nil || marked == 0 {
		return 0, err
	}
	zones := []SalesZone{z}
	lo, hi := z.From.UTC(), z.To.UTC()
	for _, part := range []struct {
		into, cols, inner, outerKeys string
		soldKeys, refKeys            string
	}{
		{into: "sales_day_totals (cinema_id, local_day, ticket_type, channel, currency, orders, seats, gross, discount, refunded)",
			cols: "x.ticket_type, x.channel, x.currency", outerKeys: "x.ticket_type, x.channel, x.currency",
			// WITH ROLLUP's row of NULL ticket type is the (day, channel, currency)'s distinct orders
			soldKeys: "o.channel, o.currency, os.ticket_type", refKeys: "os.ticket_type, o.channel, o.currency"},
		{into: "sales_day_shows (cinema_id, local_day, show_id, currency, orders, seats, gross, discount, refunded)",
			cols: "x.show_id, x.currency", outerKeys: "x.show_id, x.currency",
			soldKeys: "o.show_id, o.currency", refKeys: "o.show_id, o.currency"},
	} {
		soldDay, soldDayArgs := localDaySQL("o.paid_at", zones)
		refDay, refDayArgs := localDaySQL("r.created_at", zones)
		soldIn, soldInArgs := inZonesSQL("o.paid_at", zones)
		refIn, refInArgs := inZonesSQL("r.created_at", zones)
		sold := `SELECT STRAIGHT_JOIN h.cinema_id, ` + soldDay + ` AS d, ` + part.soldKeys + `,
				COUNT(DISTINCT o.id) AS orders, COUNT(*) AS seats, SUM(os.price_minor + COALESCE(os.discount_minor, 0)) AS gross,
				SUM(COALESCE(os.discount_minor, 0)) AS discount, 0 AS refunded
			FROM orders o JOIN shows s ON s.id = o.show_id JOIN halls h ON h.id = s.hall_id JOIN order_seats os ON os.order_id = o.id
			WHERE o.paid_at >= ? AND o.paid_at < ? AND ` + soldIn + `
				AND (os.live = 1 OR EXISTS (SELECT 1 FROM refund_seats rs WHERE rs.order_id = os.order_id AND rs.seat_id = os.seat_id))
			GROUP BY h.cinema_id, d, ` + part.soldKeys
		refunded := `SELECT STRAIGHT_JOIN h.cinema_id, ` + refDay + ` AS d, ` + part.refKeys + `,
				0 AS orders, 0 AS seats, 0 AS gross, 0 AS discount, SUM(rs.amount_minor) AS refunded
			FROM refunds r JOIN refund_seats rs ON rs.refund_id = r.id
			JOIN order_seats os ON os.order_id = rs.order_id AND os.seat_id = rs.seat_id
			JOIN orders o ON o.id = rs.order_id JOIN shows s ON s.id = o.show_id JOIN halls h ON h.id = s.hall_id
			WHERE r.created_at >= ? AND r.created_at < ? AND ` + refIn + `
			GROUP BY h.cinema_id, d, ` + part.refKeys
		q := sold + ` UNION ALL ` + refunded
		if strings.HasPrefix(part.into, "sales_day_totals") {
			// the rollup's NULL ticket type row keeps only its orders; its coarser rows go
			q = `SELECT cinema_id, d, COALESCE(ticket_type, '') AS ticket_type, channel, currency,
					orders, IF(ticket_type IS NULL, 0, seats) AS seats,
					IF(ticket_type IS NULL, 0, gross) AS gross, IF(ticket_type IS NULL, 0, discount) AS discount, refunded
				FROM (` + sold + ` WITH ROLLUP) so WHERE currency IS NOT NULL
				UNION ALL ` + refunded
		}
		stmt := `INSERT INTO ` + part.into + `
			SELECT x.cinema_id, m.local_day, ` + part.cols + `, SUM(x.orders), SUM(x.seats), SUM(x.gross), SUM(x.discount), SUM(x.refunded)
			FROM (` + q + `) x STRAIGHT_JOIN sales_days m ON m.cinema_id = x.cinema_id AND m.local_day = FROM_DAYS(x.d) AND m.token = ?
			GROUP BY x.cinema_id, m.local_day, ` + part.outerKeys
		var a []any
		a = append(a, soldDayArgs...)
		a = append(a, lo, hi)
		a = append(a, soldInArgs...)
		a = append(a, refDayArgs...)
		a = append(a, lo, hi)
		a = append(a, refInArgs...)
		a = append(a, token)
		if _, err := tx.ExecContext(ctx, stmt, a...); err != nil {
			return 0, err
		}
	}
	return marked, tx.Commit()
}

// DropSalesRollup forgets the rollup of the local dates from..to (UTC midnights, both
// included) of cinemaIDs (none: every cinema) in one transaction, so the next report
// covering them rolls them up afresh from orders and refunds; it returns the days dropped.
func DropSalesRollup(ctx context.Context, db *sqlx.DB, cinemaIDs []int64, from, to time.Time) (int64, error) {
	where := " WHERE local_day BETWEEN ? AND ?"
	args := []any{from.Format(time.DateOnly), to.Format(time.DateOnly)}
	if len(cinemaIDs) > 0 {
		ids := make([]string, len(cinemaIDs))
		for i, id := range cinemaIDs {
			ids[i] = strconv.FormatInt(id, 10)
		}
		where += " AND cinema_id IN (" + strings.Join(ids, ",") + ")"
	}
	var days int64
	err := InTx(ctx, db, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, "DELETE FROM sales_days"+where, args...)
		if err != nil {
			return err
		}
		if days, err = res.RowsAffected(); err != nil {
			return err
		}
		for _, t := range []string{"sales_day_totals", "sales_day_shows"} {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+t+where, args...); err != nil {
				return err
			}
		}
		return nil
	})
	return days, err
}

// ForgetCinemaSalesRollup drops every rolled-up day of cinema id (its days were cut in its
// old time zone), in the caller's transaction; the next report rolls them up again.
func ForgetCinemaSalesRollup(ctx context.Context, q Querier, id int64) error {
	for _, t := range []string{"sales_days", "sales_day_totals", "sales_day_shows"} {
		if _, err := q.ExecContext(ctx, "DELETE FROM "+t+" WHERE cinema_id = ?", id); err != nil {
			return err
		}
	}
	return nil
}

// rolledSQL is the grouped select of report by over the rolled-up days of rolled, in the
// columns of salesParts' selects (k, currency, orders, seats, gross, discount, refunded).
func rolledSQL(by string, rolled []RolledDays) (string, []any) {
	var parts []string
	var args []any
	for _, r := range rolled {
		ids := make([]string, len(r.CinemaIDs))
		for i, id := range r.CinemaIDs {
			ids[i] = strconv.FormatInt(id, 10)
		}
		parts = append(parts, "(t.cinema_id IN ("+strings.Join(ids, ",")+") AND t.local_day BETWEEN ? AND ?)")
		args = append(args, r.From.Format(time.DateOnly), r.To.Format(time.DateOnly))
	}
	where := "(" + strings.Join(parts, " OR ") + ")"
	sums := `SUM(t.seats) AS seats, SUM(t.gross) AS gross, SUM(t.discount) AS discount, SUM(t.refunded) AS refunded`
	dayOrders := `SUM(IF(t.ticket_type = '', t.orders, 0)) AS orders, `
	switch by {
	case "day":
		return `SELECT TO_DAYS(t.local_day) AS k, t.currency, ` + dayOrders + sums + ` FROM sales_day_totals t WHERE ` + where + ` GROUP BY k, t.currency`, args
	case "channel":
		return `SELECT t.channel AS k, t.currency, ` + dayOrders + sums + ` FROM sales_day_totals t WHERE ` + where + ` GROUP BY k, t.currency`, args
	case "ticket_type":
		return `SELECT t.ticket_type AS k, t.currency, SUM(t.orders) AS orders, ` + sums + ` FROM sales_day_totals t WHERE ` + where + ` AND t.ticket_type <> '' GROUP BY k, t.currency`, args
	case "show":
		return `SELECT t.show_id AS k, t.currency, SUM(t.orders) AS orders, ` + sums + ` FROM sales_day_shows t WHERE ` + where + ` GROUP BY k, t.currency`, args
	default: // movie
		return `SELECT STRAIGHT_JOIN s.movie_id AS k, t.currency, SUM(t.orders) AS orders, ` + sums + ` FROM sales_day_shows t JOIN shows s ON s.id = t.show_id WHERE ` + where + ` GROUP BY k, t.currency`, args
	}
}

// rolledOrdersSQL counts the distinct orders per currency of the rolled-up days.
func rolledOrdersSQL(rolled []RolledDays) (string, []any) {
	q, args := rolledSQL("day", rolled)
	return `SELECT r.currency, SUM(r.orders) AS orders FROM (` + q + `) r GROUP BY r.currency`, args
}
