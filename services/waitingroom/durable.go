package waitingroom

import (
	"context"
	"log/slog"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"golang.org/x/sync/singleflight"

	"seatflow/services"
	"seatflow/services/store"
)

// Durable makes the rooms survive losing Redis (a flush, a restart without data, a
// lossy failover): every join is recorded in MySQL before it answers, in batches (one
// INSERT for every join waiting at that moment), and every admission and the queue's
// progress as the call that made them returns. A room whose marker Redis lost is rebuilt
// from the record before any script call touches it; a place Redis lost in a room it
// kept comes back on its buyer's read; a room whose head went back (a failover to a
// replica that lacked the last admissions) catches up with the record before any script
// call of an instance that saw the later head moves it. Admission tokens are signed, so they never needed Redis. It
// returns r.
func (r *Rooms) Durable(db *sqlx.DB, log *slog.Logger) *Rooms {
	r.durable = &durable{db: db, log: log, saved: map[int64]bool{}, high: map[int64]int64{}, known: map[int64]bool{}}
	return r
}

// durable is the rooms' record in MySQL (store.RoomPlace, store.RoomProgress).
type durable struct {
	db   *sqlx.DB
	log  *slog.Logger
	once singleflight.Group // one rebuild of a room at a time in this process

	mu      sync.Mutex
	pending []*placeWrite
	busy    bool
	saved   map[int64]bool  // rooms whose opening's draw this process recorded
	high    map[int64]int64 // the highest head of each room this process saw
	known   map[int64]bool  // rooms whose recorded head high counts already (highestKnown)
}

type placeWrite struct {
	place store.RoomPlace
	done  chan error
}

// placeBatchMax is the most joins one INSERT records.
const placeBatchMax = 500

// loadChunk is how many places one load call of the script carries.
const loadChunk = 2000

// inFlight is how many queue numbers a rebuild leaves unused for joins the room made
// but had not recorded yet when the record was read (they come back on their reads).
const inFlight = 100000

// recordTimeout bounds one write of the record.
const recordTimeout = 5 * time.Second

// record writes what one script call moved: the waiting entry a join made or found
// (waiting for its batch to commit: a join answers only once its place is durable;
// joining again records it again, in case the first answer failed), the places it
// admitted and the room's progress. Errors: UNAVAILABLE (the join's place is not
// recorded; the buyer's retry returns the same entry and records it).
func (d *durable) record(ctx context.Context, show *services.Show, op string, userID int64, rep *reply, now time.Time) error {
	if rep.created || (op == "join" && rep.status == "w") { // a join again records again: its first answer may have failed
		p := store.RoomPlace{ShowID: show.ID, UserID: userID, Seq: rep.seq, Draw: rep.draw, QueueID: rep.queueID,
			FirstPosition: rep.first, JoinedAt: now.Truncate(time.Millisecond)}
		if err := d.writePlace(ctx, p); err != nil {
			return store.Unavailable("the waiting room's record", err)
		}
	}
	moved := len(rep.admittedUsers) > 0 || rep.abandoned > 0
	d.mu.Lock()
	drawn := rep.shuffled && !d.saved[show.ID]
	if drawn {
		d.saved[show.ID] = true
	}
	d.mu.Unlock()
	if !moved && !drawn {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	err := store.InTx(ctx, d.db, func(tx *sqlx.Tx) error {
		if err := store.AdmitRoomPlaces(ctx, tx, show.ID, rep.admittedUsers, now); err != nil {
			return err
		}
		return store.SaveRoomProgress(ctx, tx, store.RoomProgress{ShowID: show.ID, Head: rep.head, Base: rep.base,
			Shuffled: rep.shuffled, Admitted: rep.admittedTotal, Abandoned: rep.abandonedTotal, UpdatedAt: now})
	})
	if err != nil {
		// the admissions happened: their tokens are signed; only a rebuild before the
		// next recorded step would queue them again (they are at the front)
		d.mu.Lock()
		delete(d.saved, show.ID)
		d.mu.Unlock()
		d.log.Warn("waiting room: recording admissions failed", "show", show.ID, "err", err)
	}
	return nil
}

// writePlace adds p to the next batch and waits for it to commit.
func (d *durable) writePlace(ctx context.Context, p store.RoomPlace) error {
	w := &placeWrite{place: p, done: make(chan error, 1)}
	d.mu.Lock()
	d.pending = append(d.pending, w)
	if !d.busy {
		d.busy = true
		go d.drain()
	}
	d.mu.Unlock()
	select {
	case err := <-w.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// drain commits the pending joins in batches until none is left.
func (d *durable) drain() {
	for {
		d.mu.Lock()
		n := min(len(d.pending), placeBatchMax)
		batch := d.pending[:n:n]
		d.pending = d.pending[n:]
		if n == 0 {
			d.busy = false
			d.mu.Unlock()
			return
		}
		d.mu.Unlock()
		places := make([]store.RoomPlace, n)
		for i, w := range batch {
			places[i] = w.place
		}
		ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
		err := store.InTx(ctx, d.db, func(tx *sqlx.Tx) error { return store.UpsertRoomPlaces(ctx, tx, places) })
		cancel()
		for _, w := range batch {
			w.done <- err
		}
	}
}

// load rebuilds show's room in Redis from the record (one rebuild at a time in this
// process; a room another instance loaded first takes no chunk). Errors: UNAVAILABLE.
func (d *durable) load(ctx context.Context, r *Rooms, show *services.Show) error {
	_, err, _ := d.once.Do(strconv.FormatInt(show.ID, 10), func() (any, error) {
		return nil, d.loadOnce(context.WithoutCancel(ctx), r, show)
	})
	return err
}

func (d *durable) loadOnce(ctx context.Context, r *Rooms, show *services.Show) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	prog, err := store.RoomProgressOf(ctx, d.db, show.ID)
	if err != nil {
		return store.Unavailable("the waiting room's record", err)
	}
	var places []store.RoomPlace
	for after := int64(0); ; {
		page, err := store.RoomPlacesOf(ctx, d.db, show.ID, after, 10000)
		if err != nil {
			return store.Unavailable("the waiting room's record", err)
		}
		places = append(places, page...)
		if len(page) < 10000 {
			break
		}
		after = page[len(page)-1].UserID
	}
	now := r.clock.Now()
	lines, seqMax, shuffled := rebuild(places, prog, show.SaleOpensAt, now)
	gapFrom := seqMax + 1 // no gap
	if len(places) > 0 {
		gapFrom = seqMax - inFlight + 1
	}
	tail := []any{0, prog.Head, seqMax, prog.Base, 0, prog.Admitted, prog.Abandoned, gapFrom}
	if shuffled {
		tail[4] = 1
	}
	for i := 0; i == 0 || i < len(lines); i += loadChunk {
		chunk := lines[i:min(i+loadChunk, len(lines))]
		if i+loadChunk >= len(lines) {
			tail[0] = 1
		}
		extra := append(append([]any{}, tail...), chunk...)
		if _, err := r.call(ctx, show, "load", 0, "", extra...); err != nil {
			return err
		}
	}
	ctx2, cancel2 := context.WithTimeout(ctx, store.RedisTimeout)
	defer cancel2()
	if err := r.rdb.SAdd(ctx2, r.activeKey(), show.ID).Err(); err != nil {
		return store.Unavailable("the waiting room", err)
	}
	d.log.Info("waiting room rebuilt from its record", "show", show.ID, "places", len(places), "head", prog.Head)
	return nil
}

// rebuild turns the record into the script's load lines, the highest queue number to
// keep counting from, and whether the opening's draw ran. A place admitted is admitted
// until its admission ends; one at or behind the head that was not admitted was expired
// at the front; the rest wait with their queue numbers. Those who joined before the
// opening keep their draws: before the opening they wait unnumbered; after it they are
// numbered after the draw's base in draw order, as the opening numbered them.
func rebuild(places []store.RoomPlace, prog store.RoomProgress, opens, now time.Time) (lines []any, seqMax int64, shuffled bool) {
	var pre []int
	base := prog.Base
	for i, p := range places {
		seqMax = max(seqMax, p.Seq)
		if p.Draw > 0 { // joined before the opening (numbered by its draw, or not yet)
			pre = append(pre, i)
		} else if !prog.Shuffled && p.JoinedAt.Before(opens) {
			base = max(base, p.Seq) // queued before an opening moved later
		}
	}
	shuffled = prog.Shuffled || !now.Before(opens) && (len(pre) > 0 || seqMax > 0)
	if !now.Before(opens) {
		sort.Slice(pre, func(a, b int) bool { return places[pre[a]].Draw < places[pre[b]].Draw })
		for k, i := range pre {
			if places[i].Seq > 0 {
				continue // numbered already (recorded at a later join, or by restore)
			}
			places[i].Seq = base + int64(k) + 1
			if places[i].FirstPosition == 0 {
				places[i].FirstPosition = int(places[i].Seq - base) // as the draw gave it
			}
		}
		seqMax = max(seqMax, base+int64(len(pre)))
	}
	// queue numbers handed out after the record was read must not meet one a join still
	// being recorded holds: leave room for every join that may be in flight (a room
	// with nothing recorded is a new one)
	if len(places) > 0 {
		seqMax += inFlight
	}
	for _, p := range places {
		st, till := "w", int64(0)
		switch {
		case p.AdmittedAt != nil:
			st, till = "a", p.AdmittedAt.Add(AdmittedFor).UnixMilli()
		case p.Seq > 0 && p.Seq <= prog.Head:
			st = "x"
		}
		lines = append(lines, strconv.FormatInt(p.UserID, 10)+"|"+st+"|"+strconv.FormatInt(p.Seq, 10)+"|"+
			strconv.FormatInt(till, 10)+"|"+p.QueueID+"|"+strconv.Itoa(p.FirstPosition)+"|"+
			strconv.FormatInt(p.JoinedAt.UnixMilli(), 10)+"|"+strconv.FormatInt(p.Draw, 10))
	}
	return lines, seqMax, shuffled
}

// restore puts userID's recorded place back in show's room when Redis lost it; false
// when the record has none. Errors: UNAVAILABLE.
func (d *durable) restore(ctx context.Context, r *Rooms, show *services.Show, userID int64) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, recordTimeout)
	defer cancel()
	p, err := store.RoomPlaceOf(ctx, d.db, show.ID, userID)
	if err != nil {
		return false, store.Unavailable("the waiting room's record", err)
	}
	if p == nil {
		return false, nil
	}
	prog, err := store.RoomProgressOf(ctx, d.db, show.ID)
	if err != nil {
		return false, store.Unavailable("the waiting room's record", err)
	}
	if p.Seq == 0 && !r.clock.Now().Before(show.SaleOpensAt) {
		if !prog.Shuffled {
			return false, nil // the draw's base is not recorded yet: only a rebuild numbers it
		}
		rank, err := store.RoomDrawRank(ctx, d.db, show.ID, p.Draw)
		if err != nil {
			return false, store.Unavailable("the waiting room's record", err)
		}
		p.Seq = prog.Base + rank + 1 // numbered as the opening's draw numbered it
		if p.FirstPosition == 0 {
			p.FirstPosition = int(rank) + 1
		}
	}
	lines, _, _ := rebuild([]store.RoomPlace{*p}, prog, show.SaleOpensAt, r.clock.Now())
	extra := append([]any{0, 0, 0, 0, 0, 0, 0, 0}, lines...)
	if _, err := r.call(ctx, show, "restore", userID, "", extra...); err != nil {
		return false, err
	}
	return true, nil
}

// saw keeps head as the highest head of showID's room this process saw, when it is.
func (d *durable) saw(showID, head int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.high[showID] = max(d.high[showID], head)
}

// highest is the highest head of showID's room this process saw (0: none).
func (d *durable) highest(showID int64) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.high[showID]
}

// highestKnown is highest, counting the head recorded in MySQL too: the first time this
// process calls a room (it started after the room did: every instance may have
// restarted since the room last moved) it reads the record's head once, so a room that
// went back behind its record is caught up with it (BEHIND) although no process saw its
// head in memory. The record is written after the room moves, never ahead of it. A read
// that fails leaves the in-memory head and is tried again on the next call.
func (d *durable) highestKnown(ctx context.Context, showID int64) int64 {
	d.mu.Lock()
	known := d.known[showID]
	d.mu.Unlock()
	if !known {
		_, _, _ = d.once.Do("head:"+strconv.FormatInt(showID, 10), func() (any, error) {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
			defer cancel()
			prog, err := store.RoomProgressOf(ctx, d.db, showID)
			if err != nil && !store.IsNoRows(err) {
				return nil, err
			}
			d.mu.Lock()
			d.high[showID] = max(d.high[showID], prog.Head)
			d.known[showID] = true
			d.mu.Unlock()
			return nil, nil
		})
	}
	return d.highest(showID)
}

// catchUp brings show's room, which went back in time (its head behind one this process
// saw: a failover to a replica that lacked the last admissions), back to its record:
// whoever waits at or behind the recorded head leaves the queue, admitted as recorded
// (the admissions still running, until their recorded end) or expired, and the head and
// totals go up to the record's. The head it leaves becomes the highest seen (a record
// behind the head seen is not asked twice). Errors: UNAVAILABLE.
func (d *durable) catchUp(ctx context.Context, r *Rooms, show *services.Show) error {
	_, err, _ := d.once.Do("catchup:"+strconv.FormatInt(show.ID, 10), func() (any, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
		defer cancel()
		prog, err := store.RoomProgressOf(ctx, d.db, show.ID)
		if err != nil {
			return nil, store.Unavailable("the waiting room's record", err)
		}
		admitted, err := store.RoomAdmittedSince(ctx, d.db, show.ID, r.clock.Now().Add(-AdmittedFor))
		if err != nil {
			return nil, store.Unavailable("the waiting room's record", err)
		}
		extra := []any{prog.Head, prog.Admitted, prog.Abandoned}
		for _, p := range admitted {
			extra = append(extra, strconv.FormatInt(p.UserID, 10)+"|"+p.QueueID+"|"+
				strconv.FormatInt(p.AdmittedAt.Add(AdmittedFor).UnixMilli(), 10))
		}
		rep, err := r.call(ctx, show, "catchup", 0, "", extra...)
		if err != nil {
			return nil, err
		}
		d.mu.Lock()
		seen := d.high[show.ID]
		d.high[show.ID] = rep.head
		d.mu.Unlock()
		d.log.Warn("waiting room went back in time: caught up with its record", "show", show.ID,
			"head_seen", seen, "recorded_head", prog.Head, "head", rep.head, "moved", rep.admitted)
		return nil, nil
	})
	return err
}
