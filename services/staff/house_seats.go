package staff

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/seats"
	"seatflow/services/store"
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

// HouseAudit is how a show's house seats appear in the audit log: the whole set of
// house seat labels before and after, with the reason after.
type HouseAudit struct {
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
// Errors: INVALID_REQUEST (no seats, too many, duplicates, reason refused by CheckReason),
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
		case attempt >= blockAttempts-1:
		case errors.Is(err, errHouseNotLoaded):
			if lerr := s.seats.Load(ctx, showID); lerr != nil {
				return nil, lerr
			}
			continue
		case store.IsRetryable(err):
			if s.pause != nil {
				s.pause("block-retry")
			}
			store.RetryPause(attempt)
			continue
		case store.DuplicateOn(err, "PRIMARY"):
			continue // a concurrent block won a row: the next attempt says which
		}
		if errors.Is(err, errHouseNotLoaded) {
			return nil, store.Unavailable("the seat cache", err)
		}
		var e *services.Error
		if errors.As(err, &e) {
			return nil, err
		}
		return nil, store.Unavailable("the database", err)
	}
}

// blockAttempts is how many times Block tries its transaction. Its locking reads of
// the seats' live orders meet the order transactions of a sale in progress, and InnoDB
// picks one of them as a deadlock victim now and then: a staff action can afford more
// tries (pauses of 2, 4, … 128 ms at most) than a buyer's request.
const blockAttempts = 8

// blockOnce is one attempt of Block: the transaction with the compare-and-set inside.
func (s *ShowSeats) blockOnce(ctx context.Context, actorID int64, show *services.Show, hall *services.Hall, refs []seats.SeatRef, reason string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), store.DBTimeout)
	defer cancel()
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := s.lockEditableShow(ctx, tx, show); err != nil {
		return err
	}
	ids := refIDs(refs)
	// the seats as a hall edit left them, locked against one now (invariant 12)
	current, err := catalog.LockSeats(ctx, tx, ids)
	if err != nil {
		return err
	}
	var gone []string
	for _, id := range ids {
		if cur, ok := current[id]; !ok || !cur.SellableIn(show.HallID) {
			gone = append(gone, seatLabel(hall, id))
		}
	}
	if len(gone) > 0 {
		return &services.Error{Code: services.CodeSeatNotInShow, Seats: gone, Message: "the hall changed; no longer a sellable seat of this show: " + strings.Join(gone, ", ")}
	}
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
		return &services.Error{Code: services.CodeConflict, Message: "already house seats: " + strings.Join(already, ", "), Seats: already}
	}
	// a live order in MySQL wins, also when the seat cache lost its hold; the locking
	// read waits for an order being written now
	live, err := store.LockHouseSeatLiveOrders(ctx, tx, show.ID, ids)
	if err != nil {
		return err
	}
	if len(live) > 0 {
		taken := map[int64]string{}
		for _, l := range live {
			taken[l.SeatID] = seats.EncodeSeat(l.Status == services.OrderPaid, l.OrderNo, 0)
		}
		return takenError(hall, taken)
	}
	now := s.clock.Now()
	if err := store.InsertHouseSeats(ctx, tx, show.ID, ids, actorID, reason, now); err != nil {
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
		return store.Unavailable("the seat cache", err)
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
func (s *ShowSeats) undoBlock(showID int64, refs []seats.SeatRef) {
	ctx, cancel := context.WithTimeout(context.Background(), store.RedisTimeout)
	defer cancel()
	if _, err := s.runHouse(ctx, showID, "UNBLOCK", refs); err != nil {
		s.orders.Log().Error("house seats of a failed block left blocked in the seat cache; reconciliation frees them",
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
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), store.DBTimeout)
	defer cancel()
	err = store.InTx(dctx, s.db, func(tx *sqlx.Tx) error {
		if err := s.lockEditableShow(dctx, tx, show); err != nil {
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
			return &services.Error{Code: services.CodeConflict, Message: "not house seats: " + strings.Join(not, ", "), Seats: not}
		}
		if err := store.DeleteHouseSeats(dctx, tx, show.ID, ids); err != nil {
			return err
		}
		after := copySet(before)
		for _, id := range ids {
			delete(after, id)
		}
		return s.auditHouse(dctx, tx, actorID, "show.house_unblock", show.ID, hall, before, after, ids, reason)
	})
	if err != nil {
		var e *services.Error
		if errors.As(err, &e) {
			return nil, err
		}
		return nil, store.Unavailable("the database", err)
	}
	out := &HouseChange{ShowID: showID, Seats: refLabels(hall, refs)}
	res, err := s.runHouse(ctx, showID, "UNBLOCK", refs)
	switch {
	case err != nil:
		s.orders.Log().Warn("house seats unblocked in MySQL but not yet in the seat cache; reconciliation frees them",
			"show_id", showID, "err", err)
	case res[0] == "OK" && len(res) > 1:
		out.Freed, _ = strconv.Atoi(res[1])
	}
	return out, nil
}
