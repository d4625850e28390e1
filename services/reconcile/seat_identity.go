package reconcile

import (
	"context"
	"fmt"

	"seatflow/services/seats"
)

// checkSeatIdentity reports the damage no seat map repair can undo because MySQL itself
// is wrong (DESIGN.md "Reconciliation"): a live order of a show that has not started
// holding a seat that is no seat of the show's hall (retired by a hall edit, or of
// another hall), and two live seats of one show with one label (one physical seat sold
// twice). Each becomes a finding with action "report" that is never fixed: staff choose
// which order keeps the seat. showID 0 checks every such show. Errors: UNAVAILABLE.
func (r *Reconciler) checkSeatIdentity(ctx context.Context, rn *run, showID int64) error {
	now := r.clock.Now()
	filter, args := "", []any{now}
	if showID != 0 {
		filter, args = " AND sh.id = ?", append(args, showID)
	}
	var outside []struct {
		ShowID  int64  `db:"show_id"`
		SeatID  int64  `db:"seat_id"`
		Label   string `db:"label"`
		OrderNo string `db:"order_no"`
		Status  string `db:"status"`
	}
	if err := r.selectDB(ctx, &outside, `SELECT sh.id AS show_id, s.id AS seat_id, s.label, o.order_no, o.status
		FROM order_seats os JOIN orders o ON o.id = os.order_id JOIN shows sh ON sh.id = os.show_id JOIN seats s ON s.id = os.seat_id
		WHERE os.live = 1 AND sh.starts_at > ? AND (s.hall_id IS NULL OR s.hall_id <> sh.hall_id)`+filter+`
		ORDER BY sh.id, s.id LIMIT 1000`, args...); err != nil {
		return err
	}
	for _, o := range outside {
		rn.add(seats.Finding{Kind: seats.FindingSeatOutsideHall, ShowID: o.ShowID, SeatID: o.SeatID, OrderNo: o.OrderNo,
			Action: seats.ActionReport, Detail: fmt.Sprintf("%s order holds seat %s, which is no longer a seat of the show's hall", o.Status, o.Label)})
	}
	var dup []struct {
		ShowID int64  `db:"show_id"`
		Label  string `db:"label"`
		Seats  int    `db:"seats"`
		Orders string `db:"orders"`
	}
	if err := r.selectDB(ctx, &dup, `SELECT sh.id AS show_id, s.label, COUNT(DISTINCT s.id) AS seats,
		GROUP_CONCAT(DISTINCT o.order_no ORDER BY o.order_no SEPARATOR ', ') AS orders
		FROM order_seats os JOIN orders o ON o.id = os.order_id JOIN shows sh ON sh.id = os.show_id JOIN seats s ON s.id = os.seat_id
		WHERE os.live = 1 AND sh.starts_at > ?`+filter+`
		GROUP BY sh.id, s.label HAVING COUNT(DISTINCT s.id) > 1 ORDER BY sh.id, s.label LIMIT 1000`, args...); err != nil {
		return err
	}
	for _, d := range dup {
		rn.add(seats.Finding{Kind: seats.FindingDuplicateLabel, ShowID: d.ShowID, Action: seats.ActionReport,
			Detail: fmt.Sprintf("%d live seats are labelled %s, in orders %s", d.Seats, d.Label, d.Orders)})
	}
	return nil
}
