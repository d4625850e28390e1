package waitingroom

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"seatflow/lua"
	"seatflow/services"
	"seatflow/services/store"
)

// An entry's status (API.md "Waiting room").
const (
	StatusWaiting  = "waiting"
	StatusAdmitted = "admitted"
	StatusExpired  = "expired" // admitted but unused in time, or gone silent while waiting
	StatusClosed   = "closed"  // sold out, sale closed or show cancelled while waiting
)

// Why a room closed (Entry.Closed, Stats.Closed).
const (
	ClosedSoldOut   = "sold_out"
	ClosedSale      = "sale_closed"
	ClosedCancelled = "cancelled"
)

// IdleFor is how long a waiting entry may go unread (no GET, POST or open event stream)
// before it is expired when it reaches the front (API.md: 120 s).
const IdleFor = 120 * time.Second

// BeatEvery is how often a waiting buyer who reads from their place token (ReadPlace)
// has their heartbeat written to Redis: a quarter of IdleFor, so a buyer who reads
// every few seconds is never taken for gone, while Redis sees one heartbeat a
// BeatEvery from them instead of one a read.
const BeatEvery = IdleFor / 4

// Entry is one buyer's place in a show's waiting room.
type Entry struct {
	QueueID string
	Status  string // Status* constants
	// Position is the 1-based place among those still waiting; 0 when not waiting, and
	// for everyone who joined before the sale opened until it opens.
	Position int
	// FirstPosition is the position the entry was first given (at joining, or at the
	// opening's shuffle): the progress bar's whole length.
	FirstPosition int
	Waiting       int      // everyone waiting in the room
	Wait          Estimate // zero unless waiting with a position
	// AdmissionToken and AdmissionExpiresAt (UTC, whole seconds) are set when admitted.
	AdmissionToken     string
	AdmissionExpiresAt time.Time
	Closed             string // Closed* when the room closed
	Opened             bool   // the sale has opened (positions are drawn)
	// Place is the buyer's signed place while waiting (Tokens.SignPlace): carried back
	// on a read (ReadPlace), it lets an instance answer from its snapshot of the room.
	Place string
}

// Stats is a room as staff see it.
type Stats struct {
	On              bool
	Pace            int // buyers a minute, as the queue applies it
	Waiting         int
	AdmittedLastMin int // measured: admissions in the last 60 s
	AdmittedTotal   int
	AbandonedTotal  int
	Closed          string // Closed* or ""
}

// Rooms keeps every show's waiting room in Redis (lua/waiting_room.lua). Any number of
// instances share them: the pace's credit is counted in Redis from the callers' clocks
// (never backwards), so instances that advance a room at once admit no more than one.
// The pace is the show's AdmitPerMinute as each caller read it (the catalog's cache
// follows a staff change within catalog.ShowCacheTTL on every instance).
type Rooms struct {
	rdb     redis.UniversalClient
	shows   ShowSource
	prefix  string
	script  *redis.Script
	clock   services.Clock
	tokens  *Tokens
	metrics *services.Metrics
	durable *durable // nil: the room lives in Redis only
	fast    fast     // snapshots and batched heartbeats (ReadPlace)
}

// NewRooms returns the rooms whose keys start with prefix (e.g. "sf") of the shows
// shows reads, signing admissions with tokens; metrics may be nil.
func NewRooms(rdb redis.UniversalClient, prefix string, shows ShowSource, clock services.Clock, tokens *Tokens, metrics *services.Metrics) *Rooms {
	return &Rooms{rdb: rdb, shows: shows, prefix: prefix, script: redis.NewScript(lua.WaitingRoom), clock: clock, tokens: tokens, metrics: metrics}
}

// show reads a show buyers may see (not a draft) from the catalog's cache. Errors:
// NOT_FOUND, UNAVAILABLE.
func (r *Rooms) show(ctx context.Context, id int64) (*services.Show, error) {
	s, err := r.shows.CachedShow(ctx, id)
	if err != nil {
		return nil, err
	}
	if s.Stored() == services.ShowDraft {
		return nil, services.Errorf(services.CodeNotFound, "show %d not found", id)
	}
	return s, nil
}

// Tokens returns the admission tokens' signer and checker.
func (r *Rooms) Tokens() *Tokens { return r.tokens }

// Keys returns the room's keys in the script's order, all in the show's hash slot:
// meta, queue, pre, ent, seen, adm, drawn.
func (r *Rooms) Keys(showID int64) []string {
	tag := r.prefix + ":{show:" + strconv.FormatInt(showID, 10) + "}:room:"
	return []string{tag + "meta", tag + "queue", tag + "pre", tag + "ent", tag + "seen", tag + "adm", tag + "drawn"}
}

// activeKey is the set of show ids whose rooms the tickers advance (its own slot; read
// and written by single-key commands only).
func (r *Rooms) activeKey() string { return r.prefix + ":rooms" }

// reply is the script's answer (waiting_room.lua).
type reply struct {
	created                        bool  // this join made the entry
	seq, draw                      int64 // the entry's queue number (0 before the opening's draw) and draw
	head, base                     int64 // the room's progress (store.RoomProgress)
	shuffled                       bool
	admittedTotal                  int64
	abandonedTotal                 int64
	gapFrom, gapTo                 int64     // queue numbers that may be missing after a rebuild
	drawn                          int64     // how many the opening's draw numbered from 1 (the drawn key)
	undrawn                        int64     // how many a running draw has yet to number (DRAW_CHUNK a call)
	admittedUsers                  []int64   // admitted by this call
	at                             time.Time // the caller's clock at the call
	status                         string
	position, first, waiting, pace int
	recent                         int
	busyAdmitted                   int           // admitted since the queue was last empty, within the last minute
	busyFor                        time.Duration // that window
	till                           time.Time
	queueID, closed                string
	opened                         bool
	admitted, abandoned            int
	epoch                          int // the room's epoch: the highest any caller passed
	waits                          []time.Duration
}

// run calls the script once; with a durable record it loads a room Redis lost first,
// catches up a room that went back in time (then calls again), and records what the
// call moved (joins, admissions, progress) before it answers.
func (r *Rooms) run(ctx context.Context, show *services.Show, op string, userID int64, arg string) (*reply, error) {
	out, err := r.call(ctx, show, op, userID, arg)
	if err == errNotLoaded {
		if err = r.durable.load(ctx, r, show); err == nil {
			out, err = r.call(ctx, show, op, userID, arg)
		}
	}
	if err == errBehind {
		// the room went back in time (a lossy failover): up to its record, then again
		if err = r.durable.catchUp(ctx, r, show); err == nil {
			out, err = r.call(ctx, show, op, userID, arg)
		}
	}
	if err != nil {
		return nil, err
	}
	if r.durable != nil {
		r.durable.saw(show.ID, out.head)
	}
	if r.durable != nil && op != "stats" {
		if err := r.durable.record(ctx, show, op, userID, out, out.at); err != nil {
			return nil, err
		}
	}
	if op != "stats" {
		r.count(out)
	}
	return out, nil
}

// errNotLoaded is the script's answer for a room it must rebuild from the durable record.
var errNotLoaded = errors.New("waiting room not loaded")

// errBehind is the script's answer for a room whose head is behind one this process saw:
// it went back in time and must catch up with the durable record.
var errBehind = errors.New("waiting room behind its record")

// call runs the script once with op (and, for load, restore, beat and catchup, the
// extra arguments). Errors: errNotLoaded, errBehind, UNAVAILABLE.
func (r *Rooms) call(ctx context.Context, show *services.Show, op string, userID int64, arg string, extra ...any) (*reply, error) {
	var seed [8]byte
	_, _ = rand.Read(seed[:])
	draw := int64(binary.BigEndian.Uint64(seed[:])%(1<<52)) + 1
	qid := make([]byte, 8)
	_, _ = rand.Read(qid)
	now := r.clock.Now()
	ctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
	defer cancel()
	durable := "0"
	if r.durable != nil {
		durable = "1"
		// load, restore and catchup bring the room back and beat only notes reads: no head
		// to compare for them
		if op != "load" && op != "restore" && op != "catchup" && op != "beat" {
			if high := r.durable.highestKnown(ctx, show.ID); high > 0 {
				durable += ":" + strconv.FormatInt(high, 10)
			}
		}
	}
	args := append([]any{op, now.UnixMilli(), show.SaleOpensAt.UnixMilli(),
		show.AdmitPerMinute, strconv.FormatInt(userID, 10), hex.EncodeToString(qid),
		draw, arg, IdleFor.Milliseconds(), AdmittedFor.Milliseconds(), show.RoomEpoch, durable}, extra...)
	raw, err := r.script.Run(ctx, r.rdb, r.Keys(show.ID), args...).Slice()
	if err != nil {
		return nil, store.Unavailable("the waiting room", err)
	}
	if len(raw) == 1 {
		switch s, _ := raw[0].(string); s {
		case "NOT_LOADED":
			return nil, errNotLoaded
		case "BEHIND":
			return nil, errBehind
		}
		return &reply{status: "none"}, nil // load, restore
	}
	return parseReply(raw, now)
}

// replyValues is how many values a reply of the script has before its <user id, wait
// ms> pairs (lua/waiting_room.lua).
const replyValues = 27

// parseReply reads the script's reply of a call made at at (the caller's clock):
// replyValues values, then <user id, wait ms> pairs; a move's message carries the same
// values as strings (Rooms.Told).
func parseReply(raw []any, at time.Time) (*reply, error) {
	if len(raw) < replyValues {
		return nil, fmt.Errorf("waiting room: reply of %d values", len(raw))
	}
	num := func(v any) int64 {
		switch x := v.(type) {
		case int64:
			return x
		case string:
			n, _ := strconv.ParseInt(x, 10, 64)
			return n
		}
		return 0
	}
	str := func(v any) string { s, _ := v.(string); return s }
	out := &reply{status: str(raw[0]), position: int(num(raw[1])), till: time.UnixMilli(num(raw[2])).UTC(),
		queueID: str(raw[3]), first: int(num(raw[4])), waiting: int(num(raw[5])), pace: int(num(raw[6])),
		recent: int(num(raw[7])), opened: num(raw[8]) == 1, closed: str(raw[9]),
		admitted: int(num(raw[10])), abandoned: int(num(raw[11])),
		busyAdmitted: int(num(raw[12])), busyFor: time.Duration(num(raw[13])) * time.Millisecond, epoch: int(num(raw[14])),
		created: num(raw[15]) == 1, seq: num(raw[16]), head: num(raw[17]), base: num(raw[18]), shuffled: num(raw[19]) == 1,
		admittedTotal: num(raw[20]), abandonedTotal: num(raw[21]), gapFrom: num(raw[22]), gapTo: num(raw[23]), drawn: num(raw[24]), draw: num(raw[25]), undrawn: num(raw[26]), at: at}
	for i := replyValues; i+1 < len(raw); i += 2 {
		out.admittedUsers = append(out.admittedUsers, num(raw[i]))
		out.waits = append(out.waits, time.Duration(num(raw[i+1]))*time.Millisecond)
	}
	return out, nil
}

// count adds what one script call admitted and expired to the metrics.
func (r *Rooms) count(rep *reply) {
	if r.metrics == nil {
		return
	}
	r.metrics.RoomAdmitted.Add(float64(rep.admitted))
	r.metrics.RoomAbandoned.Add(float64(rep.abandoned))
	for _, w := range rep.waits {
		r.metrics.RoomWait.Observe(w.Seconds())
	}
}

// entry turns a reply into the caller's Entry; nil when they have none.
func (r *Rooms) entry(show *services.Show, userID int64, rep *reply) *Entry {
	if rep.status == "none" {
		return nil
	}
	e := &Entry{QueueID: rep.queueID, Position: rep.position, FirstPosition: rep.first, Waiting: rep.waiting,
		Closed: rep.closed, Opened: rep.opened}
	switch rep.status {
	case "w":
		e.Status = StatusWaiting
		e.Place = r.tokens.SignPlace(userID, show.ID, Place{Seq: rep.seq, QueueID: rep.queueID, First: rep.first, Draw: rep.draw, BeatAt: rep.at.UnixMilli()})
		if e.Position > 0 {
			e.Wait = EstimateWait(e.Position, rep.pace, rep.busyAdmitted, rep.busyFor)
		}
	case "a":
		e.Status = StatusAdmitted
		e.AdmissionExpiresAt = rep.till.Truncate(time.Second)
	case "c":
		e.Status = StatusClosed
	default:
		e.Status = StatusExpired
	}
	// an admission the room gave is signed in the room's epoch (a later one than show's
	// when show is a second old)
	epoch := max(rep.epoch, show.RoomEpoch)
	if !show.WaitingRoom && (e.Status == StatusWaiting || e.Status == StatusAdmitted) {
		// the room was turned off: everyone may order (no token is asked for); the
		// token is of the show's epoch, which turning the room on again ends
		e.Status, e.Position, e.Wait = StatusAdmitted, 0, Estimate{}
		if e.AdmissionExpiresAt.IsZero() {
			e.AdmissionExpiresAt = r.clock.Now().Add(AdmittedFor).Truncate(time.Second)
		}
		epoch = show.RoomEpoch
	}
	if e.Status == StatusAdmitted {
		e.AdmissionToken = r.tokens.Sign(userID, show.ID, epoch, e.AdmissionExpiresAt)
	}
	return e
}

// Join puts userID in show's waiting room, or returns their entry when they are in it
// (waiting or admitted: one entry per user and show; after an expired entry they join
// again at the back). Someone waiting when the room closed gets their entry, closed.
// Errors also: NOT_FOUND (no such show). Errors: ORDER_STATE (the show has no waiting room, or is not
// taking a queue: draft, cancelled, sale closed, sold out), UNAVAILABLE.
func (r *Rooms) Join(ctx context.Context, showID, userID int64) (*Entry, error) {
	show, err := r.show(ctx, showID)
	if err != nil {
		return nil, err
	}
	now := r.clock.Now()
	switch st := show.StatusAt(now); {
	case !show.WaitingRoom:
		return nil, services.Errorf(services.CodeOrderState, "show %d has no waiting room: choose your seats", show.ID)
	case st != services.ShowOnSale && st != services.ShowScheduled:
		return nil, services.Errorf(services.CodeOrderState, "show %d is not taking a queue (%s)", show.ID, st)
	}
	ctx2, cancel := context.WithTimeout(ctx, store.RedisTimeout)
	err = r.rdb.SAdd(ctx2, r.activeKey(), show.ID).Err()
	cancel()
	if err != nil {
		return nil, store.Unavailable("the waiting room", err)
	}
	rep, err := r.run(ctx, show, "join", userID, "")
	if err != nil {
		return nil, err
	}
	e := r.entry(show, userID, rep)
	if e == nil { // a closed room takes nobody new
		return nil, services.Errorf(services.CodeOrderState, "show %d is not taking a queue (%s)", show.ID, rep.closed)
	}
	return e, nil
}

// Read returns userID's entry in show's room, counting as a heartbeat, and admits
// whoever the pace allows first. Errors: NOT_FOUND (no such show, or not in the
// queue), UNAVAILABLE.
func (r *Rooms) Read(ctx context.Context, showID, userID int64) (*Entry, error) {
	show, err := r.show(ctx, showID)
	if err != nil {
		return nil, err
	}
	rep, err := r.run(ctx, show, "read", userID, "")
	if err != nil {
		return nil, err
	}
	if rep.status == "none" && r.durable != nil {
		// a place Redis lost while the room stayed (a lossy failover, a join recorded
		// after a rebuild read the record): back from the record, then read again
		if back, err := r.durable.restore(ctx, r, show, userID); err != nil {
			return nil, err
		} else if back {
			if rep, err = r.run(ctx, show, "read", userID, ""); err != nil {
				return nil, err
			}
		}
	}
	e := r.entry(show, userID, rep)
	if e == nil {
		return nil, services.Errorf(services.CodeNotFound, "you are not in the waiting room of show %d", show.ID)
	}
	return e, nil
}

// Advance admits from the front of show's room as its pace allows and returns how many
// are waiting. Errors: UNAVAILABLE.
func (r *Rooms) Advance(ctx context.Context, show *services.Show) (int, error) {
	rep, err := r.run(ctx, show, "advance", 0, "")
	if err != nil {
		return 0, err
	}
	return r.drawRest(ctx, show, rep)
}

// drawCalls bounds the calls one tick makes while the opening's draw runs: a million
// places in DRAW_CHUNKs of 10,000, each a call of its own, so that other commands run
// between them.
const drawCalls = 200

// drawRest goes on numbering the places of a running draw (rep says how many are left)
// a chunk a call, until it ends or a call numbers none (a closed room draws nothing
// until it opens again), and returns how many wait. Errors: UNAVAILABLE.
func (r *Rooms) drawRest(ctx context.Context, show *services.Show, rep *reply) (int, error) {
	for i := 0; rep.undrawn > 0 && i < drawCalls; i++ {
		left := rep.undrawn
		var err error
		if rep, err = r.run(ctx, show, "advance", 0, ""); err != nil {
			return 0, err
		}
		if rep.undrawn >= left {
			break
		}
	}
	return rep.waiting, nil
}

// Close closes show's room for reason (Closed*): everyone waiting reads status closed,
// nobody new may join, nobody more is admitted; reason "" opens it again. In the same
// script call it then admits as Advance does (the tickers' one round trip a room a
// second) and returns how many are waiting. Errors: UNAVAILABLE.
func (r *Rooms) Close(ctx context.Context, show *services.Show, reason string) (int, error) {
	rep, err := r.run(ctx, show, "close", 0, reason)
	if err != nil {
		return 0, err
	}
	return r.drawRest(ctx, show, rep)
}

// Stats reads a show's room as staff see it (drafts too); Closed is the room's reason,
// or the show's when the room has none yet (cancelled, sale closed). Errors:
// NOT_FOUND, UNAVAILABLE.
func (r *Rooms) Stats(ctx context.Context, showID int64) (*Stats, error) {
	show, err := r.shows.CachedShow(ctx, showID)
	if err != nil {
		return nil, err
	}
	rep, err := r.run(ctx, show, "stats", 0, "")
	if err != nil {
		return nil, err
	}
	if rep.closed == "" { // a room nobody joined is never ticked: its show still says
		switch show.StatusAt(r.clock.Now()) {
		case services.ShowCancelled:
			rep.closed = ClosedCancelled
		case services.ShowClosed:
			rep.closed = ClosedSale
		}
	}
	return &Stats{On: show.WaitingRoom, Pace: show.AdmitPerMinute, Waiting: rep.waiting, AdmittedLastMin: rep.recent,
		AdmittedTotal: rep.admitted, AbandonedTotal: rep.abandoned, Closed: rep.closed}, nil
}

// Active lists the shows whose rooms someone joined (the tickers advance them).
// Errors: UNAVAILABLE.
func (r *Rooms) Active(ctx context.Context) ([]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
	defer cancel()
	ids, err := r.rdb.SMembers(ctx, r.activeKey()).Result()
	if err != nil {
		return nil, store.Unavailable("the waiting room", err)
	}
	out := make([]int64, 0, len(ids))
	for _, s := range ids {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			out = append(out, n)
		}
	}
	return out, nil
}

// Forget drops showID from the active rooms (its room is off or its sale is over).
// Errors: UNAVAILABLE.
func (r *Rooms) Forget(ctx context.Context, showID int64) error {
	ctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
	defer cancel()
	if err := r.rdb.SRem(ctx, r.activeKey(), showID).Err(); err != nil {
		return store.Unavailable("the waiting room", err)
	}
	return nil
}
