package store

import (
	"context"
	"time"
)

// WaitlistEntry is one place on a show's waiting list (waitlist.Entry says what its
// fields mean). Zone is "" for any zone; Position is counted, not stored. Times UTC.
type WaitlistEntry struct {
	ID             int64      `db:"id"`
	ShowID         int64      `db:"show_id"`
	UserID         int64      `db:"user_id"`
	UserEmail      string     `db:"email"`
	Quantity       int        `db:"quantity"`
	Zone           string     `db:"zone"`
	RoomEpoch      int        `db:"room_epoch"`
	Status         string     `db:"status"`
	OrderNo        string     `db:"order_no"`
	OrderStatus    string     `db:"order_status"`
	OfferExpiresAt *time.Time `db:"expires_at"`
	CreatedAt      time.Time  `db:"created_at"`
	Position       int        `db:"-"`
}

// waitlistEntryCols reads an entry with its offer's order (status, deadline) and the user's
// e-mail.
const waitlistEntryCols = `SELECT w.id, w.show_id, w.user_id, u.email, w.quantity, COALESCE(w.zone_code, '') AS zone, w.room_epoch, w.status,
	COALESCE(w.order_no, '') AS order_no, COALESCE(o.status, '') AS order_status, o.expires_at, w.created_at
	FROM waitlist_entries w JOIN users u ON u.id = w.user_id LEFT JOIN orders o ON o.order_no = w.order_no `

// WaitlistBuyerLiveSeats counts the live seats userID holds or owns for showID.
func WaitlistBuyerLiveSeats(ctx context.Context, q Querier, userID, showID int64) (int, error) {
	var owned int
	err := q.GetContext(ctx, &owned, `SELECT COUNT(*) FROM order_seats os JOIN orders o ON o.id = os.order_id
		WHERE o.user_id = ? AND o.show_id = ? AND os.live = 1`, userID, showID)
	return owned, err
}

// InsertWaitlistEntry opens a waiting place of userID on showID for quantity seats of zone ("" any zone, stored NULL), joined in the room's epoch roomEpoch.
func InsertWaitlistEntry(ctx context.Context, q Querier, showID, userID int64, quantity int, zone string, roomEpoch int, now time.Time) error {
	var zoneArg any
	if zone != "" {
		zoneArg = zone
	}
	_, err := q.ExecContext(ctx, `INSERT INTO waitlist_entries (show_id, user_id, quantity, zone_code, room_epoch, status, active, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, 'waiting', 1, ?, ?)`, showID, userID, quantity, zoneArg, roomEpoch, now, now)
	return err
}

// LatestWaitlistEntry returns userID's open place on showID's list, else the last that ended (sql.ErrNoRows when none).
func LatestWaitlistEntry(ctx context.Context, q Querier, showID, userID int64) (*WaitlistEntry, error) {
	e := &WaitlistEntry{}
	if err := q.GetContext(ctx, e, waitlistEntryCols+`WHERE w.show_id = ? AND w.user_id = ? ORDER BY w.active IS NULL, w.id DESC LIMIT 1`, showID, userID); err != nil {
		return nil, err
	}
	return e, nil
}

// WaitlistPosition counts the waiting places of showID up to and including place id.
func WaitlistPosition(ctx context.Context, q Querier, showID, id int64) (int, error) {
	var n int
	err := q.GetContext(ctx, &n, `SELECT COUNT(*) FROM waitlist_entries
			WHERE show_id = ? AND status = 'waiting' AND id <= ?`, showID, id)
	return n, err
}

// LeaveWaitlistEntry ends open place id as left at now.
func LeaveWaitlistEntry(ctx context.Context, q Querier, id int64, now time.Time) error {
	_, err := q.ExecContext(ctx, `UPDATE waitlist_entries SET status = 'left', active = NULL, updated_at = ?
		WHERE id = ? AND active = 1`, now, id)
	return err
}

// WaitlistEntryOrderNo returns the offer's order number of place id ("" without one).
func WaitlistEntryOrderNo(ctx context.Context, q Querier, id int64) (string, error) {
	var no string
	err := q.GetContext(ctx, &no, "SELECT COALESCE(order_no, '') FROM waitlist_entries WHERE id = ?", id)
	return no, err
}

// WaitlistEntriesOfShow returns every place of showID's list in id order.
func WaitlistEntriesOfShow(ctx context.Context, q Querier, showID int64) ([]*WaitlistEntry, error) {
	var out []*WaitlistEntry
	if err := q.SelectContext(ctx, &out, waitlistEntryCols+`WHERE w.show_id = ? ORDER BY w.id`, showID); err != nil {
		return nil, err
	}
	return out, nil
}

// WaitlistOpenShows returns the shows that have an open place (waiting or offered).
func WaitlistOpenShows(ctx context.Context, q Querier) ([]int64, error) {
	var ids []int64
	err := q.SelectContext(ctx, &ids, "SELECT DISTINCT show_id FROM waitlist_entries WHERE active = 1")
	return ids, err
}

// EndSettledWaitlistOffers closes the open offered places of showID whose order is no longer pending.
func EndSettledWaitlistOffers(ctx context.Context, q Querier, showID int64, now time.Time) error {
	_, err := q.ExecContext(ctx, `UPDATE waitlist_entries w JOIN orders o ON o.order_no = w.order_no
		SET w.active = NULL, w.updated_at = ? WHERE w.show_id = ? AND w.status = 'offered' AND w.active = 1 AND o.status <> 'pending'`,
		now, showID)
	return err
}

// ReturnOrderlessWaitlistOffers puts the open offered places of showID whose order does not exist back to waiting.
func ReturnOrderlessWaitlistOffers(ctx context.Context, q Querier, showID int64, now time.Time) error {
	_, err := q.ExecContext(ctx, `UPDATE waitlist_entries w LEFT JOIN orders o ON o.order_no = w.order_no
		SET w.status = 'waiting', w.order_no = NULL, w.offered_at = NULL, w.updated_at = ?
		WHERE w.show_id = ? AND w.status = 'offered' AND w.active = 1 AND o.id IS NULL`, now, showID)
	return err
}

// CloseWaitingWaitlistEntries ends every waiting place of showID as closed.
func CloseWaitingWaitlistEntries(ctx context.Context, q Querier, showID int64, now time.Time) error {
	_, err := q.ExecContext(ctx, `UPDATE waitlist_entries SET status = 'closed', active = NULL, updated_at = ?
			WHERE show_id = ? AND status = 'waiting'`, now, showID)
	return err
}

// WaitingWaitlistEntries returns the first 1000 waiting places of showID in order, without user or offer.
func WaitingWaitlistEntries(ctx context.Context, q Querier, showID int64) ([]*WaitlistEntry, error) {
	var waiting []*WaitlistEntry
	if err := q.SelectContext(ctx, &waiting, `SELECT id, show_id, user_id, quantity, COALESCE(zone_code, '') AS zone, room_epoch, status, created_at
		FROM waitlist_entries WHERE show_id = ? AND status = 'waiting' ORDER BY id LIMIT 1000`, showID); err != nil {
		return nil, err
	}
	return waiting, nil
}

// OfferWaitlistEntry marks waiting place id offered with orderNo at now and returns the rows changed.
func OfferWaitlistEntry(ctx context.Context, q Querier, id int64, orderNo string, now time.Time) (int64, error) {
	res, err := q.ExecContext(ctx, `UPDATE waitlist_entries SET status = 'offered', order_no = ?, offered_at = ?, updated_at = ?
		WHERE id = ? AND status = 'waiting' AND active = 1`, orderNo, now, now, id)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// WaitlistEntryStatus returns the stored status of place id.
func WaitlistEntryStatus(ctx context.Context, q Querier, id int64) (string, error) {
	var status string
	err := q.GetContext(ctx, &status, "SELECT status FROM waitlist_entries WHERE id = ?", id)
	return status, err
}

// WithdrawWaitlistOffer puts place id, offered with orderNo, back to waiting.
func WithdrawWaitlistOffer(ctx context.Context, q Querier, id int64, orderNo string) error {
	_, err := q.ExecContext(ctx, `UPDATE waitlist_entries SET status = 'waiting', order_no = NULL, offered_at = NULL
			WHERE id = ? AND order_no = ?`, id, orderNo)
	return err
}
