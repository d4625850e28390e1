package seats

import (
	"context"
	"strconv"

	"seatflow/services"
)

// SetMirrors makes SeatStates answer from m (the published changes since a read of
// the whole map) where it can. Set it before use.
func (s *Listing) SetMirrors(m *SeatMirrors) { s.mirrors = m }

// SeatStates is SeatMap without the owners, for a reader that only renders the map:
// the show's hall and each seat's state in the hall's seat order (states[i] is
// hall.Seats[i]'s: StateFree, StateHeld, StateSold or StateBlocked, held for a value it
// cannot read), as of the call or later: from the mirror (SetMirrors) after a Sync, else
// from one read of the seat hash; it loads the map into Redis from MySQL when missing.
// The same values as SeatMap's States, without building its maps. Errors: NOT_FOUND,
// UNAVAILABLE.
func (s *Listing) SeatStates(ctx context.Context, id int64) (*services.Hall, []string, error) {
	show, err := s.Get(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	hall, err := s.catalog.Hall(ctx, show.HallID)
	if err != nil {
		return nil, nil, err
	}
	read := func(ctx context.Context) (map[string]string, error) { return s.seats.rawStates(ctx, id) }
	for attempt := 0; ; attempt++ {
		var states []string
		complete := false
		if s.mirrors != nil {
			states, complete, err = s.mirrors.States(ctx, id, hall, read)
		} else {
			var raw map[string]string
			if raw, err = read(ctx); err == nil {
				states, complete = statesInHallOrder(hall, raw)
			}
		}
		if err != nil {
			return nil, nil, err
		}
		if complete || attempt > 0 {
			return hall, states, nil
		}
		// a field is missing: not loaded, never free (invariant 3); fill it from MySQL
		if err := s.seats.Load(ctx, id); err != nil {
			return nil, nil, err
		}
	}
}

// statesInHallOrder maps the seat hash's values (field -> value) onto hall's seats, as
// SeatMap does: a seat that cannot be sold is blocked, a value it cannot read held
// (never offered as free). complete is false when a seat of the hall has no field.
func statesInHallOrder(hall *services.Hall, raw map[string]string) (states []string, complete bool) {
	states = make([]string, len(hall.Seats))
	seen := 0
	for k, v := range raw {
		id, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			continue
		}
		i, ok := hall.SeatIndex(id)
		if !ok {
			continue
		}
		state := stateOf(v)
		if state == "" {
			state = services.StateHeld
		}
		states[i] = state
		seen++
	}
	for i, st := range hall.Seats {
		switch {
		case !st.Sellable():
			states[i] = services.StateBlocked
		case states[i] == "":
			states[i] = services.StateHeld
		}
	}
	return states, seen == len(hall.Seats)
}

// stateOf is a seat value's state (SeatValue's, which also reads the order and the
// owner); "" for a value it cannot read.
func stateOf(v string) string {
	switch {
	case v == SeatFree:
		return services.StateFree
	case v == seatBlocked:
		return services.StateBlocked
	case len(v) >= 2 && v[1] == '|' && v[0] == 'H':
		return services.StateHeld
	case len(v) >= 2 && v[1] == '|' && v[0] == 'S':
		return services.StateSold
	}
	return ""
}
