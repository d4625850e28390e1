package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/store"
)

// takenSeat is a seat held or sold for a show that has not started.
type takenSeat struct {
	SeatID   int64     `db:"seat_id"`
	Label    string    `db:"label"`
	ShowID   int64     `db:"show_id"`
	Title    string    `db:"title"`
	StartsAt time.Time `db:"starts_at"`
	Status   string    `db:"status"`
}

// UpdateHall changes a hall's name and layout, written by actorID, audited as
// "hall.update", and returns it. A seat whose label stays keeps its id (and its orders);
// a seat whose label leaves the layout is deleted, or, when orders of past shows name it,
// leaves the hall and keeps its label for them. Zones the layout uses are created; zones
// no seat and no show price names any more are deleted. The seat maps in Redis of the
// hall's shows that have not started follow the new layout (Shows.RefreshHall through SeatMaps).
//
// Errors: INVALID_REQUEST (name, layout), NOT_FOUND, CONFLICT wrapping
// ErrDuplicateHallName, CONFLICT naming the seats and the shows (movie title and local
// start time) when the change would remove, move or block a seat held or sold for a show
// that has not started (nothing is changed), UNAVAILABLE.
func (w *CatalogWriter) UpdateHall(ctx context.Context, actorID, id int64, in HallInput) (*HallLayout, error) {
	name, l, err := checkHallInput(in)
	if err != nil {
		return nil, err
	}
	now := w.clock.Now()
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
		if err := applyHallDiff(tctx, tx, id, l, d); err != nil {
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
		return w.audit.Record(tctx, tx, actorID, "hall.update", "hall", strconv.FormatInt(id, 10), beforeAudit, hallAuditOf(name, l))
	})
	if err != nil {
		return nil, hallWriteError(err, name)
	}
	w.catalog.ForgetHall(id)
	w.maps.RefreshHall(ctx, id)
	return w.Hall(ctx, id)
}

// hallDiff is how a new layout changes a hall's seats (matched by label).
type hallDiff struct {
	changed map[int64]LayoutSeat // same label at the same cell, another kind or zone
	moved   map[int64]LayoutSeat // same label at another cell
	removed []int64              // label no longer in the layout
	added   []LayoutSeat
	lost    []int64 // removed, moved or newly blocked: refused while held or sold
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
			if n.Kind == services.KindBlocked && o.Kind != services.KindBlocked {
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

// refuseTaken answers CONFLICT naming the seats of lost held or sold for shows starting
// after now, grouped by show (title and start time in zone), or nil.
func refuseTaken(ctx context.Context, tx *sqlx.Tx, lost []int64, now time.Time, zone *time.Location) error {
	if len(lost) == 0 {
		return nil
	}
	q, args, err := sqlx.In(`SELECT os.seat_id, s.label, sh.id AS show_id, m.title, sh.starts_at, o.status
		FROM order_seats os JOIN orders o ON o.id = os.order_id JOIN seats s ON s.id = os.seat_id
		JOIN shows sh ON sh.id = os.show_id JOIN movies m ON m.id = sh.movie_id
		WHERE os.live = 1 AND os.seat_id IN (?) AND sh.starts_at > ?
		ORDER BY sh.starts_at, sh.id, s.row_no, s.col_no`, lost, now)
	if err != nil {
		return err
	}
	var taken []takenSeat
	if err := tx.SelectContext(ctx, &taken, tx.Rebind(q), args...); err != nil {
		return err
	}
	if len(taken) == 0 {
		return nil
	}
	var parts, labels []string
	seen := map[string]bool{}
	for i := 0; i < len(taken); {
		t := taken[i]
		var seats []string
		for ; i < len(taken) && taken[i].ShowID == t.ShowID; i++ {
			state := "held"
			if taken[i].Status == services.OrderPaid {
				state = "sold"
			}
			seats = append(seats, taken[i].Label+" "+state)
			if !seen[taken[i].Label] {
				seen[taken[i].Label] = true
				labels = append(labels, taken[i].Label)
			}
		}
		parts = append(parts, fmt.Sprintf("%q on %s (%s)", t.Title, t.StartsAt.In(zone).Format("Mon 2 Jan 15:04"), strings.Join(seats, ", ")))
	}
	return &services.Error{Code: services.CodeConflict, Seats: labels, Message: "the new layout removes, moves or blocks seats held or sold for shows that have not started: " +
		strings.Join(parts, "; ") + "; keep those seats where they are until the shows are over"}
}

// applyHallDiff writes d: removed seats deleted (or taken out of the hall when orders
// name them), moved and changed seats updated, new ones inserted, unused zones deleted.
func applyHallDiff(ctx context.Context, tx *sqlx.Tx, hallID int64, l *Layout, d *hallDiff) error {
	zones, err := ensureZones(ctx, tx, hallID, l)
	if err != nil {
		return err
	}
	if len(d.removed) > 0 {
		q, args, err := sqlx.In("SELECT DISTINCT seat_id FROM order_seats WHERE seat_id IN (?)", d.removed)
		if err != nil {
			return err
		}
		var named []int64
		if err := tx.SelectContext(ctx, &named, tx.Rebind(q), args...); err != nil {
			return err
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
				return err
			}
			if _, err := tx.ExecContext(ctx, tx.Rebind(q), args...); err != nil {
				return err
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
			return err
		}
		if _, err := tx.ExecContext(ctx, tx.Rebind(q), args...); err != nil {
			return err
		}
	}
	for _, m := range []map[int64]LayoutSeat{d.moved, d.changed} {
		for id, s := range m {
			if _, err := tx.ExecContext(ctx, "UPDATE seats SET row_no = ?, col_no = ?, kind = ?, zone_id = ? WHERE id = ?",
				s.Row, s.Col, s.Kind, zones[s.Zone], id); err != nil {
				return err
			}
		}
	}
	if err := insertSeats(ctx, tx, hallID, zones, d.added); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM zones WHERE hall_id = ?
		AND id NOT IN (SELECT zone_id FROM seats) AND id NOT IN (SELECT zone_id FROM show_prices)`, hallID)
	return err
}
