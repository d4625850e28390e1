package reconcile

import (
	"context"
	"fmt"

	"seatflow/services/seats"
	"seatflow/services/store"
)

// checkSeatIdentity reports the damage no seat map repair can undo because MySQL itself
// is wrong (DESIGN.md "Reconciliation"): a live order of a show that has not started
// holding a seat that is no seat of the show's hall (retired by a hall edit, or of
// another hall), and two live seats of one show with one label (one physical seat sold
// twice). Each becomes a finding with action "report" that is never fixed: staff choose
// which order keeps the seat. showID 0 checks every such show. Errors: UNAVAILABLE.
func (r *Reconciler) checkSeatIdentity(ctx context.Context, rn *run, showID int64) error {
	now := r.clock.Now()
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	outside, err := store.LiveSeatsOutsideHall(qctx, r.db, now, showID)
	cancel()
	if err != nil {
		return store.Unavailable("the database", err)
	}
	for _, o := range outside {
		rn.add(seats.Finding{Kind: seats.FindingSeatOutsideHall, ShowID: o.ShowID, SeatID: o.SeatID, OrderNo: o.OrderNo,
			Action: seats.ActionReport, Detail: fmt.Sprintf("%s order holds seat %s, which is no longer a seat of the show's hall", o.Status, o.Label)})
	}
	qctx, cancel = context.WithTimeout(ctx, store.DBTimeout)
	dup, err := store.LiveDuplicateSeatLabels(qctx, r.db, now, showID)
	cancel()
	if err != nil {
		return store.Unavailable("the database", err)
	}
	for _, d := range dup {
		rn.add(seats.Finding{Kind: seats.FindingDuplicateLabel, ShowID: d.ShowID, Action: seats.ActionReport,
			Detail: fmt.Sprintf("%d live seats are labelled %s, in orders %s", d.Seats, d.Label, d.Orders)})
	}
	return nil
}
