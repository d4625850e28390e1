package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SalesZone is the cinemas of one time zone with the zone's UTC offsets over a report's
// range: Spans in time order, each offset (seconds east of UTC) holding for the instants
// before its Until; the last span's Until is ignored (it holds to the end). From and To
// are the UTC range [From, To) of the report's local days in that zone.
type SalesZone struct {
	CinemaIDs []int64
	Spans     []OffsetSpan
	From, To  time.Time
}

// OffsetSpan is a zone's offset from UTC (seconds) up to the instant Until (UTC).
type OffsetSpan struct {
	Until         time.Time
	OffsetSeconds int
}

// SalesQuery is one sales report to read: By (day, show, movie, ticket_type, channel),
// the local dates FromDate..ToDate (YYYY-MM-DD, both included) of each zone's cinemas, and
// Lo, Hi, a UTC range holding every zone's local days of the report (the index's range;
// the local date decides). Zones are read live from orders and refunds; Rolled, days of
// other zones or other days (never the same), from the rollup (sales_rollup.go).
type SalesQuery struct {
	By               string
	FromDate, ToDate string
	Lo, Hi           time.Time
	Zones            []SalesZone
	Rolled           []RolledDays
}

// SalesRow is one line of a sales report: Key (a local date, a show, movie or ticket type
// id or code, a channel) in Currency, with Orders paid and Seats sold in the range, their
// list prices (GrossMinor), voucher savings (DiscountMinor) and the money refunded in the
// range (RefundedMinor), minor units. Name is the movie title or the ticket type's English
// name, NameZh its Chinese one; StartsAt, HallName and TimeZone describe a show.
type SalesRow struct {
	Key           string     `db:"k"`
	Currency      string     `db:"currency"`
	Orders        int64      `db:"orders"`
	Seats         int64      `db:"seats"`
	GrossMinor    int64      `db:"gross"`
	DiscountMinor int64      `db:"discount"`
	RefundedMinor int64      `db:"refunded"`
	Name          string     `db:"name"`
	NameZh        string     `db:"name_zh"`
	StartsAt      *time.Time `db:"starts_at"`
	HallName      string     `db:"hall_name"`
	TimeZone      string     `db:"time_zone"`
}

// salesKeys is each report's key of a seat's row (aliases o orders, os order_seats, s
// shows), with the date column standing for the local date, and how the report sorts.
var salesKeys = map[string]struct{ key, label, order string }{
	"day": {order: "g.k, g.currency"}, // the key is the local day number of the row's instant
	"show": {key: "o.show_id", order: "ls.starts_at, g.k, g.currency",
		label: ` LEFT JOIN shows ls ON ls.id = g.k LEFT JOIN movies lm ON lm.id = ls.movie_id
			LEFT JOIN halls lh ON lh.id = ls.hall_id LEFT JOIN cinemas lc ON lc.id = lh.cinema_id`},
	"movie": {key: "s.movie_id", order: "name, g.k, g.currency", label: ` LEFT JOIN movies lm ON lm.id = g.k`},
	"ticket_type": {key: "os.ticket_type", order: "g.k, g.currency",
		label: ` LEFT JOIN ticket_types lt ON lt.code = g.k`},
	"channel": {key: "o.channel", order: "FIELD(g.k, 'online', 'box_office'), g.k, g.currency"},
}

// salesLabels is each report's label columns of the outer select.
var salesLabels = map[string]string{
	"day":         `'' AS name, '' AS name_zh, NULL AS starts_at, '' AS hall_name, '' AS time_zone`,
	"show":        `COALESCE(lm.title, '') AS name, '' AS name_zh, ls.starts_at, COALESCE(lh.name, '') AS hall_name, COALESCE(lc.time_zone, '') AS time_zone`,
	"movie":       `COALESCE(lm.title, '') AS name, '' AS name_zh, NULL AS starts_at, '' AS hall_name, '' AS time_zone`,
	"ticket_type": `COALESCE(lt.name_en, '') AS name, COALESCE(lt.name_zh, '') AS name_zh, NULL AS starts_at, '' AS hall_name, '' AS time_zone`,
	"channel":     `'' AS name, '' AS name_zh, NULL AS starts_at, '' AS hall_name, '' AS time_zone`,
}

// localDaySQL is the local day number (TO_DAYS of the local date) of the instant column
// col in its hall's cinema's zone (alias h: halls), from the zones' offsets: integer
// arithmetic per row, the date formatted once per group; NULL for a cinema of no zone.
func localDaySQL(col string, zones []SalesZone) (string, []any) {
	var b strings.Builder
	var args []any
	b.WriteString("((TO_SECONDS(" + col + ") + CASE")
	for _, z := range zones {
		if len(z.CinemaIDs) == 0 || len(z.Spans) == 0 {
			continue
		}
		b.WriteString(" WHEN h.cinema_id IN (")
		for i, id := range z.CinemaIDs {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(strconv.FormatInt(id, 10))
		}
		b.WriteString(") THEN ")
		if len(z.Spans) == 1 {
			b.WriteString(strconv.Itoa(z.Spans[0].OffsetSeconds))
			continue
		}
		b.WriteString("CASE")
		for _, s := range z.Spans[:len(z.Spans)-1] {
			b.WriteString(" WHEN " + col + " < ? THEN " + strconv.Itoa(s.OffsetSeconds))
			args = append(args, s.Until.UTC())
		}
		b.WriteString(" ELSE " + strconv.Itoa(z.Spans[len(z.Spans)-1].OffsetSeconds) + " END")
	}
	b.WriteString(" END) DIV 86400)")
	return b.String(), args
}

// inZonesSQL is the condition "the instant column col falls in the report's local days
// of its hall's cinema's zone" (alias h: halls): one UTC range per zone; FALSE without
// zones.
func inZonesSQL(col string, zones []SalesZone) (string, []any) {
	var parts []string
	var args []any
	for _, z := range zones {
		if len(z.CinemaIDs) == 0 {
			continue
		}
		ids := make([]string, len(z.CinemaIDs))
		for i, id := range z.CinemaIDs {
			ids[i] = strconv.FormatInt(id, 10)
		}
		parts = append(parts, "(h.cinema_id IN ("+strings.Join(ids, ",")+") AND "+col+" >= ? AND "+col+" < ?)")
		args = append(args, z.From.UTC(), z.To.UTC())
	}
	if len(parts) == 0 {
		return "FALSE", nil
	}
	return "(" + strings.Join(parts, " OR ") + ")", args
}

// salesParts returns the two grouped selects of a report, the seats sold (dated by
// orders.paid_at) and the seats refunded (dated by refunds.created_at), with their args.
// A seat sold is a seat of a paid order (paid_at set) that is live or was refunded; a
// seat exchanged away (no longer live, never refunded) is not one. Both read from the
// time index (ix_orders_paid, ix_refunds_created) outwards, a range of orders or
// refunds first, then their shows, halls and seats.
func salesParts(sq SalesQuery) (sold string, soldArgs []any, refunded string, refundedArgs []any, err error) {
	k, ok := salesKeys[sq.By]
	if !ok {
		return "", nil, "", nil, fmt.Errorf("store: unknown sales report %q", sq.By)
	}
	soldIn, soldInArgs := inZonesSQL("o.paid_at", sq.Zones)
	refIn, refInArgs := inZonesSQL("r.created_at", sq.Zones)
	soldKey, refKey := k.key, k.key
	var soldKeyArgs, refKeyArgs []any
	if sq.By == "day" {
		soldKey, soldKeyArgs = localDaySQL("o.paid_at", sq.Zones)
		refKey, refKeyArgs = localDaySQL("r.created_at", sq.Zones)
	}
	sold = `SELECT STRAIGHT_JOIN ` + soldKey + ` AS k, o.currency, COUNT(DISTINCT o.id) AS orders, COUNT(*) AS seats,
			SUM(os.price_minor + COALESCE(os.discount_minor, 0)) AS gross, SUM(COALESCE(os.discount_minor, 0)) AS discount, 0 AS refunded
		FROM orders o JOIN shows s ON s.id = o.show_id JOIN halls h ON h.id = s.hall_id JOIN order_seats os ON os.order_id = o.id
		WHERE o.paid_at >= ? AND o.paid_at < ? AND ` + soldIn + `
			AND (os.live = 1 OR EXISTS (SELECT 1 FROM refund_seats rs WHERE rs.order_id = os.order_id AND rs.seat_id = os.seat_id))
		GROUP BY k, o.currency`
	soldArgs = append(append(soldKeyArgs, sq.Lo.UTC(), sq.Hi.UTC()), soldInArgs...)
	refunded = `SELECT STRAIGHT_JOIN ` + refKey + ` AS k, o.currency, 0 AS orders, 0 AS seats, 0 AS gross, 0 AS discount, SUM(rs.amount_minor) AS refunded
		FROM refunds r JOIN refund_seats rs ON rs.refund_id = r.id
		JOIN order_seats os ON os.order_id = rs.order_id AND os.seat_id = rs.seat_id
		JOIN orders o ON o.id = rs.order_id JOIN shows s ON s.id = o.show_id JOIN halls h ON h.id = s.hall_id
		WHERE r.created_at >= ? AND r.created_at < ? AND ` + refIn + `
		GROUP BY k, o.currency`
	refundedArgs = append(append(refKeyArgs, sq.Lo.UTC(), sq.Hi.UTC()), refInArgs...)
	return sold, soldArgs, refunded, refundedArgs, nil
}

// SalesReport reads the report sq, one row per key and currency in the report's order
// (day: by date; show: by start; movie: by title; ticket_type: by code; channel: online,
// box_office), calling emit with each row as it is read (the row is reused: copy it to
// keep it); an emit error stops the read and is returned.
func SalesReport(ctx context.Context, q Querier, sq SalesQuery, emit func(*SalesRow) error) error {
	query, args, err := salesReportSQL(sq)
	if err != nil {
		return err
	}
	rows, err := q.QueryxContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var r SalesRow
	for rows.Next() {
		r = SalesRow{}
		if err := rows.StructScan(&r); err != nil {
			return err
		}
		if err := emit(&r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// salesReportSQL is the statement of report sq and its args: the seats sold and the
// refunds of the live days, each grouped by key and currency, and the rolled-up days'
// figures, summed per key and currency, labelled.
func salesReportSQL(sq SalesQuery) (string, []any, error) {
	sold, soldArgs, refunded, refundedArgs, err := salesParts(sq)
	if err != nil {
		return "", nil, err
	}
	var parts []string
	var args []any
	if len(sq.Zones) > 0 || len(sq.Rolled) == 0 {
		parts = append(parts, sold, refunded)
		args = append(append(args, soldArgs...), refundedArgs...)
	}
	if len(sq.Rolled) > 0 {
		r, rArgs := rolledSQL(sq.By, sq.Rolled)
		parts = append(parts, r)
		args = append(args, rArgs...)
	}
	k := salesKeys[sq.By]
	key := "g.k"
	if sq.By == "day" {
		key = "DATE_FORMAT(FROM_DAYS(g.k), '%Y-%m-%d') AS k"
	}
	query := `SELECT ` + key + `, g.currency, g.orders, g.seats, g.gross, g.discount, g.refunded, ` + salesLabels[sq.By] + `
		FROM (SELECT x.k, x.currency, SUM(x.orders) AS orders, SUM(x.seats) AS seats, SUM(x.gross) AS gross,
				SUM(x.discount) AS discount, SUM(x.refunded) AS refunded
			FROM (` + strings.Join(parts, " UNION ALL ") + `) x GROUP BY x.k, x.currency) g` + k.label + `
		ORDER BY ` + k.order
	return query, args, nil
}

// SalesOrdersPerCurrency counts the distinct orders paid in sq's range per currency (an
// order with seats of two ticket types is one order): of the live days, orders with a
// seat sold, each checked until its first such seat; of the rolled-up days, their sums.
func SalesOrdersPerCurrency(ctx context.Context, q Querier, sq SalesQuery) (map[string]int64, error) {
	out := map[string]int64{}
	var rows []struct {
		Currency string `db:"currency"`
		Orders   int64  `db:"orders"`
	}
	if len(sq.Rolled) > 0 {
		query, args := rolledOrdersSQL(sq.Rolled)
		if err := q.SelectContext(ctx, &rows, query, args...); err != nil {
			return nil, err
		}
		for _, r := range rows {
			out[r.Currency] += r.Orders
		}
		if len(sq.Zones) == 0 {
			return out, nil
		}
		rows = nil
	}
	in, inArgs := inZonesSQL("o.paid_at", sq.Zones)
	err := q.SelectContext(ctx, &rows, `SELECT STRAIGHT_JOIN o.currency, COUNT(*) AS orders
		FROM orders o JOIN shows s ON s.id = o.show_id JOIN halls h ON h.id = s.hall_id
		WHERE o.paid_at >= ? AND o.paid_at < ? AND `+in+`
			AND EXISTS (SELECT 1 FROM order_seats os WHERE os.order_id = o.id
				AND (os.live = 1 OR EXISTS (SELECT 1 FROM refund_seats rs WHERE rs.order_id = os.order_id AND rs.seat_id = os.seat_id)))
		GROUP BY o.currency`, append([]any{sq.Lo.UTC(), sq.Hi.UTC()}, inArgs...)...)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.Currency] += r.Orders
	}
	return out, nil
}
