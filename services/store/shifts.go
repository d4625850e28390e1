package store

import (
	"context"
	"errors"
	"strconv"
	"time"
)

// ErrShiftOpen is a shift opened by a staff member who has one open already (uq_shifts_open).
var ErrShiftOpen = errors.New("store: a shift is open already")

// Shift is a staff member's shift at a cinema's counter (table shifts): money in minor
// units of Currency, times UTC; the close's fields are nil while it is open.
type Shift struct {
	ID                int64      `db:"id"`
	StaffID           int64      `db:"staff_id"`
	StaffEmail        string     `db:"staff_email"`
	CinemaID          int64      `db:"cinema_id"`
	CinemaName        string     `db:"cinema_name"`
	Currency          string     `db:"currency"`
	FloatMinor        int64      `db:"float_minor"`
	OpenedAt          time.Time  `db:"opened_at"`
	ClosedAt          *time.Time `db:"closed_at"`
	ClosedBy          *int64     `db:"closed_by"`
	ClosedByEmail     string     `db:"closed_by_email"`
	CountedMinor      *int64     `db:"counted_minor"`
	ExpectedCashMinor *int64     `db:"expected_cash_minor"`
	CardMinor         *int64     `db:"card_minor"`
	Note              string     `db:"note"`       // written when the shift opened
	CloseNote         string     `db:"close_note"` // written when it closed
}

// IDString is the shift's id as the API and the audit log name it.
func (s *Shift) IDString() string { return strconv.FormatInt(s.ID, 10) }

const shiftColumns = `s.id, s.staff_id, u.email AS staff_email, s.cinema_id, c.name AS cinema_name, s.currency, s.float_minor,
	s.opened_at, s.closed_at, s.closed_by, COALESCE(cb.email, '') AS closed_by_email, s.counted_minor, s.expected_cash_minor,
	s.card_minor, s.note, s.close_note
	FROM shifts s JOIN users u ON u.id = s.staff_id JOIN cinemas c ON c.id = s.cinema_id LEFT JOIN users cb ON cb.id = s.closed_by`

// InsertShift opens shift sh (its ID is set). Errors: ErrShiftOpen.
func InsertShift(ctx context.Context, q Querier, sh *Shift) error {
	res, err := q.ExecContext(ctx, `INSERT INTO shifts (staff_id, cinema_id, currency, float_minor, opened_at, note)
		VALUES (?, ?, ?, ?, ?, ?)`, sh.StaffID, sh.CinemaID, sh.Currency, sh.FloatMinor, sh.OpenedAt, sh.Note)
	if DuplicateOn(err, "uq_shifts_open") {
		return ErrShiftOpen
	}
	if err != nil {
		return err
	}
	sh.ID, err = res.LastInsertId()
	return err
}

// OpenShiftOf returns staffID's open shift (sql.ErrNoRows: none).
func OpenShiftOf(ctx context.Context, q Querier, staffID int64) (*Shift, error) {
	sh := &Shift{}
	return sh, q.GetContext(ctx, sh, "SELECT "+shiftColumns+" WHERE s.staff_id = ? AND s.open_key = 1", staffID)
}

// ShiftByID returns shift id (sql.ErrNoRows: none).
func ShiftByID(ctx context.Context, q Querier, id int64) (*Shift, error) {
	sh := &Shift{}
	return sh, q.GetContext(ctx, sh, "SELECT "+shiftColumns+" WHERE s.id = ?", id)
}

// LockShift returns shift id read for update (sql.ErrNoRows: none).
func LockShift(ctx context.Context, q Querier, id int64) (*Shift, error) {
	sh := &Shift{}
	return sh, q.GetContext(ctx, sh, "SELECT "+shiftColumns+" WHERE s.id = ? FOR UPDATE", id)
}

// CloseShift closes open shift sh.ID with its close fields and returns the rows changed.
func CloseShift(ctx context.Context, q Querier, sh *Shift) (int64, error) {
	res, err := q.ExecContext(ctx, `UPDATE shifts SET closed_at = ?, closed_by = ?, counted_minor = ?, expected_cash_minor = ?,
		card_minor = ?, close_note = ?, open_key = NULL WHERE id = ? AND open_key = 1`,
		sh.ClosedAt, sh.ClosedBy, sh.CountedMinor, sh.ExpectedCashMinor, sh.CardMinor, sh.CloseNote, sh.ID)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// ListShifts returns the newest limit shifts of cinemaIDs (empty: every cinema), of staffID only when not 0.
func ListShifts(ctx context.Context, q Querier, cinemaIDs []int64, staffID int64, limit int) ([]*Shift, error) {
	in, args := cinemaInClause("s.cinema_id", cinemaIDs)
	query := "SELECT " + shiftColumns + " WHERE 1 = 1" + in
	if staffID != 0 {
		query += " AND s.staff_id = ?"
		args = append(args, staffID)
	}
	out := []*Shift{}
	err := q.SelectContext(ctx, &out, query+" ORDER BY s.opened_at DESC, s.id DESC LIMIT ?", append(args, limit)...)
	return out, err
}

// TenderTotal is money of one tender (cash, card) of a shift: Count orders or refunds, Minor their sum.
type TenderTotal struct {
	Tender string `db:"tender"`
	Count  int    `db:"n"`
	Minor  int64  `db:"minor"`
}

// ShiftSales sums the counter sales recorded against shift shiftID by tender (each order's total as paid, whatever happened to it later).
func ShiftSales(ctx context.Context, q Querier, shiftID int64) ([]TenderTotal, error) {
	var out []TenderTotal
	err := q.SelectContext(ctx, &out, `SELECT b.tender, COUNT(*) AS n, COALESCE(SUM(o.total_minor), 0) AS minor
		FROM box_office_sales b JOIN orders o ON o.id = b.order_id WHERE b.shift_id = ? AND o.paid_at IS NOT NULL
		GROUP BY b.tender`, shiftID)
	return out, err
}

// ShiftRefunds sums by the sale's tender the refunds of counter orders that staffID made in [from, to) (refunds.actor_id, created_at).
func ShiftRefunds(ctx context.Context, q Querier, staffID int64, from, to time.Time) ([]TenderTotal, error) {
	var out []TenderTotal
	err := q.SelectContext(ctx, &out, `SELECT b.tender, COUNT(*) AS n, COALESCE(SUM(r.amount_minor), 0) AS minor
		FROM refunds r JOIN box_office_sales b ON b.order_id = r.order_id
		WHERE r.actor_id = ? AND r.created_at >= ? AND r.created_at < ? GROUP BY b.tender`, staffID, from, to)
	return out, err
}
