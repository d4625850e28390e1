package web

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"seatflow/services/waitingroom"
)

// redisCount counts the commands a Redis client sends, but for those of the app's
// background loops that have nothing to do with a waiting room: asynq's (its queue
// polls and heartbeats share the client) and the instance heartbeat's.
type redisCount struct{ n atomic.Int64 }

func (c *redisCount) add(cmd redis.Cmder) {
	for _, a := range cmd.Args() {
		if s, ok := a.(string); ok && (strings.Contains(s, "asynq:") || strings.Contains(s, "{instances}")) {
			return
		}
	}
	c.n.Add(1)
}

func (c *redisCount) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *redisCount) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { c.add(cmd); return next(ctx, cmd) }
}
func (c *redisCount) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, cmd := range cmds {
			c.add(cmd)
		}
		return next(ctx, cmds)
	}
}

// TestWaitingRoom_PlaceTokenReadsSkipRedis: 20 waiting buyers read their entries over
// the API with the place_token their join gave them (header Queue-Place): the answers
// are the contract's (status, position), say what a read without the token says, and the
// 20 reads cost Redis at most two commands (the room's snapshot and the heartbeats).
func TestWaitingRoom_PlaceTokenReadsSkipRedis(t *testing.T) {
	a := newTestApp(t, nil)
	show, _ := a.onSaleShow(4)
	staff := a.demoToken("staff")
	path := "/api/v1/shows/" + show
	if r := a.do("PATCH", "/api/v1/admin/shows/"+show, staff, map[string]any{"waiting_room": true, "admit_per_minute": 1}, nil); r.status != 200 {
		t.Fatalf("turn the room on: %d %s", r.status, r.body)
	}
	a.do("POST", path+"/queue", a.newUser(), nil, nil) // admitted at once: the room's credit
	type buyer struct {
		token, place string
		position     float64
	}
	var buyers []buyer
	for range 20 {
		tok := a.newUser()
		e := a.do("POST", path+"/queue", tok, nil, nil).json(t)
		place, _ := e["place_token"].(string)
		if e["status"] != "waiting" || place == "" {
			t.Fatalf("join: %v", e)
		}
		buyers = append(buyers, buyer{token: tok, place: place, position: e["position"].(float64)})
	}
	a.do("GET", path+"/queue", buyers[0].token, nil, map[string]string{"Queue-Place": buyers[0].place}) // the snapshot
	calls := &redisCount{}
	a.Redis.AddHook(calls)
	got := map[int]map[string]any{}
	start := time.Now()
	for i, b := range buyers {
		r := a.send(a.base, "GET", path+"/queue", b.token, nil, map[string]string{"Queue-Place": b.place})
		if r.status != 200 {
			t.Fatalf("read with the place: %d %s", r.status, r.body)
		}
		got[i] = r.json(t)
	}
	// the snapshot is read again (with the heartbeats) once it is SnapshotEvery old by
	// this process's time: on a loaded machine the reads may outlast one; and the app's
	// own ticker (up to four commands a tick: the active rooms, the zone counters, the
	// heartbeats, the advance) runs on the same client meanwhile (asynq's and the
	// instance heartbeat's commands are not counted: redisCount)
	took := time.Since(start)
	renewals := int64(took/waitingroom.SnapshotEvery) + 1
	ticks := int64(took/waitingroom.TickEvery) + 1
	if n, most := calls.n.Load(), 2*renewals+4*ticks; n > most {
		t.Errorf("20 reads with their places cost Redis %d commands, want at most %d (2 a snapshot, %d snapshots and %d ticks in %s)", n, most, renewals, ticks, took.Round(time.Millisecond))
	}
	for i, b := range buyers {
		plain := a.do("GET", path+"/queue", b.token, nil, nil).json(t)
		if got[i]["status"] != "waiting" || got[i]["position"] != b.position || plain["position"] != b.position || got[i]["queue_id"] != plain["queue_id"] {
			t.Errorf("buyer %d: read with the place %v, without %v, joined at %v", i, got[i], plain, b.position)
		}
	}
}
