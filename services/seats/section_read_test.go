package seats_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"seatflow/services"
	"seatflow/services/internal/testenv"
)

// fieldCounter is a Redis hook counting, per command, the calls and the seat-hash fields
// they name (HMGET, HGET), and the whole-hash reads (HGETALL) of the seats hash.
type fieldCounter struct {
	seatsKey string
	mu       sync.Mutex
	hmget    int // fields read by HMGET of the seats hash
	hgetall  int // HGETALL calls on the seats hash
}

func (h *fieldCounter) note(c redis.Cmder) {
	args := c.Args()
	if len(args) < 2 {
		return
	}
	key, _ := args[1].(string)
	if key != h.seatsKey {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	switch strings.ToLower(c.Name()) {
	case "hmget":
		h.hmget += len(args) - 2
	case "hgetall":
		h.hgetall++
	}
}

func (h *fieldCounter) take() (hmget, hgetall int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	hmget, hgetall = h.hmget, h.hgetall
	h.hmget, h.hgetall = 0, 0
	return hmget, hgetall
}

func (h *fieldCounter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *fieldCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, c redis.Cmder) error { h.note(c); return next(ctx, c) }
}
func (h *fieldCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			h.note(c)
		}
		return next(ctx, cmds)
	}
}

// TestStatesOf_ReadsOnlyTheSeatsAsked (a stadium's section page reads its own
// section): StatesOf and SeatMapOf read exactly the fields of the seats asked for (one
// HMGET field each, never HGETALL of the seats hash), also when the map was missing and
// had to be loaded first, and answer each seat's state and the buyer's seats held or
// owned in the whole show; a pick of nil reads the whole map as SeatMap does.
func TestStatesOf_ReadsOnlyTheSeatsAsked(t *testing.T) {
	env := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	hook := &fieldCounter{seatsKey: env.Seats.Keys(env.Show.ID)[0]}
	env.RDB.AddHook(hook)
	buyer := env.User(1)
	held := env.SeatIDs("A1", "A2", "J5")
	if _, err := env.Create(buyer, held...); err != nil {
		t.Fatal(err)
	}
	asked := env.SeatIDs("A1", "A2", "A3", "B1") // J5 is the buyer's too, but not asked for
	want := map[int64]string{asked[0]: services.StateHeld, asked[1]: services.StateHeld, asked[2]: services.StateFree, asked[3]: services.StateFree}
	for _, tc := range []struct {
		name   string
		flush  bool // the map is missing: StatesOf loads it from MySQL first
		userID int64
		owned  int
	}{
		{"loaded map", false, buyer, 3},
		{"map missing, loaded first", true, buyer, 3},
		{"no buyer", false, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.flush {
				if err := env.RDB.Del(ctx, env.Seats.Keys(env.Show.ID)...).Err(); err != nil {
					t.Fatal(err)
				}
			}
			hook.take()
			raw, owned, err := env.Seats.StatesOf(ctx, env.Show.ID, asked, tc.userID)
			if err != nil {
				t.Fatal(err)
			}
			fields, whole := hook.take()
			reads := 1
			if tc.flush {
				reads = 2 // the read that found the map missing, and the one after the load
			}
			if fields != reads*len(asked) || whole != 0 {
				t.Errorf("read %d seat fields and %d whole maps, want %d fields and none", fields, whole, reads*len(asked))
			}
			if len(raw) != len(asked) || owned != tc.owned {
				t.Errorf("got %d values, %d owned; want %d, %d", len(raw), owned, len(asked), tc.owned)
			}

			m, err := env.Shows.SeatMapOf(ctx, env.Show.ID, func(*services.Hall) []int64 { return asked }, tc.userID)
			if err != nil {
				t.Fatal(err)
			}
			if fields, whole := hook.take(); fields != len(asked) || whole != 0 {
				t.Errorf("SeatMapOf read %d seat fields and %d whole maps, want %d and none", fields, whole, len(asked))
			}
			if !m.Partial || len(m.States) != len(asked) || m.Owned != tc.owned {
				t.Errorf("SeatMapOf: partial %v, %d states, %d owned", m.Partial, len(m.States), m.Owned)
			}
			for id, st := range want {
				if m.States[id] != st {
					t.Errorf("seat %d is %q, want %q", id, m.States[id], st)
				}
			}
			if m.Owners[asked[0]] != buyer || m.Owners[asked[2]] != 0 {
				t.Errorf("owners %v", m.Owners)
			}
		})
	}
	t.Run("nil pick reads the whole map", func(t *testing.T) {
		hook.take()
		m, err := env.Shows.SeatMapOf(ctx, env.Show.ID, func(*services.Hall) []int64 { return nil }, buyer)
		if err != nil {
			t.Fatal(err)
		}
		if _, whole := hook.take(); whole != 1 || m.Partial || len(m.States) != len(env.Hall.Seats) {
			t.Errorf("%d whole reads, partial %v, %d states of %d seats", whole, m.Partial, len(m.States), len(env.Hall.Seats))
		}
	})
	env.CheckInvariants()
}
