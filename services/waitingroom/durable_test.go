package waitingroom_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/waitingroom"
)

// newDurableRoomEnv is newRoomEnv with the rooms' durable record in the test database.
func newDurableRoomEnv(t *testing.T) *roomEnv {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	f := &fakeShows{shows: map[int64]*services.Show{}}
	r := &roomEnv{TestEnv: e, shows: f}
	r.rooms = r.restarted()
	return r
}

// restarted is the rooms of a process started now (nothing in memory) on r's stores.
func (r *roomEnv) restarted() *waitingroom.Rooms {
	return waitingroom.NewRooms(r.RDB, "sf", r.shows, r.Clock, waitingroom.NewTokens([]byte("k"), nil), nil).
		Durable(r.DB, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// tick is a second of the room: the tickers' advance, then every buyer in users reads
// (their heartbeat).
func (r *roomEnv) tick(t *testing.T, users []int64) {
	t.Helper()
	r.Clock.Advance(time.Second)
	if _, err := r.rooms.Advance(context.Background(), mustShow(t, r, 1)); err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		r.read(t, 1, u)
	}
}

func usersUpTo(n int64) []int64 {
	out := make([]int64, 0, n)
	for u := int64(1); u <= n; u++ {
		out = append(out, u)
	}
	return out
}

// TestWaitingRoom_SurvivesLosingRedis: a room of 300 buyers (200 joined before the
// opening, 100 after) at 60 a minute, 20 s after the opening, loses Redis: the whole
// database flushed (a FLUSHALL, a restart without data), one buyer's keys (a lossy
// failover), or its last 5 s (a failover to a replica that lacked them: the room as it
// was, its admissions since gone). Afterwards every waiting buyer reads a place no worse than before (and the
// same first position), every
// admitted buyer is still admitted and their token still admits them, a buyer who joins
// afterwards queues behind everyone, and the pace goes on in position order.
func TestWaitingRoom_SurvivesLosingRedis(t *testing.T) {
	var kept map[string]string // the room's keys as a replica had them (DUMP), "" for a key it lacked
	keep := func(r *roomEnv, t *testing.T) {
		kept = map[string]string{}
		for _, k := range r.rooms.Keys(1) {
			v, err := r.RDB.Dump(context.Background(), k).Result()
			if err != nil && err != redis.Nil {
				t.Fatal(err)
			}
			kept[k] = v
		}
	}
	goBack := func(r *roomEnv, t *testing.T) { // the failover: the room as kept
		for k, v := range kept {
			var err error
			if v == "" {
				err = r.RDB.Del(context.Background(), k).Err()
			} else {
				err = r.RDB.RestoreReplace(context.Background(), k, 0, v).Err()
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		name string
		mark func(r *roomEnv, t *testing.T) // 5 s before the loss
		lose func(r *roomEnv, t *testing.T)
	}{
		{"flushed", nil, func(r *roomEnv, t *testing.T) {
			if err := r.RDB.FlushDB(context.Background()).Err(); err != nil {
				t.Fatal(err)
			}
		}},
		{"places lost, room kept", nil, func(r *roomEnv, t *testing.T) {
			k := r.rooms.Keys(1) // meta, queue, pre, ent, seen, adm
			for _, u := range []string{"5", "150", "250", "299"} {
				r.RDB.HDel(context.Background(), k[3], u)
				r.RDB.ZRem(context.Background(), k[1], u)
				r.RDB.HDel(context.Background(), k[4], u)
			}
		}},
		// a failover to a replica 5 s behind: the room as it was then, its admissions
		// since (recorded) lost
		{"gone back in time", keep, goBack},
		// the same, and every instance restarted too: no process saw the lost head in
		// memory, so the record's head tells that the room went back
		{"gone back in time, every instance restarted", keep, func(r *roomEnv, t *testing.T) {
			goBack(r, t)
			r.rooms = r.restarted()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newDurableRoomEnv(t)
			opens := r.Clock.Now().Add(time.Minute)
			r.shows.add(1, opens, 60)
			const early, late = 200, 100
			for u := int64(1); u <= early; u++ {
				r.join(t, 1, u)
			}
			r.Clock.Advance(time.Minute)
			for u := int64(early + 1); u <= early+late; u++ {
				r.join(t, 1, u)
			}
			all := usersUpTo(early + late)
			for i := range 20 {
				if i == 15 && tc.mark != nil {
					tc.mark(r, t)
				}
				r.tick(t, all)
			}
			before := map[int64]*waitingroom.Entry{}
			admitted := 0
			for _, u := range all {
				e := r.read(t, 1, u)
				before[u] = e
				if e.Status == waitingroom.StatusAdmitted {
					admitted++
				}
			}
			if admitted < 18 || admitted > 22 {
				t.Fatalf("%d admitted in 20 s at 60 a minute before the loss, want about 20", admitted)
			}

			tc.lose(r, t)

			for _, u := range all {
				b, e := before[u], r.read(t, 1, u)
				switch b.Status {
				case waitingroom.StatusWaiting:
					if e.Status != waitingroom.StatusWaiting || e.Position < 1 || e.Position > b.Position || e.QueueID != b.QueueID ||
						e.FirstPosition != b.FirstPosition {
						t.Errorf("user %d waited at %d (first %d, %s); after the loss: %s at %d (first %d, %s)", u, b.Position, b.FirstPosition,
							b.QueueID, e.Status, e.Position, e.FirstPosition, e.QueueID)
					}
				case waitingroom.StatusAdmitted:
					if e.Status != waitingroom.StatusAdmitted || !e.AdmissionExpiresAt.Equal(b.AdmissionExpiresAt) {
						t.Errorf("user %d was admitted until %v; after the loss: %s until %v", u, b.AdmissionExpiresAt, e.Status, e.AdmissionExpiresAt)
					}
					if err := r.rooms.Tokens().Check(b.AdmissionToken, u, 1, 0, r.Clock.Now()); err != nil {
						t.Errorf("user %d: the token admitted before the loss is refused: %v", u, err)
					}
				}
			}
			newcomer := r.join(t, 1, 1000)
			if newcomer.Position != early+late-admitted+1 {
				t.Errorf("a buyer joining after the loss is at %d, want %d (behind everyone)", newcomer.Position, early+late-admitted+1)
			}
			all = append(all, 1000)
			for range 10 {
				r.tick(t, all)
			}
			st, err := r.rooms.Stats(context.Background(), 1)
			if err != nil {
				t.Fatal(err)
			}
			if st.AdmittedTotal < admitted+9 || st.AdmittedTotal > admitted+12 {
				t.Errorf("admitted %d in all, %d before the loss: the pace did not go on (want about 10 more)", st.AdmittedTotal, admitted)
			}
			for _, u := range all {
				e := r.read(t, 1, u)
				if was := before[u]; was != nil && was.Status == waitingroom.StatusWaiting && e.Status == waitingroom.StatusAdmitted &&
					was.Position > st.AdmittedTotal-admitted+2 {
					t.Errorf("user %d, at %d before the loss, admitted among the next %d: out of turn", u, was.Position, st.AdmittedTotal-admitted)
				}
			}
		})
	}
}

// TestWaitingRoom_FlushBeforeTheOpening: buyers who joined before the opening lose no
// place to a flush before it: at the opening they are drawn into places 1..n (each
// once), and a buyer who joined after the flush but before the opening is drawn with
// them; one who joins after the opening comes after all of them.
func TestWaitingRoom_FlushBeforeTheOpening(t *testing.T) {
	r := newDurableRoomEnv(t)
	opens := r.Clock.Now().Add(time.Minute)
	r.shows.add(1, opens, 1)
	const n = 50
	for u := int64(1); u <= n; u++ {
		r.join(t, 1, u)
	}
	if err := r.RDB.FlushDB(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	r.join(t, 1, n+1)
	r.Clock.Advance(time.Minute)
	late := r.join(t, 1, n+2)
	places := map[int]int64{}
	for u := int64(1); u <= n+1; u++ {
		e := r.read(t, 1, u)
		if e.Status != waitingroom.StatusWaiting && e.Status != waitingroom.StatusAdmitted {
			t.Fatalf("user %d after the flush and the opening: %s", u, e.Status)
		}
		places[e.FirstPosition] = u
	}
	for p := 1; p <= n+1; p++ {
		if places[p] == 0 {
			t.Errorf("place %d of 1..%d was drawn for nobody (places %v)", p, n+1, places)
		}
	}
	if late.FirstPosition != n+2 {
		t.Errorf("the first to join after the opening is at %d, want %d", late.FirstPosition, n+2)
	}
}
