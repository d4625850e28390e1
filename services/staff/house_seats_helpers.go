package staff

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// houseRequest checks a block or unblock request before any write: the seat ids, the
// reason, the show (not cancelled, not started) and that every seat is a sellable seat
// of its hall. It returns the seats in hall order with their zones.
func (s *ShowSeats) houseRequest(ctx context.Context, showID int64, seatIDs []int64, reason string) (*services.Show, *services.Hall, []seats.SeatRef, error) {
	switch {
	case len(seatIDs) == 0:
		return nil, nil, nil, services.Errorf(services.CodeInvalidRequest, "choose at least one seat")
	case len(seatIDs) > MaxHouseSeatsPerRequest:
		return nil, nil, nil, services.Errorf(services.CodeInvalidRequest, "at most %d seats at a time", MaxHouseSeatsPerRequest)
	}
	if err := CheckReason(strings.TrimSpace(reason)); err != nil {
		return nil, nil, nil, err
	}
	seen := map[int64]bool{}
	for _, id := range seatIDs {
		if id <= 0 {
			return nil, nil, nil, services.Errorf(services.CodeInvalidRequest, "seat id %d is not a positive integer", id)
		}
		if seen[id] {
			return nil, nil, nil, services.Errorf(services.CodeInvalidRequest, "seat %d is listed twice", id)
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
		return nil, nil, nil, &services.Error{Code: services.CodeSeatNotInShow, Message: "not a sellable seat of this show's hall: " + strings.Join(bad, ", "), Seats: bad}
	}
	var refs []seats.SeatRef
	for _, st := range hall.Seats { // hall order: rows, then columns
		if seen[st.ID] {
			refs = append(refs, seats.SeatRef{ID: st.ID, Zone: st.ZoneCode})
		}
	}
	return show, hall, refs, nil
}

// editable refuses house-seat changes for a cancelled show or one that has started.
func editable(status string, startsAt, now time.Time) error {
	switch {
	case status == services.ShowCancelled:
		return services.Errorf(services.CodeConflict, "the show is cancelled: its house seats can no longer change")
	case !now.Before(startsAt):
		return services.Errorf(services.CodeConflict, "the show has started: its house seats can no longer change")
	}
	return nil
}

// lockEditableShow begins a change of the show's house seats: it locks the row of the
// show's hall for update, so one change of the hall's house seats runs at a time (two
// changes that each read the show's house seats, then inserted, met in each other's gap
// locks and deadlocked), then the show's row (shared: a concurrent cancel waits), and
// checks again that it is neither cancelled nor started. The hall comes first, as in a
// hall edit and a change of the hall's shows.
func (s *ShowSeats) lockEditableShow(ctx context.Context, tx *sqlx.Tx, show *services.Show) error {
	if err := store.LockHallForShows(ctx, tx, show.HallID); err != nil {
		return err
	}
	status, startsAt, err := store.LockShowForHouseSeats(ctx, tx, show.ID)
	if err != nil {
		if store.IsNoRows(err) {
			return services.Errorf(services.CodeNotFound, "show %d not found", show.ID)
		}
		return err
	}
	return editable(status, startsAt, s.clock.Now())
}

// runHouse runs lua/house.lua with op ("BLOCK" or "UNBLOCK") on refs.
func (s *ShowSeats) runHouse(ctx context.Context, showID int64, op string, refs []seats.SeatRef) ([]string, error) {
	defer s.seats.Changed(showID)
	ctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
	defer cancel()
	res, err := s.house.Run(ctx, s.seats.Redis(), s.seats.Keys(showID), append([]any{op}, seats.RefArgs(refs)...)...).StringSlice()
	if err == nil && len(res) == 0 {
		err = fmt.Errorf("house script returned nothing")
	}
	return res, err
}

// auditHouse records a change of the show's house seats with the whole set before and after.
func (s *ShowSeats) auditHouse(ctx context.Context, tx *sqlx.Tx, actorID int64, action string, showID int64, hall *services.Hall, before, after map[int64]bool, changed []int64, reason string) error {
	id := strconv.FormatInt(showID, 10)
	return s.audit.Record(ctx, tx, actorID, action, "show", id,
		HouseAudit{ShowID: id, HouseSeats: setLabels(hall, before)},
		HouseAudit{ShowID: id, HouseSeats: setLabels(hall, after), Changed: idLabels(hall, changed), Reason: reason})
}

// takenError names seats that are not free (value: the seat-cache encoding of what has
// them) as SEAT_TAKEN.
func takenError(hall *services.Hall, taken map[int64]string) error {
	ids := make([]int64, 0, len(taken))
	for id := range taken {
		ids = append(ids, id)
	}
	sortHallOrder(hall, ids)
	var names, why []string
	for _, id := range ids {
		l := seatLabel(hall, id)
		names = append(names, l)
		state, no, _ := seats.SeatValue(taken[id])
		switch {
		case state == services.StateSold:
			why = append(why, l+" (sold, order "+no+")")
		case state == services.StateHeld:
			why = append(why, l+" (held, order "+no+")")
		case state == services.StateBlocked:
			why = append(why, l+" (blocked)")
		default:
			why = append(why, l+" (not free)")
		}
	}
	return &services.Error{Code: services.CodeSeatTaken, Message: "only free seats can become house seats; not free: " + strings.Join(why, ", "), Seats: names}
}

// houseSeatIDsTx reads the show's house seats inside tx.
func houseSeatIDsTx(ctx context.Context, tx *sqlx.Tx, showID int64) (map[int64]bool, error) {
	ids, err := store.LockHouseSeatIDs(ctx, tx, showID)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}

func refIDs(refs []seats.SeatRef) []int64 {
	out := make([]int64, len(refs))
	for i, r := range refs {
		out[i] = r.ID
	}
	return out
}

func refLabels(hall *services.Hall, refs []seats.SeatRef) []string {
	return idLabels(hall, refIDs(refs))
}

func idLabels(hall *services.Hall, ids []int64) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = seatLabel(hall, id)
	}
	return out
}

// setLabels lists the labels of a set of seats in hall order (never nil).
func setLabels(hall *services.Hall, set map[int64]bool) []string {
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

func seatLabel(hall *services.Hall, id int64) string {
	if st, ok := hall.Seat(id); ok {
		return st.Label
	}
	return strconv.FormatInt(id, 10)
}

// sortHallOrder sorts seat ids by row, then column (unknown seats last, by id).
func sortHallOrder(hall *services.Hall, ids []int64) {
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
