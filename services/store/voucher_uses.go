package store

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// VoucherUse is one seat of a live order a voucher discounted (a voucher_uses row);
// DiscountMinor is what it took off the seat (minor units).
type VoucherUse struct {
	OrderID       int64 `db:"order_id"`
	SeatID        int64 `db:"seat_id"`
	VoucherID     int64 `db:"voucher_id"`
	ShowID        int64 `db:"show_id"`
	DiscountMinor int64 `db:"discount_minor"`
}

// VoucherShowUses returns the live uses of voucher id per show (show id -> seats).
func VoucherShowUses(ctx context.Context, q Querier, id int64) (map[int64]int64, error) {
	var rows []struct {
		ShowID int64 `db:"show_id"`
		N      int64 `db:"n"`
	}
	if err := q.SelectContext(ctx, &rows, "SELECT show_id, COUNT(*) AS n FROM voucher_uses WHERE voucher_id = ? GROUP BY show_id", id); err != nil {
		return nil, err
	}
	out := make(map[int64]int64, len(rows))
	for _, r := range rows {
		out[r.ShowID] = r.N
	}
	return out, nil
}

// ShowVoucherUses returns the live uses of each voucher in show showID (voucher id -> seats).
func ShowVoucherUses(ctx context.Context, q Querier, showID int64) (map[int64]int64, error) {
	var rows []struct {
		VoucherID int64 `db:"voucher_id"`
		N         int64 `db:"n"`
	}
	if err := q.SelectContext(ctx, &rows, "SELECT voucher_id, COUNT(*) AS n FROM voucher_uses WHERE show_id = ? GROUP BY voucher_id", showID); err != nil {
		return nil, err
	}
	out := make(map[int64]int64, len(rows))
	for _, r := range rows {
		out[r.VoucherID] = r.N
	}
	return out, nil
}

// AddVoucherUses adds n uses to voucher id while it is active and stays within max_uses,
// and reports whether it did (false: nothing changed).
func AddVoucherUses(ctx context.Context, q Querier, id, n int64) (bool, error) {
	res, err := q.ExecContext(ctx, "UPDATE vouchers SET uses = uses + ? WHERE id = ? AND active AND uses + ? <= max_uses", n, id, n)
	if err != nil {
		return false, err
	}
	changed, err := res.RowsAffected()
	return changed == 1, err
}

// LockVoucherUsesLeft reads, locking the row, how many uses voucher id has left and whether it is active.
func LockVoucherUsesLeft(ctx context.Context, q Querier, id int64) (left int64, active bool, err error) {
	var row struct {
		Left   int64 `db:"uses_left"`
		Active bool  `db:"active"`
	}
	err = q.GetContext(ctx, &row, "SELECT CAST(max_uses AS SIGNED) - CAST(uses AS SIGNED) AS uses_left, active FROM vouchers WHERE id = ? FOR UPDATE", id)
	return row.Left, row.Active, err
}

// InsertVoucherUses writes uses in one multi-row INSERT (none: nothing).
func InsertVoucherUses(ctx context.Context, q Querier, uses []VoucherUse) error {
	if len(uses) == 0 {
		return nil
	}
	args := make([]any, 0, 5*len(uses))
	for _, u := range uses {
		args = append(args, u.OrderID, u.SeatID, u.VoucherID, u.ShowID, u.DiscountMinor)
	}
	_, err := q.ExecContext(ctx, "INSERT INTO voucher_uses (order_id, seat_id, voucher_id, show_id, discount_minor) VALUES "+
		placeholderRows(len(uses), 5), args...)
	return err
}

// GiveBackVoucherUses gives an ended order's voucher uses back (vouchers.uses less its
// voucher_uses rows, which it deletes); an order without any costs one statement.
func GiveBackVoucherUses(ctx context.Context, q Querier, orderID int64) error {
	res, err := q.ExecContext(ctx, `UPDATE vouchers v JOIN (SELECT voucher_id, COUNT(*) AS n FROM voucher_uses WHERE order_id = ? GROUP BY voucher_id) u
		ON u.voucher_id = v.id SET v.uses = v.uses - u.n`, orderID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	_, err = q.ExecContext(ctx, "DELETE FROM voucher_uses WHERE order_id = ?", orderID)
	return err
}

// GiveBackVoucherUsesOfSeats gives back the voucher uses of the seats seatIDs (at least one) of order orderID (vouchers.uses less their voucher_uses rows, which it deletes): a refund of part of an order.
func GiveBackVoucherUsesOfSeats(ctx context.Context, q Querier, orderID int64, seatIDs []int64) error {
	query, args, err := sqlx.In(`UPDATE vouchers v JOIN (SELECT voucher_id, COUNT(*) AS n FROM voucher_uses
		WHERE order_id = ? AND seat_id IN (?) GROUP BY voucher_id) u ON u.voucher_id = v.id SET v.uses = v.uses - u.n`, orderID, seatIDs)
	if err != nil {
		return err
	}
	res, err := q.ExecContext(ctx, query, args...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	query, args, err = sqlx.In("DELETE FROM voucher_uses WHERE order_id = ? AND seat_id IN (?)", orderID, seatIDs)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, query, args...)
	return err
}

// VoucherCodes returns the codes of the vouchers with ids (voucher id -> code).
func VoucherCodes(ctx context.Context, q Querier, ids []int64) (map[int64]string, error) {
	if len(ids) == 0 {
		return map[int64]string{}, nil
	}
	query, args, err := sqlx.In("SELECT id, code FROM vouchers WHERE id IN (?)", ids)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		ID   int64  `db:"id"`
		Code string `db:"code"`
	}
	if err := q.SelectContext(ctx, &rows, q.Rebind(query), args...); err != nil {
		return nil, err
	}
	out := make(map[int64]string, len(rows))
	for _, r := range rows {
		out[r.ID] = r.Code
	}
	return out, nil
}

// VoucherUsesDrift is a voucher whose uses differ from its voucher_uses rows.
type VoucherUsesDrift struct {
	ID   int64  `db:"id"`
	Code string `db:"code"`
	Uses int64  `db:"uses"`
	Rows int64  `db:"use_rows"`
}

// VoucherUsesDrifts lists the vouchers whose uses differ from COUNT(voucher_uses) of them.
func VoucherUsesDrifts(ctx context.Context, q Querier) ([]VoucherUsesDrift, error) {
	var out []VoucherUsesDrift
	err := q.SelectContext(ctx, &out, `SELECT v.id, v.code, v.uses, COALESCE(u.n, 0) AS use_rows FROM vouchers v
		LEFT JOIN (SELECT voucher_id, COUNT(*) AS n FROM voucher_uses GROUP BY voucher_id) u ON u.voucher_id = v.id
		WHERE v.uses <> COALESCE(u.n, 0) ORDER BY v.id`)
	return out, err
}
