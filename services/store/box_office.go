package store

import (
	"context"
	"time"
)

// BoxOfficeSale is a counter sale's record (box_office_sales): how order OrderID was
// paid (Tender cash or card), the cash given and the change (minor units of the order's
// currency; 0 for card), the seller's shift it counts in (nil: none open), and the
// address (nil: none) and language of its tickets' e-mail.
type BoxOfficeSale struct {
	OrderID       int64   `db:"order_id"`
	Tender        string  `db:"tender"`
	TenderedMinor int64   `db:"tendered_minor"`
	ChangeMinor   int64   `db:"change_minor"`
	ShiftID       *int64  `db:"shift_id"`
	Email         *string `db:"email"`
	Lang          string  `db:"lang"`
}

// InsertBoxOfficeSale records counter sale s.
func InsertBoxOfficeSale(ctx context.Context, q Querier, s *BoxOfficeSale) error {
	_, err := q.ExecContext(ctx, `INSERT INTO box_office_sales (order_id, tender, tendered_minor, change_minor, shift_id, email, lang)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, s.OrderID, s.Tender, s.TenderedMinor, s.ChangeMinor, s.ShiftID, s.Email, s.Lang)
	return err
}

// BoxOfficeSaleOf returns the counter sale record of order orderID (sql.ErrNoRows: an online order).
func BoxOfficeSaleOf(ctx context.Context, q Querier, orderID int64) (*BoxOfficeSale, error) {
	s := &BoxOfficeSale{}
	return s, q.GetContext(ctx, s, `SELECT order_id, tender, tendered_minor, change_minor, shift_id, email, lang
		FROM box_office_sales WHERE order_id = ?`, orderID)
}

// InsertApprovedPayment stores pay as a payment approved at now (money taken at the counter) and returns its id.
func InsertApprovedPayment(ctx context.Context, q Querier, pay *Payment, now time.Time) (int64, error) {
	res, err := q.ExecContext(ctx, `INSERT INTO payments (payment_id, order_id, provider, amount_minor, currency, status, provider_ref, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, 'approved', ?, ?, ?)`, pay.PaymentID, pay.OrderID, pay.Provider, pay.AmountMinor, pay.Currency, pay.ProviderRef, now, now)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}
