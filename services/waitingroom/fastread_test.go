package waitingroom_test

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"seatflow/services/waitingroom"
)

// countCalls counts the commands a Redis client sends from now on.
type countCalls struct{ n atomic.Int64 }

func (c *countCalls) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *countCalls) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}
func (c *countCalls) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}

// TestWaitingRoom_ReadFromPlaceAsksRedisNothing: 200 buyers read their entries with
// the place tokens their answers carry, every 5 s like their event streams. A round of
// reads of one instance costs Redis at most two calls (the room's snapshot and the batch
// of heartbeats) besides one call for each buyer admitted since (whose read goes to
// Redis) and the one buyer who sends another's token (and, once, the opening's draws,
// which place everyone who joined before it); each answer says what a read of
// Redis says (status, position, first position), before the opening and while waiting;
// and heartbeats sent only through these reads keep 198 places alive for 200 s, while
// the one buyer who stopped reading is expired at the front.
func TestWaitingRoom_ReadFromPlaceAsksRedisNothing(t *testing.T) {
	r := newDurableRoomEnv(t)
	calls := &countCalls{}
	r.RDB.AddHook(calls)
	opens := r.Clock.Now().Add(3 * time.Minute)
	r.shows.add(1, opens, 60)
	const n = 200
	place := map[int64]string{}
	for u := int64(1); u <= n; u++ {
		place[u] = r.join(t, 1, u).Place
	}
	done := map[int64]bool{2: true} // buyer 2 stopped reading
	// round reads every buyer still waiting from their place (buyer 3 with buyer 4's),
	// and, when compare, checks each answer against a read of Redis
	round := func(t *testing.T, what string, compare bool, extra int64) {
		t.Helper()
		before, admitted := calls.n.Load(), 0
		got := map[int64]*waitingroom.Entry{}
		for u := int64(1); u <= n; u++ {
			if done[u] {
				continue
			}
			token := place[u]
			if u == 3 {
				token = place[4]
			}
			e, err := r.rooms.ReadPlace(context.Background(), 1, u, token)
			if err != nil {
				t.Fatalf("%s: user %d: %v", what, u, err)
			}
			got[u] = e
			if e.Place != "" && u != 3 {
				place[u] = e.Place
			}
			if e.Status != waitingroom.StatusWaiting {
				done[u], admitted = true, admitted+1
			}
		}
		c := calls.n.Load() - before
		if limit := int64(2+1+admitted) + extra; c > limit {
			t.Errorf("%s: %d reads cost %d Redis commands, want at most %d (%d admitted since)", what, len(got), c, limit, admitted)
		}
		if !compare {
			return
		}
		t.Logf("%s: %d reads cost %d Redis commands (%d admitted since)", what, len(got), c, admitted)
		for u, e := range got {
			want, err := r.rooms.Read(context.Background(), 1, u)
			if err != nil {
				t.Fatal(err)
			}
			if e.Status != want.Status || e.Position != want.Position || e.QueueID != want.QueueID || e.FirstPosition != want.FirstPosition {
				t.Errorf("%s: user %d read from the place %s at %d (first %d, %s), from Redis %s at %d (first %d, %s)", what, u,
					e.Status, e.Position, e.FirstPosition, e.QueueID, want.Status, want.Position, want.FirstPosition, want.QueueID)
			}
		}
	}
	r.Clock.Advance(150 * time.Second)
	round(t, "before the opening", true, 0)
	r.Clock.Advance(30 * time.Second) // the opening's draw
	for sec := 1; sec <= 200; sec++ {
		r.Clock.Advance(time.Second)
		if _, err := r.rooms.Advance(context.Background(), mustShow(t, r, 1)); err != nil {
			t.Fatal(err)
		}
		r.rooms.Moved(1) // what the room's moves channel tells every instance
		switch {
		case sec == 1: // the instance reads the opening's draws once and ranks each place in them
			round(t, "the first round after the opening", true, 1)
		case sec == 3:
			round(t, "3 s after the opening", true, 0)
		case sec%5 == 0:
			round(t, "waiting", false, 0)
		}
	}
	if e := r.read(t, 1, 2); e.Status != waitingroom.StatusExpired {
		t.Errorf("buyer 2, silent since the opening: %s, want expired", e.Status)
	}
	st, err := r.rooms.Stats(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if st.AbandonedTotal != 1 || st.AdmittedTotal != n-1 {
		t.Errorf("%d admitted and %d abandoned, want %d and 1 (buyer 2): heartbeats sent through place reads were lost", st.AdmittedTotal, st.AbandonedTotal, n-1)
	}
}

// TestWaitingRoom_MovedWhileReadsAnswerFromTheSnapshot: the room's moves (told by Redis's
// events on their own goroutine) mark the snapshot stale while buyers' reads check it;
// under -race the two must not touch the snapshot unguarded, and a read after the last
// move answers from a snapshot read again.
func TestWaitingRoom_MovedWhileReadsAnswerFromTheSnapshot(t *testing.T) {
	r := newDurableRoomEnv(t)
	r.shows.add(1, r.Clock.Now().Add(3*time.Minute), 60)
	place := map[int64]string{}
	for u := int64(1); u <= 8; u++ {
		place[u] = r.join(t, 1, u).Place
	}
	ctx := context.Background()
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				r.rooms.Moved(1)
			}
		}
	}()
	for i := 0; i < 200; i++ {
		u := int64(i%8 + 1)
		if _, err := r.rooms.ReadPlace(ctx, 1, u, place[u]); err != nil {
			t.Fatalf("read %d of user %d: %v", i, u, err)
		}
	}
	close(stop)
	<-done
	e, err := r.rooms.ReadPlace(ctx, 1, 1, place[1])
	if err != nil || e.Status != waitingroom.StatusWaiting {
		t.Fatalf("a waiting buyer's read after the moves: %+v, %v", e, err)
	}
}

// TestWaitingRoom_PlaceReadsWriteAHeartbeatEveryBeatEvery: a waiting buyer who reads
// from their place token every 5 s has their heartbeat written to Redis once a
// BeatEvery, not once a read (each answer's token says when it was last written),
// and a buyer whose token was signed without that time gets one at their first read.
func TestWaitingRoom_PlaceReadsWriteAHeartbeatEveryBeatEvery(t *testing.T) {
	r := newDurableRoomEnv(t)
	r.shows.add(1, r.Clock.Now().Add(10*time.Minute), 60)
	token := r.join(t, 1, 1).Place
	seenKey := r.rooms.Keys(1)[4]
	seen := func() string { return r.RDB.HGet(context.Background(), seenKey, "1").Val() }
	last, changes := seen(), 0
	const reads = 24 // two minutes of reads every 5 s
	for i := 0; i < reads; i++ {
		r.Clock.Advance(5 * time.Second)
		r.rooms.Moved(1) // a fresh snapshot each read: the batch of heartbeats queued so far is written first
		e, err := r.rooms.ReadPlace(context.Background(), 1, 1, token)
		if err != nil || e.Status != waitingroom.StatusWaiting {
			t.Fatalf("read %d: %+v, %v", i, e, err)
		}
		token = e.Place
		if s := seen(); s != last {
			last, changes = s, changes+1
		}
	}
	want := int(time.Duration(reads) * 5 * time.Second / waitingroom.BeatEvery)
	if changes < want-1 || changes > want {
		t.Errorf("%d reads every 5 s wrote the heartbeat %d times, want %d or %d (one a BeatEvery of %s)", reads, changes, want-1, want, waitingroom.BeatEvery)
	}
	if waitingroom.BeatEvery*2 > waitingroom.IdleFor {
		t.Errorf("BeatEvery %s leaves less than one heartbeat's margin before IdleFor %s", waitingroom.BeatEvery, waitingroom.IdleFor)
	}
}

// TestWaitingRoom_AdmittedReadTheAdmissionTheMoveTold: every admission publishes the
// room's counters and who it admitted on the room's channel (what Moves hands to
// Rooms.Told on every instance). An instance told so answers each admitted buyer's next
// read from their place token with no Redis call, as a read of Redis answers it (status,
// queue id, first position, admission expiry, a token the order path accepts); an
// instance that was not told, an admission whose time ended and one whose room epoch
// moved on are read from Redis instead.
func TestWaitingRoom_AdmittedReadTheAdmissionTheMoveTold(t *testing.T) {
	r := newDurableRoomEnv(t)
	ctx := context.Background()
	const show = 7331 // its own channel: other packages' rooms publish on show 1's
	r.shows.add(show, r.Clock.Now().Add(-time.Minute), 60)
	sub := r.RDB.Subscribe(ctx, strings.TrimSuffix(r.rooms.Keys(show)[0], "meta")+"moves")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	const n = 12
	place := map[int64]string{}
	for u := int64(1); u <= n; u++ {
		place[u] = r.join(t, show, u).Place
	}
	r.Clock.Advance(3 * time.Second)
	if _, err := r.rooms.Advance(ctx, mustShow(t, r, show)); err != nil {
		t.Fatal(err)
	}
	// every move is told in the order published, up to the advance's own (stamped with
	// the advance's time): the joins' moves may be all the channel holds for a while
	advanced := "room," + strconv.FormatInt(r.Clock.Now().UnixMilli(), 10) + ","
	second := r.restarted() // another instance, told the same
	told, admittedTold := 0, map[int64]bool{}
	for done := false; !done; {
		select {
		case msg := <-sub.Channel():
			told++
			r.rooms.Told(show, msg.Payload)
			second.Told(show, msg.Payload)
			done = strings.HasPrefix(msg.Payload, advanced)
		case <-time.After(5 * time.Second):
			t.Fatal("the advance published no move")
		}
	}
	calls := &countCalls{}
	r.RDB.AddHook(calls)
	for u := int64(1); u <= n; u++ {
		if place[u] == "" {
			continue // admitted by their own join: its answer carried the admission
		}
		before := calls.n.Load()
		e, err := r.rooms.ReadPlace(ctx, show, u, place[u])
		if err != nil {
			t.Fatal(err)
		}
		c := calls.n.Load() - before
		before = calls.n.Load()
		o, err := second.ReadPlace(ctx, show, u, place[u])
		if err != nil {
			t.Fatal(err)
		}
		oc := calls.n.Load() - before
		want, err := r.rooms.Read(ctx, show, u)
		if err != nil {
			t.Fatal(err)
		}
		if e.Status != want.Status || e.QueueID != want.QueueID || e.FirstPosition != want.FirstPosition ||
			!e.AdmissionExpiresAt.Equal(want.AdmissionExpiresAt) || e.Position != want.Position {
			t.Errorf("user %d from the move: %s %s first %d pos %d until %s; from Redis: %s %s first %d pos %d until %s", u,
				e.Status, e.QueueID, e.FirstPosition, e.Position, e.AdmissionExpiresAt, want.Status, want.QueueID, want.FirstPosition, want.Position, want.AdmissionExpiresAt)
		}
		if e.Status == waitingroom.StatusAdmitted {
			admittedTold[u] = true
			if c != 0 {
				t.Errorf("user %d, admitted: their read cost %d Redis calls, want none (the move told this instance)", u, c)
			}
			if o.Status != e.Status || !o.AdmissionExpiresAt.Equal(e.AdmissionExpiresAt) || oc != 0 {
				t.Errorf("user %d on the other told instance: %s until %s with %d Redis calls, want %s until %s with none",
					u, o.Status, o.AdmissionExpiresAt, oc, e.Status, e.AdmissionExpiresAt)
			}
			if err := r.rooms.Tokens().Check(e.AdmissionToken, u, show, 0, r.Clock.Now()); err != nil {
				t.Errorf("user %d: the token of the told admission is refused: %v", u, err)
			}
		}
	}
	if len(admittedTold) < 2 || len(admittedTold) == n {
		t.Fatalf("%d of %d admitted by %d moves: the case needs some admitted and some waiting", len(admittedTold), n, told)
	}
	t.Logf("%d moves told %d admissions", told, len(admittedTold))

	readOf := func(rooms *waitingroom.Rooms, u int64) (*waitingroom.Entry, int64) {
		t.Helper()
		before := calls.n.Load()
		e, err := rooms.ReadPlace(ctx, show, u, place[u])
		if err != nil {
			t.Fatal(err)
		}
		return e, calls.n.Load() - before
	}
	t.Run("an instance that was not told", func(t *testing.T) {
		for u := range admittedTold {
			if e, c := readOf(r.restarted(), u); e.Status != waitingroom.StatusAdmitted || c == 0 {
				t.Errorf("user %d: %s with %d Redis calls, want admitted, read from Redis", u, e.Status, c)
			}
		}
	})
	t.Run("the room's epoch moved on", func(t *testing.T) {
		r.shows.mu.Lock()
		r.shows.shows[show].RoomEpoch++
		r.shows.mu.Unlock()
		defer func() {
			r.shows.mu.Lock()
			r.shows.shows[show].RoomEpoch--
			r.shows.mu.Unlock()
		}()
		for u := range admittedTold {
			if e, c := readOf(r.rooms, u); e.Status == waitingroom.StatusAdmitted || c == 0 {
				t.Errorf("user %d: %s with %d Redis calls, want the admission ended, read from Redis", u, e.Status, c)
			}
		}
	})
	t.Run("the admission's time ended", func(t *testing.T) {
		r.Clock.Advance(waitingroom.AdmittedFor)
		for u := range admittedTold {
			if e, c := readOf(r.rooms, u); e.Status != waitingroom.StatusExpired || c == 0 {
				t.Errorf("user %d: %s with %d Redis calls, want expired, read from Redis", u, e.Status, c)
			}
		}
	})
}
