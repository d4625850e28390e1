package services

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// MaxHouseSeatsPerRequest bounds one block or unblock request (seats).
const MaxHouseSeatsPerRequest = 500

// HouseChange is what a block or unblock did: the show, the labels of the seats it
// changed (in hall order), and for an unblock how many of them the seat cache freed at
// once (the others follow with the next reconciliation).
type HouseChange struct {
	ShowID int64
	Seats  []string
	Freed  int
}

// houseAudit is how a show's house seats appear in the audit log: the whole set of
// house seat labels before and after, with the reason after.
type houseAudit struct {
	ShowID     string   `json:"show_id"`
	HouseSeats []string `json:"house_seats"`
	Changed    []string `json:"changed,omitempty"`
	Reason     string   `json:"reason,omitempty"`
}

// errHouseNotLoaded says the house script found no seat map: load it and try again.
var errHouseNotLoaded = errors.New("seat map not loaded")

// Block makes seats of show showID house seats for staff member actorID: shown as
// blocked, never sold online. All or nothing: every seat must be a sellable seat of the
// show's hall, not a house seat already, in no live order in MySQL and free in the seat
// cache; one refused seat writes nothing anywhere. The house-seat rows and the audit
// entry are written in one MySQL transaction, and the seat cache is switched from free to
// blocked by a compare-and-set (lua/house.lua) before it commits, so a buyer who holds a
// seat, or takes it at the same moment, keeps it. reason is optional (at most
// MaxReasonLen characters).
// Errors: INVALID_REQUEST (no seats, too many, duplicates, reason too long),
// NOT_FOUND (show), SEAT_NOT_IN_SHOW (not a sellable seat of the hall), SEAT_TAKEN
// (seats held, sold or blocked: Seats names them), CONFLICT (already house seats; the
// show is cancelled or has started), UNAVAILABLE (nothing was written).
func (s *ShowSeats) Block(ctx context.Context, actorID, showID int64, seatIDs []int64, reason string) (*HouseChange, error) {
	show, hall, refs, err := s.houseRequest(ctx, showID, seatIDs, reason)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		err = s.blockOnce(ctx, actorID, show, hall, refs, strings.TrimSpace(reason))
		switch {
		case err == nil:
			return &HouseChange{ShowID: showID, Seats: refLabels(hall, refs)}, nil
		case attempt >= 3:
		case errors.Is(err, errHouseNotLoaded):
			if lerr := s.seats.Load(ctx, showID); lerr != nil {
				return nil, lerr
			}
			continue
		case isRetryable(err) || isDuplicate(err):
			continue // a concurrent block won a row: the next attempt says which
		}
		if errors.Is(err, errHouseNotLoaded) {
			return nil, unavailable("the seat cache", err)
		}
		var e *Error
		if errors.As(err, &e) {
			return nil, err
		}
		return nil, unavailable("the database", err)
	}
}

// blockOnce is one attempt of Block: the transaction with the compare-and-set inside.
func (s *ShowSeats) blockOnce(ctx context.Context, actorID int64, show *Show, hall *Hall, refs []SeatRef, reason string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), dbTimeout)
	defer cancel()
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := s.lockEditableShow(ctx, tx, show.ID); err != nil {
		return err
	}
	ids := refIDs(refs)
	before, err := houseSeatIDsTx(ctx, tx, show.ID)
	if err != nil {
		return err
	}
	var already []string
	for _, id := range ids {
		if before[id] {
			already = append(already, seatLabel(hall, id))
		}
	}
	if len(already) > 0 {
		return &Error{Code: CodeConflict, Message: "already house seats: " + strings.Join(already, ", "), Seats: already}
	}
	// a live order in MySQL wins, also when the seat cache lost its hold; the locking
	// read waits for an order being written now
	q, args, err := sqlx.In(`SELECT os.seat_id, o.order_no, o.status FROM order_seats os JOIN orders o ON o.id = os.order_id
		WHERE os.show_id = ? AND os.live = 1 AND os.seat_id IN (?) FOR UPDATE`, show.ID, ids)
	if err != nil {
		return err
	}
	var live []struct {
		SeatID  int64  `db:"seat_id"`
		OrderNo string `db:"order_no"`
		Status  string `db:"status"`
	}
	if err := tx.SelectContext(ctx, &live, tx.Rebind(q), args...); err != nil {
		return err
	}
	if len(live) > 0 {
		taken := map[int64]string{}
		for _, l := range live {
			taken[l.SeatID] = EncodeSeat(l.Status == OrderPaid, l.OrderNo, 0)
		}
		return takenError(hall, taken)
	}
	now := s.clock.Now()
	ins := "INSERT INTO show_house_seats (show_id, seat_id, created_by, reason, created_at) VALUES "
	iargs := make([]any, 0, 5*len(ids))
	for i, id := range ids {
		if i > 0 {
			ins += ", "
		}
		ins += "(?, ?, ?, ?, ?)"
		iargs = append(iargs, show.ID, id, nullID(actorID), reason, now)
	}
	if _, err := tx.ExecContext(ctx, ins, iargs...); err != nil {
		return err
	}
	after := copySet(before)
	for _, id := range ids {
		after[id] = true
	}
	if err := s.auditHouse(ctx, tx, actorID, "show.house_block", show.ID, hall, before, after, ids, reason); err != nil {
		return err
	}
	res, err := s.runHouse(ctx, show.ID, "BLOCK", refs)
	if err != nil {
		// the script may have run though its reply was lost: put back what it blocked
		s.undoBlock(show.ID, refs)
		return unavailable("the seat cache", err)
	}
	switch res[0] {
	case "NOT_LOADED":
		return errHouseNotLoaded
	case "TAKEN":
		taken := map[int64]string{}
		for i := 1; i+1 < len(res); i += 2 {
			id, _ := strconv.ParseInt(res[i], 10, 64)
			taken[id] = res[i+1]
		}
		return takenError(hall, taken)
	case "OK":
	default:
		return fmt.Errorf("house script: unexpected reply %v", res)
	}
	if s.pause != nil {
		s.pause("block-commit")
	}
	if err := tx.Commit(); err != nil {
		s.undoBlock(show.ID, refs)
		return err
	}
	return nil
}

// undoBlock frees seats a block switched to blocked in the seat cache when its
// transaction did not commit (blocked -> free only; a seat with another value is left).
func (s *ShowSeats) undoBlock(showID int64, refs []SeatRef) {
	ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
	defer cancel()
	if _, err := s.runHouse(ctx, showID, "UNBLOCK", refs); err != nil {
		s.orders.log.Error("house seats of a failed block left blocked in the seat cache; reconciliation frees them",
			"show_id", showID, "err", err)
	}
}

// Unblock makes house seats of show showID sellable again for staff member actorID.
// All or nothing: every seat must be a house seat of the show. The rows are deleted with
// the audit entry in one transaction; after it commits, the seat cache frees each seat
// that is still blocked (compare-and-set). A seat cache that cannot be reached then is
// set right by the next reconciliation (the seats stay unsold meanwhile, never the other
// way round). Errors: INVALID_REQUEST, NOT_FOUND (show), SEAT_NOT_IN_SHOW, CONFLICT (not
// house seats: Seats names them; the show is cancelled or has started), UNAVAILABLE.
func (s *ShowSeats) Unblock(ctx context.Context, actorID, showID int64, seatIDs []int64, reason string) (*HouseChange, error) {
	show, hall, refs, err := s.houseRequest(ctx, showID, seatIDs, reason)
	if err != nil {
		return nil, err
	}
	reason = strings.TrimSpace(reason)
	ids := refIDs(refs)
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), dbTimeout)
	defer cancel()
	err = inTx(dctx, s.db, func(tx *sqlx.Tx) error {
		if err := s.lockEditableShow(dctx, tx, show.ID); err != nil {
			return err
		}
		before, err := houseSeatIDsTx(dctx, tx, show.ID)
		if err != nil {
			return err
		}
		var not []string
		for _, id := range ids {
			if !before[id] {
				not = append(not, seatLabel(hall, id))
			}
		}
		if len(not) > 0 {
			return &Error{Code: CodeConflict, Message: "not house seats: " + strings.Join(not, ", "), Seats: not}
		}
		q, args, err := sqlx.In("DELETE FROM show_house_seats WHERE show_id = ? AND seat_id IN (?)", show.ID, ids)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(dctx, tx.Rebind(q), args...); err != nil {
			return err
		}
		after := copySet(before)
		for _, id := range ids {
			delete(after, id)
		}
		return s.auditHouse(dctx, tx, actorID, "show.house_unblock", show.ID, hall, before, after, ids, reason)
	})
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, err
		}
		return nil, unavailable("the database", err)
	}
	out := &HouseChange{ShowID: showID, Seats: refLabels(hall, refs)}
	res, err := s.runHouse(ctx, showID, "UNBLOCK", refs)
	switch {
	case err != nil:
		s.orders.log.Warn("house seats unblocked in MySQL but not yet in the seat cache; reconciliation frees them",
			"show_id", showID, "err", err)
	case res[0] == "OK" && len(res) > 1:
		out.Freed, _ = strconv.Atoi(res[1])
	}
	return out, nil
}

// houseRequest checks a block or unblock request before any write: the seat ids, the
// reason, the show (not cancelled, not started) and that every seat is a sellable seat
// of its hall. It returns the seats in hall order with their zones.
func (s *ShowSeats) houseRequest(ctx context.Context, showID int64, seatIDs []int64, reason string) (*Show, *Hall, []SeatRef, error) {
	switch {
	case len(seatIDs) == 0:
		return nil, nil, nil, errf(CodeInvalidRequest, "choose at least one seat")
	case len(seatIDs) > MaxHouseSeatsPerRequest:
		return nil, nil, nil, errf(CodeInvalidRequest, "at most %d seats at a time", MaxHouseSeatsPerRequest)
	case len([]rune(strings.TrimSpace(reason))) > MaxReasonLen:
		return nil, nil, nil, errf(CodeInvalidRequest, "reason is longer than %d characters", MaxReasonLen)
	}
	seen := map[int64]bool{}
	for _, id := range seatIDs {
		if id <= 0 {
			return nil, nil, nil, errf(CodeInvalidRequest, "seat id %d is not a positive integer", id)
		}
		if seen[id] {
			return nil, nil, nil, errf(CodeInvalidRequest, "seat %d is listed twice", id)
		}
		seen[id] = true
	}
	show, err := s.catalog.Show(ctx, showID)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := editable(show.Status, show.StartsAt, s.clock.Now()); err != nil {
		return nil, nil, nil, err
	}
	hall, err := s.catalog.Hall(ctx, show.HallID)
	if err != nil {
		return nil, nil, nil, err
	}
	var bad []string
	for _, id := range seatIDs {
		if st, ok := hall.Seat(id); !ok {
			bad = append(bad, strconv.FormatInt(id, 10))
		} else if !st.Sellable() {
			bad = append(bad, st.Label)
		}
	}
	if len(bad) > 0 {
		return nil, nil, nil, &Error{Code: CodeSeatNotInShow, Message: "not a sellable seat of this show's hall: " + strings.Join(bad, ", "), Seats: bad}
	}
	var refs []SeatRef
	for _, st := range hall.Seats { // hall order: rows, then columns
		if seen[st.ID] {
			refs = append(refs, SeatRef{ID: st.ID, Zone: st.ZoneCode})
		}
	}
	return show, hall, refs, nil
}

// editable refuses house-seat changes for a cancelled show or one that has started.
func editable(status string, startsAt, now time.Time) error {
	switch {
	case status == ShowCancelled:
		return errf(CodeConflict, "the show is cancelled: its house seats can no longer change")
	case !now.Before(startsAt):
		return errf(CodeConflict, "the show has started: its house seats can no longer change")
	}
	return nil
}

// lockEditableShow locks the show's row (shared: a concurrent cancel waits) and checks
// again that it is neither cancelled nor started.
func (s *ShowSeats) lockEditableShow(ctx context.Context, tx *sqlx.Tx, showID int64) error {
	var row struct {
		Status   string    `db:"status"`
		StartsAt time.Time `db:"starts_at"`
	}
	if err := tx.GetContext(ctx, &row, "SELECT status, starts_at FROM shows WHERE id = ? LOCK IN SHARE MODE", showID); err != nil {
		if isNoRows(err) {
			return errf(CodeNotFound, "show %d not found", showID)
		}
		return err
	}
	return editable(row.Status, row.StartsAt, s.clock.Now())
}

// runHouse runs lua/house.lua with op ("BLOCK" or "UNBLOCK") on refs.
func (s *ShowSeats) runHouse(ctx context.Context, showID int64, op string, refs []SeatRef) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	res, err := s.house.Run(ctx, s.seats.rdb, s.seats.Keys(showID), append([]any{op}, refArgs(refs)...)...).StringSlice()
	if err == nil && len(res) == 0 {
		err = fmt.Errorf("house script returned nothing")
	}
	return res, err
}

// auditHouse records a change of the show's house seats with the whole set before and after.
func (s *ShowSeats) auditHouse(ctx context.Context, tx *sqlx.Tx, actorID int64, action string, showID int64, hall *Hall,
	before, after map[int64]bool, changed []int64, reason string) error {
	id := strconv.FormatInt(showID, 10)
	return s.audit.Record(ctx, tx, actorID, action, "show", id,
		houseAudit{ShowID: id, HouseSeats: setLabels(hall, before)},
		houseAudit{ShowID: id, HouseSeats: setLabels(hall, after), Changed: idLabels(hall, changed), Reason: reason})
}

// takenError names seats that are not free (value: the seat-cache encoding of what has
// them) as SEAT_TAKEN.
func takenError(hall *Hall, taken map[int64]string) error {
	ids := make([]int64, 0, len(taken))
	for id := range taken {
		ids = append(ids, id)
	}
	sortHallOrder(hall, ids)
	var names, why []string
	for _, id := range ids {
		l := seatLabel(hall, id)
		names = append(names, l)
		state, no, _ := SeatValue(taken[id])
		switch {
		case state == StateSold:
			why = append(why, l+" (sold, order "+no+")")
		case state == StateHeld:
			why = append(why, l+" (held, order "+no+")")
		case state == StateBlocked:
			why = append(why, l+" (blocked)")
		default:
			why = append(why, l+" (not free)")
		}
	}
	return &Error{Code: CodeSeatTaken, Message: "only free seats can become house seats; not free: " + strings.Join(why, ", "), Seats: names}
}

// houseSeatsForSnapshot returns the house seats of a show for SnapshotFromDB with a
// locking read: a block or unblock whose transaction is open is waited for, so a
// snapshot never misses a block whose seats the seat cache already shows blocked. A
// deadlock with such a transaction is retried.
func houseSeatsForSnapshot(ctx context.Context, db *sqlx.DB, showID int64) (map[int64]bool, error) {
	var err error
	for attempt := 0; attempt < txAttempts; attempt++ {
		var ids []int64
		if err = db.SelectContext(ctx, &ids, "SELECT seat_id FROM show_house_seats WHERE show_id = ? LOCK IN SHARE MODE", showID); err == nil {
			out := make(map[int64]bool, len(ids))
			for _, id := range ids {
				out[id] = true
			}
			return out, nil
		}
		if !isRetryable(err) {
			break
		}
	}
	return nil, unavailable("the database", err)
}

// houseSeatIDsTx reads the show's house seats inside tx.
func houseSeatIDsTx(ctx context.Context, tx *sqlx.Tx, showID int64) (map[int64]bool, error) {
	var ids []int64
	if err := tx.SelectContext(ctx, &ids, "SELECT seat_id FROM show_house_seats WHERE show_id = ? FOR UPDATE", showID); err != nil {
		return nil, err
	}
	out := make(map[int64]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}

func refIDs(refs []SeatRef) []int64 {
	out := make([]int64, len(refs))
	for i, r := range refs {
		out[i] = r.ID
	}
	return out
}

func refLabels(hall *Hall, refs []SeatRef) []string { return idLabels(hall, refIDs(refs)) }

func idLabels(hall *Hall, ids []int64) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = seatLabel(hall, id)
	}
	return out
}

// setLabels lists the labels of a set of seats in hall order (never nil).
func setLabels(hall *Hall, set map[int64]bool) []string {
	ids := make([]int64, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	sortHallOrder(hall, ids)
	out := idLabels(hall, ids)
	if out == nil {
		out = []string{}
	}
	return out
}

func seatLabel(hall *Hall, id int64) string {
	if st, ok := hall.Seat(id); ok {
		return st.Label
	}
	return strconv.FormatInt(id, 10)
}

// sortHallOrder sorts seat ids by row, then column (unknown seats last, by id).
func sortHallOrder(hall *Hall, ids []int64) {
	pos := func(id int64) (int, int) {
		if st, ok := hall.Seat(id); ok {
			return st.Row, st.Col
		}
		return 1 << 30, int(id)
	}
	sort.Slice(ids, func(i, j int) bool {
		ri, ci := pos(ids[i])
		rj, cj := pos(ids[j])
		return ri < rj || (ri == rj && ci < cj)
	})
}

func copySet(m map[int64]bool) map[int64]bool {
	out := make(map[int64]bool, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
