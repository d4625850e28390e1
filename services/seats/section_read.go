package seats

import (
	"context"
	"errors"
	"strconv"

	"github.com/redis/go-redis/v9"

	"seatflow/services"
	"seatflow/services/store"
)

// StatesOf returns the raw values of the given seats of a show (seat id -> value) with
// one HMGET of the seats hash, and how many seats userID holds or owns for the show (the
// users hash's count; 0 for userID 0 or a buyer it does not count). A seat the hash
// lacks means the map is not loaded (invariant 3a): the map is loaded from MySQL and
// read again. It reads len(ids) fields, never the whole map: a section of a stadium is
// some 600 of its 83,521 seats. Errors: UNAVAILABLE.
func (s *SeatStore) StatesOf(ctx context.Context, showID int64, ids []int64, userID int64) (map[int64]string, int, error) {
	fields := make([]string, len(ids))
	for i, id := range ids {
		fields[i] = strconv.FormatInt(id, 10)
	}
	keys := s.Keys(showID)
	for attempt := 0; attempt < 3; attempt++ {
		rctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
		pipe := s.rdb.Pipeline()
		var vals *redis.SliceCmd
		if len(fields) > 0 {
			vals = pipe.HMGet(rctx, keys[0], fields...)
		}
		exists := pipe.Exists(rctx, keys[0])
		var owned *redis.StringCmd
		if userID != 0 {
			owned = pipe.HGet(rctx, keys[2], strconv.FormatInt(userID, 10))
		}
		_, err := pipe.Exec(rctx)
		cancel()
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, 0, store.Unavailable("the seat cache", err)
		}
		out := make(map[int64]string, len(ids))
		complete := exists.Val() > 0
		if vals != nil {
			for i, v := range vals.Val() {
				str, ok := v.(string)
				if !ok {
					complete = false
					break
				}
				out[ids[i]] = str
			}
		}
		if !complete {
			if err := s.Load(ctx, showID); err != nil {
				return nil, 0, err
			}
			continue
		}
		n := 0
		if owned != nil {
			n, _ = strconv.Atoi(owned.Val())
		}
		return out, n, nil
	}
	return nil, 0, store.Unavailable("the seat cache", errNotLoaded)
}

// SeatMapOf is SeatMap reading only the seats that pick names of the show's hall (nil
// from pick: every seat, as SeatMap): States and Owners hold those seats alone, Partial
// is set, and Owned counts the seats userID holds or owns in the whole show (from the
// users hash: a lost count reads 0 here, while the hold script still counts in MySQL,
// invariant 3b). A large hall's section page reads its section this way.
// Errors: NOT_FOUND, UNAVAILABLE.
func (s *Listing) SeatMapOf(ctx context.Context, id int64, pick func(*services.Hall) []int64, userID int64) (*SeatMap, error) {
	show, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	hall, err := s.catalog.Hall(ctx, show.HallID)
	if err != nil {
		return nil, err
	}
	ids := pick(hall)
	if ids == nil {
		return s.SeatMap(ctx, id)
	}
	raw, owned, err := s.seats.StatesOf(ctx, id, ids, userID)
	if err != nil {
		return nil, err
	}
	m := &SeatMap{Show: show, Hall: hall, States: make(map[int64]string, len(ids)), Owners: map[int64]int64{},
		Partial: true, Owned: owned}
	for _, seatID := range ids {
		st, ok := hall.Seat(seatID)
		if !ok {
			continue
		}
		state, _, user := SeatValue(raw[seatID])
		if !st.Sellable() {
			state = services.StateBlocked
		}
		if state == "" {
			state = services.StateHeld // an unreadable value is never offered as free
		}
		m.States[seatID] = state
		if user != 0 {
			m.Owners[seatID] = user
		}
	}
	return m, nil
}
