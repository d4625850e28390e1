package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
)

// VoucherCodeIndex is the unique key of voucher codes (a code in use is a CONFLICT).
const VoucherCodeIndex = "uq_vouchers_code"

const voucherColumns = "id, code, cinema_id, max_uses, uses, percent_off, amount_off_minor, price_minor, valid_from, valid_until, active, batch, created_at, updated_at"

// InsertVoucher stores v (code canonical, times UTC) with its shows and ticket types and
// returns its id; a code in use fails on VoucherCodeIndex.
func InsertVoucher(ctx context.Context, q Querier, v *services.Voucher) (int64, error) {
	res, err := q.ExecContext(ctx, `INSERT INTO vouchers (code, cinema_id, max_uses, percent_off, amount_off_minor, price_minor,
		valid_from, valid_until, active, batch, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		v.Code, v.CinemaID, v.MaxUses, v.PercentOff, v.AmountOffMinor, v.PriceMinor, v.ValidFrom, v.ValidUntil, v.Active, v.Batch, v.CreatedAt, v.UpdatedAt)
	if err != nil {
		return 0, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	return id, SetVoucherLimits(ctx, q, id, v.ShowIDs, v.TicketTypes)
}

// UpdateVoucher writes v's rules, max_uses, active and updated_at (never uses) and its
// shows and ticket types; max_uses below the live uses fails on the check ck_vouchers_uses.
func UpdateVoucher(ctx context.Context, q Querier, v *services.Voucher) error {
	_, err := q.ExecContext(ctx, `UPDATE vouchers SET max_uses = ?, percent_off = ?, amount_off_minor = ?, price_minor = ?,
		valid_from = ?, valid_until = ?, active = ?, updated_at = ? WHERE id = ?`,
		v.MaxUses, v.PercentOff, v.AmountOffMinor, v.PriceMinor, v.ValidFrom, v.ValidUntil, v.Active, v.UpdatedAt, v.ID)
	if err != nil {
		return err
	}
	return SetVoucherLimits(ctx, q, v.ID, v.ShowIDs, v.TicketTypes)
}

// SetVoucherLimits replaces the shows and ticket types voucher id is limited to (none: all).
func SetVoucherLimits(ctx context.Context, q Querier, id int64, showIDs []int64, types []string) error {
	if _, err := q.ExecContext(ctx, "DELETE FROM voucher_shows WHERE voucher_id = ?", id); err != nil {
		return err
	}
	if _, err := q.ExecContext(ctx, "DELETE FROM voucher_ticket_types WHERE voucher_id = ?", id); err != nil {
		return err
	}
	for _, s := range showIDs {
		if _, err := q.ExecContext(ctx, "INSERT INTO voucher_shows (voucher_id, show_id) VALUES (?, ?)", id, s); err != nil {
			return err
		}
	}
	for _, t := range types {
		if _, err := q.ExecContext(ctx, "INSERT INTO voucher_ticket_types (voucher_id, type_code) VALUES (?, ?)", id, t); err != nil {
			return err
		}
	}
	return nil
}

// VoucherByCode reads the voucher with the canonical code, with its shows and ticket
// types; sql.ErrNoRows when there is none.
func VoucherByCode(ctx context.Context, q Querier, code string) (*services.Voucher, error) {
	v := &services.Voucher{}
	if err := q.GetContext(ctx, v, "SELECT "+voucherColumns+" FROM vouchers WHERE code = ?", code); err != nil {
		return nil, err
	}
	return v, fillVoucherLimits(ctx, q, []*services.Voucher{v})
}

// Vouchers lists the vouchers of the cinemas in cinemaIDs (nil: every cinema), newest
// first, at most limit, with their shows and ticket types.
func Vouchers(ctx context.Context, q Querier, cinemaIDs []int64, limit int) ([]*services.Voucher, error) {
	query, args := "SELECT "+voucherColumns+" FROM vouchers", []any{}
	if cinemaIDs != nil {
		if len(cinemaIDs) == 0 {
			return nil, nil
		}
		in, inArgs, err := sqlx.In(" WHERE cinema_id IN (?)", cinemaIDs)
		if err != nil {
			return nil, err
		}
		query, args = query+in, inArgs
	}
	var vs []*services.Voucher
	if err := q.SelectContext(ctx, &vs, query+" ORDER BY id DESC LIMIT ?", append(args, limit)...); err != nil {
		return nil, err
	}
	return vs, fillVoucherLimits(ctx, q, vs)
}

// fillVoucherLimits reads the shows and ticket types of vs in two statements.
func fillVoucherLimits(ctx context.Context, q Querier, vs []*services.Voucher) error {
	if len(vs) == 0 {
		return nil
	}
	byID := make(map[int64]*services.Voucher, len(vs))
	ids := make([]int64, 0, len(vs))
	for _, v := range vs {
		byID[v.ID] = v
		ids = append(ids, v.ID)
	}
	var shows []struct {
		VoucherID int64 `db:"voucher_id"`
		ShowID    int64 `db:"show_id"`
	}
	query, args, err := sqlx.In("SELECT voucher_id, show_id FROM voucher_shows WHERE voucher_id IN (?) ORDER BY voucher_id, show_id", ids)
	if err != nil {
		return err
	}
	if err := q.SelectContext(ctx, &shows, query, args...); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	for _, s := range shows {
		byID[s.VoucherID].ShowIDs = append(byID[s.VoucherID].ShowIDs, s.ShowID)
	}
	var types []struct {
		VoucherID int64  `db:"voucher_id"`
		Type      string `db:"type_code"`
	}
	query, args, err = sqlx.In("SELECT voucher_id, type_code FROM voucher_ticket_types WHERE voucher_id IN (?) ORDER BY voucher_id, type_code", ids)
	if err != nil {
		return err
	}
	if err := q.SelectContext(ctx, &types, query, args...); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	for _, t := range types {
		byID[t.VoucherID].TicketTypes = append(byID[t.VoucherID].TicketTypes, t.Type)
	}
	return nil
}
