package catalog

import (
	"context"
	"database/sql"
	"errors"
	"sort"
	"strconv"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/store"
)

// UpdateHall changes a hall's name and layout, written by actorID, audited as
// "hall.update", and returns it. A seat whose label stays keeps its id (and its orders);
// a seat whose label leaves the layout is deleted, or, when orders of past shows name it,
// leaves the hall and keeps its label for them. Zones the layout uses are created; zones
// no seat and no show price names any more are deleted. The seat maps in Redis of the
// hall's shows that have not started follow the new layout (Shows.RefreshHall through SeatMaps).
//
// Seats taken for a show that has not started (held, sold, or a house seat) keep their
// label, cell, zone and sellability: every seat of the hall is locked for update first,
// so an order committing now either commits before the edit (which then sees it and is
// refused) or after it (and is refused itself: catalog.LockSeats; invariant 12). A label
// that comes back gets its old seat id back (reviveSeats). Each zone of the new layout
// must stay priced for the hall's shows that have not started: in.Prices supplies the
// missing prices (priceHallZones).
//
// Errors: INVALID_REQUEST (name, layout, prices), NOT_FOUND, CONFLICT wrapping
// ErrDuplicateHallName, CONFLICT naming the seats and the shows (movie title and local
// start time) when the change would remove, move, block or re-zone a taken seat, CONFLICT
// naming the shows left with an unpriced zone (nothing is changed), UNAVAILABLE.
func (w *CatalogWriter) UpdateHall(ctx context.Context, actorID, id int64, in HallInput) (*HallLayout, error) {
	name, l, err := checkHallInput(in)
	if err != nil {
		return nil, err
	}
	if err := checkPrices(in.Prices, l.Hall(name), false); err != nil {
		return nil, err
	}
	now := w.clock.Now()
	var priced []int64
	tctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	err = store.InTx(tctx, w.db, func(tx *sqlx.Tx) error {
		var before services.Hall
		if err := tx.GetContext(tctx, &before, "SELECT id, name, rows_n, cols_n FROM halls WHERE id = ? FOR UPDATE", id); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return services.Errorf(services.CodeNotFound, "hall %d not found", id)
			}
			return err
		}
		// Locking the seats waits for order transactions naming them (the foreign key
		// check locks the seat row) and keeps new ones out until this one commits, so the
		// read of taken seats below sees every live order seat.
		if err := tx.SelectContext(tctx, &before.Seats, `SELECT s.id, s.hall_id, s.zone_id, z.code AS zone_code, s.row_no, s.col_no, s.label, s.kind
			FROM seats s JOIN zones z ON z.id = s.zone_id WHERE s.hall_id = ? ORDER BY s.row_no, s.col_no FOR UPDATE`, id); err != nil {
			return err
		}
		d := diffHall(before.Seats, l)
		if err := refuseTaken(tctx, tx, d.lost, now, w.zone); err != nil {
			return err
		}
		zones, err := applyHallDiff(tctx, tx, id, l, d)
		if err != nil {
			return err
		}
		if priced, err = priceHallZones(tctx, tx, id, l, in.Prices, zones, now, w.zone); err != nil {
			return err
		}
		if _, err := tx.ExecContext(tctx, "UPDATE halls SET name = ?, rows_n = ?, cols_n = ? WHERE id = ?", name, l.Rows, l.Cols, id); err != nil {
			return err
		}
		beforeAudit := &HallAudit{Name: before.Name, Rows: before.Rows, Cols: before.Cols, Seats: map[string]int{}}
		beforeAudit.Layout, beforeAudit.Numbering, _ = FormatLayout(&before)
		for _, s := range before.Seats {
			if s.Sellable() {
				beforeAudit.Seats[s.ZoneCode]++
			} else {
				beforeAudit.Blocked++
			}
		}
		after := hallAuditOf(name, l)
		if len(priced) > 0 {
			after.Prices, after.PricedShows = in.Prices, priced
		}
		return w.audit.Record(tctx, tx, actorID, "hall.update", "hall", strconv.FormatInt(id, 10), beforeAudit, after)
	})
	if err != nil {
		return nil, hallWriteError(err, name)
	}
	w.catalog.ForgetHall(id)
	for _, show := range priced {
		w.catalog.ForgetShow(show)
	}
	w.maps.RefreshHall(ctx, id)
	return w.Hall(ctx, id)
}

// hallDiff is how a new layout changes a hall's seats (matched by label).
type hallDiff struct {
	changed map[int64]LayoutSeat // same label at the same cell, another kind or zone
	moved   map[int64]LayoutSeat // same label at another cell
	removed []int64              // label no longer in the layout
	added   []LayoutSeat
	lost    []int64 // removed, moved, newly blocked or re-zoned: refused while taken (refuseTaken)
}

func diffHall(old []services.Seat, l *Layout) *hallDiff {
	d := &hallDiff{changed: map[int64]LayoutSeat{}, moved: map[int64]LayoutSeat{}}
	byLabel := make(map[string]services.Seat, len(old))
	for _, s := range old {
		byLabel[s.Label] = s
	}
	for _, n := range l.Seats {
		o, ok := byLabel[n.Label]
		if !ok {
			d.added = append(d.added, n)
			continue
		}
		delete(byLabel, n.Label)
		if o.Row == n.Row && o.Col == n.Col {
			if n.Kind != o.Kind || n.Zone != o.ZoneCode {
				d.changed[o.ID] = n
			}
			// a live order's seat keeps its zone: the order was priced by it, and its
			// release gives the seat back to that zone's free count
			if (n.Kind == services.KindBlocked && o.Kind != services.KindBlocked) || n.Zone != o.ZoneCode {
				d.lost = append(d.lost, o.ID)
			}
			continue
		}
		d.moved[o.ID] = n
		d.lost = append(d.lost, o.ID)
	}
	for _, o := range byLabel {
		d.removed = append(d.removed, o.ID)
		d.lost = append(d.lost, o.ID)
	}
	sort.Slice(d.removed, func(i, j int) bool { return d.removed[i] < d.removed[j] })
	return d
}

// applyHallDiff writes d: removed seats deleted (or taken out of the hall when orders or
// house-seat rows name them), moved and changed seats updated, new ones brought back
// (reviveSeats) or inserted, unused zones deleted.
func applyHallDiff(ctx context.Context, tx *sqlx.Tx, hallID int64, l *Layout, d *hallDiff) (map[string]int64, error) {
	zones, err := ensureZones(ctx, tx, hallID, l)
	if err != nil {
		return nil, err
	}
	if len(d.removed) > 0 {
		q, args, err := sqlx.In(`SELECT seat_id FROM order_seats WHERE seat_id IN (?)
			UNION SELECT seat_id FROM show_house_seats WHERE seat_id IN (?)`, d.removed, d.removed)
		if err != nil {
			return nil, err
		}
		var named []int64
		if err := tx.SelectContext(ctx, &named, tx.Rebind(q), args...); err != nil {
			return nil, err
		}
		keep := map[int64]bool{}
		for _, id := range named {
			keep[id] = true
		}
		var del []int64
		for _, id := range d.removed {
			if !keep[id] {
				del = append(del, id)
			}
		}
		for _, step := range []struct {
			ids []int64
			q   string
			arg []any
		}{
			{named, "UPDATE seats SET hall_id = NULL, retired_hall_id = ? WHERE id IN (?)", []any{hallID}},
			{del, "DELETE FROM seats WHERE id IN (?)", nil},
		} {
			if len(step.ids) == 0 {
				continue
			}
			q, args, err := sqlx.In(step.q, append(step.arg, step.ids)...)
			if err != nil {
				return nil, err
			}
			if _, err := tx.ExecContext(ctx, tx.Rebind(q), args...); err != nil {
				return nil, err
			}
		}
	}
	if len(d.moved) > 0 { // park them off the grid first: their new cells may be each other's old ones
		ids := make([]int64, 0, len(d.moved))
		for id := range d.moved {
			ids = append(ids, id)
		}
		q, args, err := sqlx.In("UPDATE seats SET row_no = row_no + 1000000 WHERE id IN (?)", ids)
		if err != nil {
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, tx.Rebind(q), args...); err != nil {
			return nil, err
		}
	}
	for _, m := range []map[int64]LayoutSeat{d.moved, d.changed} {
		for id, s := range m {
			if _, err := tx.ExecContext(ctx, "UPDATE seats SET row_no = ?, col_no = ?, kind = ?, zone_id = ? WHERE id = ?",
				s.Row, s.Col, s.Kind, zones[s.Zone], id); err != nil {
				return nil, err
			}
		}
	}
	added, err := reviveSeats(ctx, tx, hallID, zones, d.added)
	if err != nil {
		return nil, err
	}
	if err := insertSeats(ctx, tx, hallID, zones, added); err != nil {
		return nil, err
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM zones WHERE hall_id = ?
		AND id NOT IN (SELECT zone_id FROM seats) AND id NOT IN (SELECT zone_id FROM show_prices)`, hallID)
	return zones, err
}

// reviveSeats brings back into hall hallID, at their new cells, the seats that left it
// earlier with the labels of added, and returns the rest of added (seats to insert). A
// label that comes back is the same seat id again, so one physical seat is one seat id
// for every order of every show (invariant 12); of several retired seats with a label
// the latest comes back.
func reviveSeats(ctx context.Context, tx *sqlx.Tx, hallID int64, zones map[string]int64, added []LayoutSeat) ([]LayoutSeat, error) {
	if len(added) == 0 {
		return nil, nil
	}
	labels := make([]string, len(added))
	for i, s := range added {
		labels[i] = s.Label
	}
	q, args, err := sqlx.In("SELECT id, label FROM seats WHERE hall_id IS NULL AND retired_hall_id = ? AND label IN (?) ORDER BY id", hallID, labels)
	if err != nil {
		return nil, err
	}
	var retired []struct {
		ID    int64  `db:"id"`
		Label string `db:"label"`
	}
	if err := tx.SelectContext(ctx, &retired, tx.Rebind(q), args...); err != nil {
		return nil, err
	}
	byLabel := make(map[string]int64, len(retired))
	for _, r := range retired {
		byLabel[r.Label] = r.ID // the latest wins
	}
	var rest []LayoutSeat
	for _, s := range added {
		id, ok := byLabel[s.Label]
		if !ok {
			rest = append(rest, s)
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE seats SET hall_id = ?, retired_hall_id = NULL, row_no = ?, col_no = ?, kind = ?, zone_id = ?
			WHERE id = ?`, hallID, s.Row, s.Col, s.Kind, zones[s.Zone], id); err != nil {
			return nil, err
		}
	}
	return rest, nil
}
