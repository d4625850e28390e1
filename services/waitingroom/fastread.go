package waitingroom

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
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
	draws   map[int64]*drawRanks // the places the opening's draw numbered from 1 (the drawn key)
	// admits holds who the rooms' moves admitted (Told), for answering them without a
	// call: room -> user -> their admission
	admits map[int64]map[int64]admit
	pruned time.Time // when admits was last rid of admissions told AdmitsKept ago
	sf     singleflight.Group
}

// admit is one admission a room's move told: until when (the app's clock) and in which
// room epoch, and when this process was told (time.Now).
type admit struct {
	till  time.Time
	epoch int
	told  time.Time
}

// AdmitsKept is how long an instance keeps an admission a room's move told it, to answer
// the admitted buyer's next read without a call: longer than the slowest poll of a
// waiting buyer's read (a buyer who reads later is answered from Redis).
const AdmitsKept = 2 * time.Minute

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
		// numbered by the opening's draw from 1: the place is the buyer's rank among the
		// drawn, counted from this instance's copy of the draw's order
		ranks, err := r.drawsOf(ctx, show, snap.drawn)
		if err != nil {
			return nil, err
		}
		if i, found := ranks.of(userID); found {
			p.Seq, p.First = int64(i)+1, i+1
			e.FirstPosition = p.First
		}
	}
	switch {
	case snap.closed != "":
		return r.Read(ctx, showID, userID)
	case p.Seq == 0 && !snap.opened: // before the opening nobody has a position
		e.FirstPosition = 0
	case p.Seq > 0 && p.Seq <= snap.head:
		if e := r.toldAdmitted(show, userID, p, snap); e != nil {
			return e, nil
		}
		return r.Read(ctx, showID, userID) // expired at the front, or an admission this instance was not told
	case p.Seq == 0:
		return r.Read(ctx, showID, userID) // drawn since
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
		r.install(show.ID, rep)
		return rep, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*reply), nil
}

// drawsPage is how many places one read of the drawn key returns.
const drawsPage = 50000

// drawRanks is the order the opening's draw gave the places it numbered from 1, by user
// id: users ascending, ranks (0-based) parallel to them.
type drawRanks struct {
	users []int64
	ranks []int32
}

// of returns userID's 0-based rank in the draw, and whether they were drawn.
func (d *drawRanks) of(userID int64) (int, bool) {
	i, found := slices.BinarySearch(d.users, userID)
	if !found {
		return 0, false
	}
	return int(d.ranks[i]), true
}

// newDrawRanks indexes the user ids of the drawn key in draw order. Errors: a member
// that is not a user id.
func newDrawRanks(members []string) (*drawRanks, error) {
	type pair struct {
		user int64
		rank int32
	}
	ps := make([]pair, len(members))
	for i, m := range members {
		u, err := strconv.ParseInt(m, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("waiting room: drawn place %q: %w", m, err)
		}
		ps[i] = pair{u, int32(i)}
	}
	slices.SortFunc(ps, func(a, b pair) int { return cmp.Compare(a.user, b.user) })
	d := &drawRanks{users: make([]int64, len(ps)), ranks: make([]int32, len(ps))}
	for i, p := range ps {
		d.users[i], d.ranks[i] = p.user, p.rank
	}
	return d, nil
}

// drawsOf returns the order in which the opening of show's room numbered n places from
// 1, read once per instance (the drawn key never changes once written; its members
// alone, which Redis sends for about 40 % of the time their scores cost).
// Errors: UNAVAILABLE.
func (r *Rooms) drawsOf(ctx context.Context, show *services.Show, n int64) (*drawRanks, error) {
	r.fast.mu.Lock()
	d := r.fast.draws[show.ID]
	r.fast.mu.Unlock()
	if d != nil && int64(len(d.users)) == n {
		return d, nil
	}
	v, err, _ := r.fast.sf.Do("draws:"+strconv.FormatInt(show.ID, 10), func() (any, error) {
		key := r.Keys(show.ID)[6]
		members := make([]string, 0, n)
		for start := int64(0); start < n; start += drawsPage {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), store.RedisTimeout)
			page, err := r.rdb.ZRange(ctx, key, start, start+drawsPage-1).Result()
			cancel()
			if err != nil {
				return nil, store.Unavailable("the waiting room", err)
			}
			members = append(members, page...)
			if len(page) < drawsPage {
				break
			}
		}
		d, err := newDrawRanks(members)
		if err != nil {
			return nil, err
		}
		r.fast.mu.Lock()
		if r.fast.draws == nil {
			r.fast.draws = map[int64]*drawRanks{}
		}
		r.fast.draws[show.ID] = d
		r.fast.mu.Unlock()
		return d, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*drawRanks), nil
}

// repAt is when (the app's clock) the snapshot's script call ran; zero for none.
func (s *snapshot) repAt() time.Time {
	if s == nil {
		return time.Time{}
	}
	return s.rep.at
}

// install makes rep this instance's snapshot of showID's room, unless the one it holds
// is further along (a read that crossed a move's message) and younger than SnapshotEvery.
func (r *Rooms) install(showID int64, rep *reply) {
	r.fast.mu.Lock()
	defer r.fast.mu.Unlock()
	if r.fast.snaps == nil {
		r.fast.snaps = map[int64]*snapshot{}
	}
	if old := r.fast.snaps[showID]; old != nil && old.rep.head > rep.head && time.Since(old.read) < SnapshotEvery {
		return
	}
	r.fast.snaps[showID] = &snapshot{rep: rep, read: time.Now()}
}

// Told takes a message of showID's room channel (lua/waiting_room.lua): a move's carries
// the room's counters, which become this instance's snapshot, and who it admitted, whose
// next read is answered from them; any other message (closed, rebuilt, or none after a
// gap in the subscription) marks the snapshot stale, as Moved.
func (r *Rooms) Told(showID int64, message string) {
	rest, ok := strings.CutPrefix(message, "room,")
	if !ok || showID == 0 {
		r.Moved(showID)
		return
	}
	parts := strings.Split(rest, ",")
	if len(parts) < 2+replyValues {
		r.Moved(showID)
		return
	}
	at, err1 := strconv.ParseInt(parts[0], 10, 64)
	till, err2 := strconv.ParseInt(parts[1], 10, 64)
	raw := make([]any, len(parts)-2)
	for i, v := range parts[2:] {
		raw[i] = v
	}
	rep, err3 := parseReply(raw, time.UnixMilli(at))
	if err1 != nil || err2 != nil || err3 != nil {
		r.Moved(showID)
		return
	}
	r.install(showID, rep)
	now := time.Now()
	r.fast.mu.Lock()
	defer r.fast.mu.Unlock()
	if r.fast.admits == nil {
		r.fast.admits = map[int64]map[int64]admit{}
	}
	if now.Sub(r.fast.pruned) >= AdmitsKept/4 {
		for id, room := range r.fast.admits {
			for u, a := range room {
				if now.Sub(a.told) >= AdmitsKept {
					delete(room, u)
				}
			}
			if len(room) == 0 {
				delete(r.fast.admits, id)
			}
		}
		r.fast.pruned = now
	}
	for _, u := range rep.admittedUsers {
		if r.fast.admits[showID] == nil {
			r.fast.admits[showID] = map[int64]admit{}
		}
		r.fast.admits[showID][u] = admit{till: time.UnixMilli(till), epoch: rep.epoch, told: now}
	}
}

// toldAdmitted answers a buyer whose place the front passed from the admission a room's
// move told this instance, as Read would (status admitted, the same token); nil when it
// was told none, or the admission may have ended (its time, the room's epoch moved on).
func (r *Rooms) toldAdmitted(show *services.Show, userID int64, p Place, snap *reply) *Entry {
	r.fast.mu.Lock()
	a, ok := r.fast.admits[show.ID][userID]
	r.fast.mu.Unlock()
	epoch := max(snap.epoch, show.RoomEpoch)
	if !ok || a.epoch < epoch || !a.till.After(r.clock.Now()) {
		return nil
	}
	e := &Entry{QueueID: p.QueueID, Status: StatusAdmitted, FirstPosition: p.First, Waiting: snap.waiting,
		Opened: snap.opened, AdmissionExpiresAt: a.till.UTC().Truncate(time.Second)}
	e.AdmissionToken = r.tokens.Sign(userID, show.ID, epoch, e.AdmissionExpiresAt)
	return e
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
