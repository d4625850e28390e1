package waitingroom

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"seatflow/services"
	"seatflow/services/store"
)

// SnapshotEvery is how old this instance's view of a room may be when it answers a
// waiting buyer's read from it: the room's counters ("now admitting after queue number
// N", how many wait, the pace it keeps) are read once a SnapshotEvery per instance and
// shared by every buyer it serves, and again at once when the room moves.
const SnapshotEvery = time.Second

// fast is the rooms' per-instance state for reads that ask Redis nothing of their own:
// the rooms' snapshots and the heartbeats read since the last batch.
type fast struct {
	mu    sync.Mutex
	snaps map[int64]*snapshot
	beats map[int64]map[int64]struct{}
	// when a room's heartbeats were last written (flushBeats), by the process's time and
	// the app's clock: a snapshot read again within SnapshotEvery of it by both leaves
	// them for the next batch
	flushed map[int64][2]time.Time
	draws   map[int64][]int64 // the opening's draws of a room, ascending (the drawn key)
	sf      singleflight.Group
}

// snapshot is a room's counters as one script call without an entry answered them.
type snapshot struct {
	rep   *reply
	read  time.Time   // when this process read it (time.Now, process-local, as the other caches)
	stale atomic.Bool // the room moved since (Moved sets it while readers check it)
}

// ReadPlace is Read for a buyer who carries their place token (Entry.Place): while they
// wait with a place this instance can count from its snapshot of the room, it answers
// from the snapshot (at most SnapshotEvery old) with no Redis call of its own, and when
// the token says the buyer's heartbeat was written BeatEvery ago or more, queues it for
// the next batch and answers a token saying so; otherwise (no or a bad token, admitted or
// expired at the front, the room closed, off or rebuilt around the place) it is Read.
// Errors: as Read.
func (r *Rooms) ReadPlace(ctx context.Context, showID, userID int64, token string) (*Entry, error) {
	if token == "" {
		return r.Read(ctx, showID, userID)
	}
	show, err := r.show(ctx, showID)
	if err != nil {
		return nil, err
	}
	p, ok := r.tokens.CheckPlace(token, userID, showID)
	if !ok || !show.WaitingRoom {
		return r.Read(ctx, showID, userID)
	}
	snap, err := r.snapshotOf(ctx, show)
	if err != nil {
		return nil, err
	}
	e := &Entry{QueueID: p.QueueID, Status: StatusWaiting, FirstPosition: p.First, Waiting: snap.waiting,
		Opened: snap.opened, Place: token}
	if p.Seq == 0 && snap.opened && snap.drawn > 0 && snap.base == 0 {
		// numbered by the opening's draw from 1: the place is the draw's rank among the
		// drawn, counted from this instance's copy of the draws
		draws, err := r.drawsOf(ctx, show, snap.drawn)
		if err != nil {
			return nil, err
		}
		if i, found := slices.BinarySearch(draws, p.Draw); found {
			p.Seq, p.First = int64(i)+1, i+1
			e.FirstPosition = p.First
		}
	}
	switch {
	case snap.closed != "":
		return r.Read(ctx, showID, userID)
	case p.Seq == 0 && !snap.opened: // before the opening nobody has a position
		e.FirstPosition = 0
	case p.Seq == 0 || p.Seq <= snap.head:
		return r.Read(ctx, showID, userID) // drawn since, or admitted or expired at the front
	case snap.gapTo > snap.head && p.Seq > snap.gapFrom:
		return r.Read(ctx, showID, userID) // numbers ahead may be missing after a rebuild
	default:
		e.Position = int(p.Seq - snap.head)
		e.Wait = EstimateWait(e.Position, show.AdmitPerMinute, snap.busyAdmitted, snap.busyFor)
	}
	if now := r.clock.Now().UnixMilli(); now-p.BeatAt >= BeatEvery.Milliseconds() || now < p.BeatAt {
		// the heartbeat goes in the next batch (at most SnapshotEvery away), and the
		// buyer's token says so
		r.fast.mu.Lock()
		if r.fast.beats == nil {
			r.fast.beats = map[int64]map[int64]struct{}{}
		}
		if r.fast.beats[showID] == nil {
			r.fast.beats[showID] = map[int64]struct{}{}
		}
		r.fast.beats[showID][userID] = struct{}{}
		r.fast.mu.Unlock()
		p.BeatAt = now
		e.Place = r.tokens.SignPlace(userID, showID, p)
	}
	return e, nil
}

// snapshotOf returns show's room as this instance last read it, reading it again (once
// for all callers) when it is SnapshotEvery old (by the process's time or the app's
// clock) or the room moved; the heartbeats queued so far go in the same step when the
// last batch is SnapshotEvery old (each admission moves the room, and a batch per move
// would cost Redis a call for a few beats; the ticker writes them before each advance
// anyway). Errors: UNAVAILABLE.
func (r *Rooms) snapshotOf(ctx context.Context, show *services.Show) (*reply, error) {
	r.fast.mu.Lock()
	s := r.fast.snaps[show.ID]
	r.fast.mu.Unlock()
	// fresh by the process's time and by the app's clock (which tests move by hand)
	if age := r.clock.Now().Sub(s.repAt()); s != nil && !s.stale.Load() && time.Since(s.read) < SnapshotEvery && age >= 0 && age < SnapshotEvery {
		return s.rep, nil
	}
	v, err, _ := r.fast.sf.Do(strconv.FormatInt(show.ID, 10), func() (any, error) {
		ctx := context.WithoutCancel(ctx)
		r.fast.mu.Lock()
		last := r.fast.flushed[show.ID]
		r.fast.mu.Unlock()
		due := time.Since(last[0]) >= SnapshotEvery || r.clock.Now().Sub(last[1]) >= SnapshotEvery || r.clock.Now().Before(last[1])
		if due {
			if err := r.flushBeats(ctx, show); err != nil {
				return nil, err
			}
		}
		rep, err := r.run(ctx, show, "stats", 0, "")
		if err != nil {
			return nil, err
		}
		r.fast.mu.Lock()
		if r.fast.snaps == nil {
			r.fast.snaps = map[int64]*snapshot{}
		}
		r.fast.snaps[show.ID] = &snapshot{rep: rep, read: time.Now()}
		r.fast.mu.Unlock()
		return rep, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*reply), nil
}

// drawsPage is how many draws one read of the drawn key returns.
const drawsPage = 50000

// drawsOf returns the draws the opening of show's room numbered from 1, ascending (n of
// them: the drawn key never changes once written), read once per instance.
// Errors: UNAVAILABLE.
func (r *Rooms) drawsOf(ctx context.Context, show *services.Show, n int64) ([]int64, error) {
	r.fast.mu.Lock()
	d := r.fast.draws[show.ID]
	r.fast.mu.Unlock()
	if int64(len(d)) == n {
		return d, nil
	}
	v, err, _ := r.fast.sf.Do("draws:"+strconv.FormatInt(show.ID, 10), func() (any, error) {
		key := r.Keys(show.ID)[6]
		out := make([]int64, 0, n)
		for start := int64(0); start < n; start += drawsPage {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), store.RedisTimeout)
			zs, err := r.rdb.ZRangeWithScores(ctx, key, start, start+drawsPage-1).Result()
			cancel()
			if err != nil {
				return nil, store.Unavailable("the waiting room", err)
			}
			for _, z := range zs {
				out = append(out, int64(z.Score))
			}
			if len(zs) < drawsPage {
				break
			}
		}
		r.fast.mu.Lock()
		if r.fast.draws == nil {
			r.fast.draws = map[int64][]int64{}
		}
		r.fast.draws[show.ID] = out
		r.fast.mu.Unlock()
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]int64), nil
}

// repAt is when (the app's clock) the snapshot's script call ran; zero for none.
func (s *snapshot) repAt() time.Time {
	if s == nil {
		return time.Time{}
	}
	return s.rep.at
}

// Moved marks this instance's snapshot of showID's room stale (its room's script moved
// it), so the next read reads it again; showID 0 marks every room's.
func (r *Rooms) Moved(showID int64) {
	r.fast.mu.Lock()
	defer r.fast.mu.Unlock()
	for id, s := range r.fast.snaps {
		if showID == 0 || id == showID {
			s.stale.Store(true)
		}
	}
}

// flushBeats writes the heartbeats of show's room read from snapshots since the last
// batch, in one script call. Errors: UNAVAILABLE (the batch is kept for the next).
func (r *Rooms) flushBeats(ctx context.Context, show *services.Show) error {
	r.fast.mu.Lock()
	set := r.fast.beats[show.ID]
	delete(r.fast.beats, show.ID)
	r.fast.mu.Unlock()
	if len(set) == 0 {
		return nil
	}
	users := make([]any, 0, len(set))
	for u := range set {
		users = append(users, strconv.FormatInt(u, 10))
	}
	_, err := r.call(ctx, show, "beat", 0, "", users...)
	if err == errNotLoaded {
		err = nil // a rebuilt room counts its waiting buyers seen at the rebuild
	}
	if err != nil {
		r.fast.mu.Lock()
		if r.fast.beats[show.ID] == nil {
			r.fast.beats[show.ID] = map[int64]struct{}{}
		}
		for u := range set {
			r.fast.beats[show.ID][u] = struct{}{}
		}
		r.fast.mu.Unlock()
		return err
	}
	r.fast.mu.Lock()
	if r.fast.flushed == nil {
		r.fast.flushed = map[int64][2]time.Time{}
	}
	r.fast.flushed[show.ID] = [2]time.Time{time.Now(), r.clock.Now()}
	r.fast.mu.Unlock()
	return nil
}
