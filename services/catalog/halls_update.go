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

// HallChange is a change of a hall; nil fields stay as they are when the change is
// applied (read under the hall's lock, so a concurrent change is never undone). Prices
// price the zones the layout uses for the hall's shows that have not started and have
// no price for them (minor units); shows that price a zone already keep their price.
type HallChange struct {
	Name      *string
	Layout    *string
	Numbering *Numbering
	Prices    []ZonePrice
}

// UpdateHall is ChangeHall with every field of in given.
func (w *CatalogWriter) UpdateHall(ctx context.Context, actorID, id int64, in HallInput) (*HallLayout, error) {
	return w.ChangeHall(ctx, actorID, id, HallChange{Name: &in.Name, Layout: &in.Layout, Numbering: &in.Numbering, Prices: in.Prices})
}

// ChangeHall changes a hall's name, layout and numbering, written by actorID, audited as
// "hall.update", and returns it; a change that changes nothing writes nothing. A seat
// whose label stays keeps its id (and its orders); a seat whose label leaves the layout
// is deleted, or, when orders or house seats name it, leaves the hall and keeps its label
// for them. Zones the layout uses are created; the prices of zones it no longer uses are
// dropped from shows that have not started, and zones no seat and no show price names any
// more are deleted. The seat maps in Redis of the hall's shows that have not started
// follow the new layout (Shows.RefreshHall through SeatMaps).
//
// Seats taken for a show that has not started (held, sold, or a house seat) keep their
// label, cell, zone and sellability: every seat of the hall is locked for update first,
// in seat id order as orders lock theirs, so an order committing now either commits
// before the edit (which then sees it and is refused) or after it (and is refused
// itself: catalog.LockSeats; invariant 12). A label that comes back gets back the seat id
// orders or house seats knew it by (reviveSeats). Each zone of the new layout must stay
// priced for the hall's shows that have not started: ch.Prices supplies missing prices
// (priceHallZones).
//
// Errors: INVALID_REQUEST (name, layout, prices; no layout for a hall without layout
// text), NOT_FOUND, CONFLICT wrapping ErrDuplicateHallName, CONFLICT naming the seats
// and the shows (movie title and local start time) when the change would remove, move,
// block or re-zone a taken seat, CONFLICT naming the shows left with an unpriced zone
// (nothing is changed), UNAVAILABLE.
func (w *CatalogWriter) ChangeHall(ctx context.Context, actorID, id int64, ch HallChange) (*HallLayout, error) {
	if err := checkPrices(ch.Prices, nil, false); err != nil {
		return nil, err
	}
	now := w.clock.Now()
	var (
		name    string
		priced  []int64 // shows that got a price
		touched []int64 // shows whose prices changed
		changed bool
	)
	size, err := w.hallSize(ctx, id, ch)
	if err != nil {
		return nil, err
	}
	tctx, cancel := context.WithTimeout(ctx, hallTxTimeout(size))
	defer cancel()
	err = store.InTx(tctx, w.db, func(tx *sqlx.Tx) error {
		before, err := lockHall(tctx, tx, id)
		if err != nil {
			return err
		}
		in, err := hallInputOf(before, ch)
		if err != nil {
			return err
		}
		var l *Layout
		if name, l, err = checkHallInput(in); err != nil {
			return err
		}
		if err := checkPrices(ch.Prices, l.Hall(name), false); err != nil {
			return err
		}
		d := diffHall(before.Seats, l)
		loc := w.zone // the hall's cinema's zone names the shows in the messages
		if c, err := w.catalog.Cinema(tctx, before.CinemaID); err == nil {
			loc = c.Loc()
		}
		if err := refuseTaken(tctx, tx, d.lost, now, loc); err != nil {
			return err
		}
		zones, err := applyHallDiff(tctx, tx, id, l, d)
		if err != nil {
			return err
		}
		var applied map[string]int64
		if priced, applied, err = priceHallZones(tctx, tx, id, l, ch.Prices, zones, now, loc); err != nil {
			return err
		}
		unpriced, err := unpriceUnusedZones(tctx, tx, id, now)
		if err != nil {
			return err
		}
		touched = append(priced, unpriced...)
		if err := deleteUnusedZones(tctx, tx, id); err != nil {
			return err
		}
		if changed = !d.empty() || name != before.Name || l.Rows != before.Rows || l.Cols != before.Cols || len(touched) > 0; !changed {
			return nil
		}
		if err := store.SetHallGrid(tctx, tx, id, name, l.Rows, l.Cols); err != nil {
			return err
		}
		after := hallAuditOf(name, l)
		after.Prices, after.PricedShows = applied, priced
		return w.audit.Record(tctx, tx, actorID, "hall.update", "hall", strconv.FormatInt(id, 10), hallAuditOfHall(before), after)
	})
	if err != nil {
		return nil, hallWriteError(err, name)
	}
	if changed {
		w.catalog.HallChanged(ctx, id)
		for _, show := range touched {
			w.catalog.ForgetShow(show)
		}
		w.maps.RefreshHall(ctx, id)
	}
	return w.Hall(ctx, id)
}

// hallSize is an upper bound of the seats a change of hall id handles: the seats the
// hall has now or the characters of the new layout, whichever is more.
// Errors: UNAVAILABLE.
func (w *CatalogWriter) hallSize(ctx context.Context, id int64, ch HallChange) (int, error) {
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	n, err := store.HallSeatCount(qctx, w.db, id)
	if err != nil {
		return 0, store.Unavailable("the database", err)
	}
	if ch.Layout != nil {
		n = max(n, len(*ch.Layout))
	}
	return n, nil
}

// lockHall reads hall id with its seats inside tx, the hall's row and every seat locked
// for update. The seats are locked in id order, the order in which an order transaction
// locks its seats (catalog.LockSeats), so the two wait for each other without deadlocking;
// they are listed by row and column. The locks wait for order transactions naming the
// seats and keep new ones out until tx ends, so a read of live orders after it sees every
// one. Errors: NOT_FOUND, or the database's.
func lockHall(ctx context.Context, tx *sqlx.Tx, id int64) (*services.Hall, error) {
	h, err := store.LockHall(ctx, tx, id)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, services.Errorf(services.CodeNotFound, "hall %d not found", id)
		}
		return nil, err
	}
	// a locking read (no snapshot yet): the hall's lock keeps the set of its seats as it is
	ids, err := store.ShareLockHallSeatIDs(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return h, nil
	}
	// in ascending id order, maxInList at a time: the locks are still taken in id order
	h.Seats = make([]services.Seat, 0, len(ids))
	err = inChunks(sortedIDs(ids), maxInList, func(part []int64) error {
		seats, err := store.LockSeatsForUpdate(ctx, tx, part)
		if err != nil {
			return err
		}
		h.Seats = append(h.Seats, seats...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	codes, err := store.HallZoneCodes(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	code := make(map[int64]string, len(codes))
	for _, z := range codes {
		code[z.ID] = z.Code
	}
	for i := range h.Seats {
		h.Seats[i].ZoneCode = code[h.Seats[i].ZoneID]
	}
	sort.Slice(h.Seats, func(i, j int) bool {
		a, b := h.Seats[i], h.Seats[j]
		return a.Row < b.Row || (a.Row == b.Row && a.Col < b.Col)
	})
	h.Index()
	return h, nil
}

// hallInputOf is the hall as ch leaves it: the name, layout text and numbering of before
// where ch has none. Errors: INVALID_REQUEST when before cannot be written as layout text
// and ch sends no layout.
func hallInputOf(before *services.Hall, ch HallChange) (HallInput, error) {
	in := HallInput{Name: before.Name}
	text, num, ferr := FormatLayout(before)
	in.Layout, in.Numbering = text, num
	if ch.Name != nil {
		in.Name = *ch.Name
	}
	if ch.Numbering != nil {
		in.Numbering = *ch.Numbering
	}
	if ch.Layout != nil {
		in.Layout = *ch.Layout
	} else if ferr != nil {
		return in, services.Errorf(services.CodeInvalidRequest, "this hall cannot be written as layout text (%s); send a layout", ferr.Error())
	}
	return in, nil
}

// hallAuditOfHall is the audit view of a hall as stored.
func hallAuditOfHall(h *services.Hall) *HallAudit {
	out := &HallAudit{Name: h.Name, Rows: h.Rows, Cols: h.Cols, Seats: map[string]int{}}
	out.Layout, out.Numbering, _ = FormatLayout(h)
	for _, s := range h.Seats {
		if s.Sellable() {
			out.Seats[s.ZoneCode]++
		} else {
			out.Blocked++
		}
	}
	return out
}

// hallDiff is how a new layout changes a hall's seats (matched by label).
type hallDiff struct {
	changed map[int64]LayoutSeat // same label at the same cell, another kind or zone
	moved   map[int64]LayoutSeat // same label at another cell
	removed []int64              // label no longer in the layout
	added   []LayoutSeat
	lost    []int64 // removed, moved, newly blocked or re-zoned: refused while taken (refuseTaken)
}

// empty reports whether d changes no seat.
func (d *hallDiff) empty() bool {
	return len(d.changed) == 0 && len(d.moved) == 0 && len(d.removed) == 0 && len(d.added) == 0
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
// (reviveSeats) or inserted. It returns zone code -> id of the hall's zones.
func applyHallDiff(ctx context.Context, tx *sqlx.Tx, hallID int64, l *Layout, d *hallDiff) (map[string]int64, error) {
	zones, err := ensureZones(ctx, tx, hallID, l)
	if err != nil {
		return nil, err
	}
	if len(d.removed) > 0 {
		var named []int64
		err := inChunks(d.removed, maxInList/2, func(part []int64) error {
			some, err := store.SeatsNamedByOrders(ctx, tx, part)
			if err != nil {
				return err
			}
			named = append(named, some...)
			return nil
		})
		if err != nil {
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
		retire := func(part []int64) error { return store.RetireSeats(ctx, tx, hallID, part) }
		remove := func(part []int64) error { return store.DeleteSeats(ctx, tx, part) }
		if err := inChunks(sortedIDs(named), maxInList, retire); err != nil {
			return nil, err
		}
		if err := inChunks(sortedIDs(del), maxInList, remove); err != nil {
			return nil, err
		}
	}
	if len(d.moved) > 0 { // park them off the grid first: their new cells may be each other's old ones
		ids := make([]int64, 0, len(d.moved))
		for id := range d.moved {
			ids = append(ids, id)
		}
		park := func(part []int64) error { return store.ParkSeats(ctx, tx, part) }
		if err := inChunks(sortedIDs(ids), maxInList, park); err != nil {
			return nil, err
		}
	}
	for _, m := range []map[int64]LayoutSeat{d.moved, d.changed} {
		if err := updateSeats(ctx, tx, zones, m); err != nil {
			return nil, err
		}
	}
	added, err := reviveSeats(ctx, tx, hallID, zones, d.added)
	if err != nil {
		return nil, err
	}
	if err := insertSeats(ctx, tx, hallID, zones, added); err != nil {
		return nil, err
	}
	return zones, nil
}

// updateSeats sets the cell, kind and zone of each seat of m (seat id -> its place in
// the layout), maxSeatRows seats to a statement, in id order: each statement joins the
// seats to a derived table of their new values.
func updateSeats(ctx context.Context, tx *sqlx.Tx, zones map[string]int64, m map[int64]LayoutSeat) error {
	ids := make([]int64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	return inChunks(sortedIDs(ids), maxSeatRows, func(part []int64) error {
		moves := make([]store.SeatMove, len(part))
		for i, id := range part {
			st := m[id]
			moves[i] = store.SeatMove{ID: id, Row: st.Row, Col: st.Col, Kind: st.Kind, ZoneID: zones[st.Zone]}
		}
		return store.MoveSeats(ctx, tx, moves)
	})
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
	var retired []store.LabelledSeat
	err := inChunks(labels, maxInList, func(part []string) error {
		some, err := store.RetiredSeatsByLabel(ctx, tx, hallID, part)
		if err != nil {
			return err
		}
		retired = append(retired, some...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(retired, func(i, j int) bool { return retired[i].ID < retired[j].ID })
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
		if err := store.ReviveSeat(ctx, tx, id, hallID, store.SeatMove{Row: s.Row, Col: s.Col, Kind: s.Kind, ZoneID: zones[s.Zone]}); err != nil {
			return nil, err
		}
	}
	return rest, nil
}
