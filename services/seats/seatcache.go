package seats

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	"seatflow/services"
	"seatflow/services/store"
)

// CacheState is one show's seat cache as read from Redis in one atomic step (MULTI):
// Seats maps seat id to its encoded value (nil when the seats hash is missing), Zones
// zone code to free count, Users user id to seats held or owned. Marker fields ("_")
// are left out. WrongType: one of the keys holds something other than a hash (it can
// only be rebuilt).
type CacheState struct {
	Seats     map[int64]string
	Zones     map[string]string
	Users     map[int64]string
	WrongType bool
}

// ReadCache reads the three hashes of a show in one MULTI/EXEC, so the seat values and
// the counters are seen at the same instant. It never loads a missing map.
// Errors: UNAVAILABLE.
func (s *SeatStore) ReadCache(ctx context.Context, showID int64) (*CacheState, error) {
	ctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
	defer cancel()
	keys := s.Keys(showID)
	var cmds [3]*redis.MapStringStringCmd
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys {
			cmds[i] = p.HGetAll(ctx, k)
		}
		return nil
	})
	st := &CacheState{Zones: map[string]string{}, Users: map[int64]string{}}
	for _, c := range cmds {
		if c.Err() != nil && strings.HasPrefix(c.Err().Error(), "WRONGTYPE") {
			st.WrongType = true
			return st, nil
		}
	}
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, store.Unavailable("the seat cache", err)
	}
	if seats := cmds[0].Val(); len(seats) > 0 {
		st.Seats = make(map[int64]string, len(seats))
		for k, v := range seats {
			if id, err := strconv.ParseInt(k, 10, 64); err == nil {
				st.Seats[id] = v
			}
		}
	}
	for k, v := range cmds[1].Val() {
		if k != "_" {
			st.Zones[k] = v
		}
	}
	for k, v := range cmds[2].Val() {
		if id, err := strconv.ParseInt(k, 10, 64); err == nil {
			st.Users[id] = v
		}
	}
	return st, nil
}

// SeatRepair is one compare-and-set of a seat value: From is the value expected now
// ("" for a missing field), To the value to write ("" removes the field).
type SeatRepair struct {
	SeatID   int64
	From, To string
}

// CounterFix is a counter the repair script rewrote: Name is a zone code or a user id,
// Old the value before ("" when missing), New the value after.
type CounterFix struct {
	Name, Old, New string
}

// RepairResult is what the repair script did. Fenced: a newer lease token has repaired
// this show, nothing was written. NotLoaded: the map vanished, nothing was written.
type RepairResult struct {
	Fenced, NotLoaded bool
	Set, Skipped      map[int64]bool
	Zones, Users      []CounterFix
}

// fenceTTLSeconds is how long a show's fence outlives its last repair.
const fenceTTLSeconds = 7 * 24 * 3600

// Repair applies repairs to a show's seat map as compare-and-sets, then recomputes the
// zone free counts and per-user counts from the seat values (lua/repair.lua), fenced by
// the reconciliation lease token. hall gives each sellable seat's zone.
// Errors: UNAVAILABLE.
func (s *SeatStore) Repair(ctx context.Context, showID, token int64, repairs []SeatRepair, hall *services.Hall) (*RepairResult, error) {
	defer s.Changed(showID)
	args := []any{strconv.FormatInt(token, 10), fenceTTLSeconds, len(repairs)}
	for _, r := range repairs {
		args = append(args, strconv.FormatInt(r.SeatID, 10), r.From, r.To)
	}
	for _, st := range hall.Seats {
		if st.Sellable() {
			args = append(args, strconv.FormatInt(st.ID, 10), st.ZoneCode)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
	defer cancel()
	keys := append(s.Keys(showID), s.FenceKey(showID))
	res, err := s.repair.Run(ctx, s.rdb, keys, args...).StringSlice()
	if err != nil {
		return nil, store.Unavailable("the seat cache", err)
	}
	return parseRepairReply(res)
}

func parseRepairReply(res []string) (*RepairResult, error) {
	out := &RepairResult{Set: map[int64]bool{}, Skipped: map[int64]bool{}}
	if len(res) == 0 {
		return nil, fmt.Errorf("repair script returned nothing")
	}
	switch res[0] {
	case "FENCED":
		out.Fenced = true
		return out, nil
	case "NOT_LOADED":
		out.NotLoaded = true
		return out, nil
	case "OK":
	default:
		return nil, fmt.Errorf("repair script: unexpected reply %v", res)
	}
	for i := 1; i < len(res); {
		switch tag := res[i]; {
		case (tag == "SET" || tag == "SKIP") && i+1 < len(res):
			id, _ := strconv.ParseInt(res[i+1], 10, 64)
			if tag == "SET" {
				out.Set[id] = true
			} else {
				out.Skipped[id] = true
			}
			i += 2
		case (tag == "ZONE" || tag == "USER") && i+3 < len(res):
			fix := CounterFix{Name: res[i+1], Old: res[i+2], New: res[i+3]}
			if tag == "ZONE" {
				out.Zones = append(out.Zones, fix)
			} else {
				out.Users = append(out.Users, fix)
			}
			i += 4
		default:
			return nil, fmt.Errorf("repair script: unexpected reply %v", res)
		}
	}
	return out, nil
}

// LoadedShows lists the shows whose seat map exists in Redis (SCAN, no KEYS; on a
// cluster, SCAN of every master, each holding its own slots' keys). Errors: UNAVAILABLE.
func (s *SeatStore) LoadedShows(ctx context.Context) ([]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 4*store.RedisTimeout)
	defer cancel()
	var mu sync.Mutex
	var out []int64
	err := store.ForEachMaster(ctx, s.rdb, func(ctx context.Context, node redis.UniversalClient) error {
		iter := node.Scan(ctx, 0, s.seatsKeyPattern(), 1000).Iterator()
		for iter.Next(ctx) {
			k := iter.Val()
			i, j := strings.Index(k, "{show:"), strings.Index(k, "}:")
			if i < 0 || j < i {
				continue
			}
			if id, err := strconv.ParseInt(k[i+6:j], 10, 64); err == nil {
				mu.Lock()
				out = append(out, id)
				mu.Unlock()
			}
		}
		return iter.Err()
	})
	if err != nil {
		return nil, store.Unavailable("the seat cache", err)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
