package testenv

import (
	"context"
	"maps"

	"seatflow/services"
	"seatflow/services/store"
)

// MakeVoucher creates an active voucher of the env's show's cinema: code, max uses,
// percentOff % off, limited to showIDs (none: every show), valid now.
func (e *TestEnv) MakeVoucher(code string, maxUses, percentOff int64, showIDs ...int64) *services.Voucher {
	e.T.Helper()
	v := &services.Voucher{Code: code, CinemaID: e.Show.CinemaID, MaxUses: maxUses, PercentOff: &percentOff, Active: true,
		ShowIDs: showIDs, CreatedAt: e.Clock.Now(), UpdatedAt: e.Clock.Now()}
	id, err := store.InsertVoucher(context.Background(), e.DB, v)
	if err != nil {
		e.T.Fatal(err)
	}
	v.ID = id
	return v
}

// VoucherUses returns voucher id's uses in MySQL: vouchers.uses and its voucher_uses
// rows, and its uses in the show's Redis hash.
func (e *TestEnv) VoucherUses(id, showID int64) (uses, rows, redis int64) {
	e.T.Helper()
	if err := e.DB.Get(&uses, "SELECT uses FROM vouchers WHERE id = ?", id); err != nil {
		e.T.Fatal(err)
	}
	if err := e.DB.Get(&rows, "SELECT COUNT(*) FROM voucher_uses WHERE voucher_id = ?", id); err != nil {
		e.T.Fatal(err)
	}
	m, _, err := e.Seats.VoucherUses(context.Background(), showID)
	if err != nil {
		e.T.Fatal(err)
	}
	return uses, rows, m[id]
}

// checkVoucherUses checks invariant 19 in MySQL (every voucher's uses equal its
// voucher_uses rows and stay within max_uses; rows only of live orders) and, when the
// show's voucher uses are loaded in Redis, that they equal MySQL's for the env's show.
func (e *TestEnv) checkVoucherUses() {
	e.T.Helper()
	ctx := context.Background()
	drifts, err := store.VoucherUsesDrifts(ctx, e.DB)
	if err != nil {
		e.T.Fatal(err)
	}
	for _, d := range drifts {
		e.T.Errorf("invariant 19: voucher %s has uses %d but %d voucher_uses rows", d.Code, d.Uses, d.Rows)
	}
	var over, dead int
	if err := e.DB.Get(&over, "SELECT COUNT(*) FROM vouchers WHERE uses > max_uses"); err != nil {
		e.T.Fatal(err)
	}
	if err := e.DB.Get(&dead, `SELECT COUNT(*) FROM voucher_uses u JOIN orders o ON o.id = u.order_id
		WHERE o.status NOT IN ('pending', 'paid')`); err != nil {
		e.T.Fatal(err)
	}
	if over > 0 || dead > 0 {
		e.T.Errorf("invariant 19: %d vouchers over max_uses, %d voucher uses of ended orders", over, dead)
	}
	truth, err := store.ShowVoucherUses(ctx, e.DB, e.Show.ID)
	if err != nil {
		e.T.Fatal(err)
	}
	cached, loaded, err := e.Seats.VoucherUses(ctx, e.Show.ID)
	if err != nil {
		e.T.Fatal(err)
	}
	if loaded && !maps.Equal(cached, truth) {
		e.T.Errorf("invariant 19: the seat cache counts voucher uses %v, MySQL %v", cached, truth)
	}
}
