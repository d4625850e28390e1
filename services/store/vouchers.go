package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"

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

// CinemaIDOfVoucher returns the cinema of the voucher with the canonical code; sql.ErrNoRows when there is none.
func CinemaIDOfVoucher(ctx context.Context, q Querier, code string) (int64, error) {
	var id int64
	err := q.GetContext(ctx, &id, "SELECT cinema_id FROM vouchers WHERE code = ?", code)
	return id, err
}

// VoucherByCodeForUpdate is VoucherByCode locking the voucher's row until tx ends (the
// writes that count its uses wait for it).
func VoucherByCodeForUpdate(ctx context.Context, tx Querier, code string) (*services.Voucher, error) {
	v := &services.Voucher{}
	if err := tx.GetContext(ctx, v, "SELECT "+voucherColumns+" FROM vouchers WHERE code = ? FOR UPDATE", code); err != nil {
		return nil, err
	}
	return v, fillVoucherLimits(ctx, tx, []*services.Voucher{v})
}

// Vouchers lists the vouchers of the cinemas in cinemaIDs (nil: every cinema), newest
// first, at most limit, with their shows and ticket types.
func Vouchers(ctx context.Context, q Querier, cinemaIDs []int64, limit int) ([]*services.Voucher, error) {
	return VouchersOfBatch(ctx, q, cinemaIDs, "", limit)
}

// VouchersOfBatch is Vouchers narrowed to the batch named batch ("": any batch).
func VouchersOfBatch(ctx context.Context, q Querier, cinemaIDs []int64, batch string, limit int) ([]*services.Voucher, error) {
	query, args := "SELECT "+voucherColumns+" FROM vouchers WHERE 1 = 1", []any{}
	if batch != "" {
		query, args = query+" AND batch = ?", append(args, batch)
	}
	if cinemaIDs != nil {
		if len(cinemaIDs) == 0 {
			return nil, nil
		}
		in, inArgs, err := sqlx.In(" AND cinema_id IN (?)", cinemaIDs)
		if err != nil {
			return nil, err
		}
		query, args = query+in, append(args, inArgs...)
	}
	var vs []*services.Voucher
	if err := q.SelectContext(ctx, &vs, query+" ORDER BY id DESC LIMIT ?", append(args, limit)...); err != nil {
		return nil, err
	}
	return vs, fillVoucherLimits(ctx, q, vs)
}

// ShowCinemas returns show id -> its hall's cinema id for the shows of ids that exist.
func ShowCinemas(ctx context.Context, q Querier, ids []int64) (map[int64]int64, error) {
	out := make(map[int64]int64, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	query, args, err := sqlx.In("SELECT sh.id, h.cinema_id FROM shows sh JOIN halls h ON h.id = sh.hall_id WHERE sh.id IN (?)", ids)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		ShowID   int64 `db:"id"`
		CinemaID int64 `db:"cinema_id"`
	}
	if err := q.SelectContext(ctx, &rows, query, args...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.ShowID] = r.CinemaID
	}
	return out, nil
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

// InsertVoucherBatch stores vs (one batch, one cinema, the same rules; codes canonical)
// in a few multi-row statements, with their shows and ticket types; a code in use fails
// on VoucherCodeIndex.
func InsertVoucherBatch(ctx context.Context, q Querier, vs []*services.Voucher) error {
	if len(vs) == 0 {
		return nil
	}
	const cols = 12
	args := make([]any, 0, cols*len(vs))
	codes := make([]string, len(vs))
	for i, v := range vs {
		args = append(args, v.Code, v.CinemaID, v.MaxUses, v.PercentOff, v.AmountOffMinor, v.PriceMinor,
			v.ValidFrom, v.ValidUntil, v.Active, v.Batch, v.CreatedAt, v.UpdatedAt)
		codes[i] = v.Code
	}
	values := strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?),", len(vs)), ",")
	if _, err := q.ExecContext(ctx, `INSERT INTO vouchers (code, cinema_id, max_uses, percent_off, amount_off_minor, price_minor,
		valid_from, valid_until, active, batch, created_at, updated_at) VALUES `+values, args...); err != nil {
		return err
	}
	first := vs[0]
	if len(first.ShowIDs) == 0 && len(first.TicketTypes) == 0 {
		return nil
	}
	query, inArgs, err := sqlx.In("SELECT id FROM vouchers WHERE code IN (?)", codes)
	if err != nil {
		return err
	}
	var ids []int64
	if err := q.SelectContext(ctx, &ids, query, inArgs...); err != nil {
		return err
	}
	for _, id := range ids {
		if err := SetVoucherLimits(ctx, q, id, first.ShowIDs, first.TicketTypes); err != nil {
			return err
		}
	}
	return nil
}
