package reconcile

import (
	"context"
	"fmt"
	"maps"

	"seatflow/services/seats"
	"seatflow/services/store"
)

// reconcileVouchers compares the show's voucher uses in the seat cache with MySQL's
// voucher_uses and, on a real run, replaces them with MySQL's counts (a voucher_uses
// finding per voucher that differed). A show whose uses were never loaded (no order with
// a voucher since its map was) is loaded without a finding. Uses of a hold still
// committing may be dropped: the cache then admits more holds than it should, and the
// commit's guarded update (vouchers.uses <= max_uses) refuses the excess.
func (r *Reconciler) reconcileVouchers(ctx context.Context, rn *run, showID int64) error {
	cached, loaded, err := r.seats.VoucherUses(ctx, showID)
	if err != nil {
		return err
	}
	var truth map[int64]int64
	if err := r.readDB(ctx, func(ctx context.Context) (err error) {
		truth, err = store.ShowVoucherUses(ctx, r.db, showID)
		return err
	}); err != nil {
		return err
	}
	if loaded && maps.Equal(cached, truth) {
		return nil
	}
	var findings []seats.Finding
	if loaded || len(truth) > 0 {
		ids := map[int64]bool{}
		for id := range cached {
			ids[id] = true
		}
		for id := range truth {
			ids[id] = true
		}
		for id := range ids {
			if cached[id] != truth[id] || !loaded {
				findings = append(findings, seats.Finding{Kind: seats.FindingVoucherUses, ShowID: showID, Action: seats.ActionRecompute,
					Detail: fmt.Sprintf("voucher %d: %d uses in the seat cache, %d in MySQL", id, cached[id], truth[id])})
			}
		}
	}
	if !rn.DryRun {
		if err := r.holding(ctx, rn); err != nil {
			return err
		}
		if _, err := r.seats.LoadVoucherUses(ctx, showID, true); err != nil {
			return err
		}
		for i := range findings {
			findings[i].Fixed = true
		}
	}
	for _, f := range findings {
		rn.add(f)
	}
	return nil
}

// checkMoney reports every order of the show whose money does not add up (DESIGN.md
// "money adds up"): what its payments' providers keep (captured less refunded) differs
// from the prices of its live seats while paid (0 once it ended). A money_mismatch
// finding names the order and both sums; nothing is repaired (money is for staff to
// move). Orders no provider took money for (none approved) are not checked.
func (r *Reconciler) checkMoney(ctx context.Context, rn *run, showID int64) error {
	var bad []store.MoneyMismatch
	if err := r.readDB(ctx, func(ctx context.Context) (err error) {
		bad, err = store.MoneyMismatches(ctx, r.db, showID)
		return err
	}); err != nil {
		return err
	}
	for _, m := range bad {
		rn.add(seats.Finding{Kind: seats.FindingMoney, ShowID: showID, OrderNo: m.OrderNo, Action: seats.ActionReport,
			Detail: fmt.Sprintf("order %s (%s): the provider keeps %d (captured less refunded), its paid seats cost %d",
				m.OrderNo, m.Status, m.KeptMinor, m.SeatsMinor)})
	}
	return nil
}
