package seats

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"seatflow/services"
	"seatflow/services/store"
)

// SeatChange is one change of a show's seat map as its viewers see it: the new state
// of each changed seat (StateFree, StateHeld, StateSold or StateBlocked; never who holds
// it) and every zone's free count after the change; or Reload when the whole map was
// written (read it again).
type SeatChange struct {
	ShowID   int64
	Seats    map[int64]string
	ZoneFree map[string]int
	Reload   bool
}

// ErrTooManyViewers is Watch's answer when the process already streams to its maximum.
var ErrTooManyViewers = errors.New("too many live viewers")

// viewerBuffer is how many changes a slow viewer may fall behind before it is told to
// reload instead.
const viewerBuffer = 64

// FollowFor is how long a show's changes are still listened to after its follow was
// last renewed (by a Follow, a seat map read or a waiting list served, at least every
// FollowFor/2 while they go on) when no viewer watches it.
const FollowFor = time.Minute

// subscribeWait bounds how long Watch waits for its show's subscription to be
// confirmed before the viewer reads its snapshot.
const subscribeWait = 2 * time.Second

// SeatEvents fans the changes the seat scripts publish (lua/notify.lua, SPUBLISH on the
// show's shard channel, which lives in the show's hash slot) out to the viewers of each
// show in this process and to OnChange. It holds one sharded subscription per show that
// has a live viewer here or was followed within FollowFor (a show nobody here looks at
// costs no subscription); no Redis call per viewer or per change.
type SeatEvents struct {
	rdb        redis.UniversalClient
	prefix     string
	changed    func(SeatChange) // told of every change, before the viewers
	maxViewers int
	log        *slog.Logger

	mu       sync.Mutex
	viewers  map[int64]map[chan SeatChange]struct{}
	count    int
	closed   bool
	base     context.Context // Run's; nil before Run
	subs     map[int64]*showSub
	followed map[int64]time.Time // show -> listened to until

	// renewAt is show -> *atomic.Int64, the UnixNano from which Follow renews the
	// show's follow under mu (half of FollowFor after the last renewal); before it,
	// Follow returns without the lock, so the seat-map read path does not queue on mu.
	renewAt sync.Map
	syncs   uint64 // Sync calls so far: each ping's payload
}

// showSub is the subscription of one show's channel.
type showSub struct {
	cancel context.CancelFunc
	ready  chan struct{} // closed when Redis first confirmed the subscription
	late   bool          // a viewer stopped waiting for ready: reload it when ready
	done   chan struct{} // closed when the subscription's goroutine ended
	// ps is the confirmed subscription (nil before, and after it ended) and waiters the
	// Sync calls waiting for the answer to their ping, by its payload
	ps      *redis.PubSub
	waiters map[string]chan bool
}

// NewSeatEvents returns the fan-out for keys under prefix, streaming to at most
// maxViewers viewers at once.
func NewSeatEvents(rdb redis.UniversalClient, prefix string, maxViewers int, log *slog.Logger) *SeatEvents {
	return &SeatEvents{rdb: rdb, prefix: prefix, maxViewers: maxViewers, log: log, changed: func(SeatChange) {},
		viewers: map[int64]map[chan SeatChange]struct{}{}, subs: map[int64]*showSub{}, followed: map[int64]time.Time{}}
}

// Channel is the shard channel of showID's changes, "<prefix>:{show:<id>}:changes": in
// the show's hash slot, so the seat scripts publish on it from their own node.
func (e *SeatEvents) Channel(showID int64) string {
	return e.prefix + ":{show:" + strconv.FormatInt(showID, 10) + "}:changes"
}

// OnChange sets f to be told of every change of seat state (in any process) of the
// shows this process listens to, before the viewers are; set it before Run.
func (e *SeatEvents) OnChange(f func(SeatChange)) { e.changed = f }

// Follow keeps showID's changes coming to OnChange for at least FollowFor/2 (and at
// most FollowFor) from now, whether or not anyone watches it here (the caches of seat
// maps and best-available snapshots, and the waiting lists, want them). It is on the
// seat-map read path: one atomic load, and the lock only when the follow is renewed
// (once per FollowFor/2 per show) or starts.
func (e *SeatEvents) Follow(showID int64) {
	if e == nil {
		return
	}
	now := time.Now()
	if v, ok := e.renewAt.Load(showID); ok && now.UnixNano() < v.(*atomic.Int64).Load() {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	e.followed[showID] = now.Add(FollowFor)
	e.subscribeLocked(showID)
	v, _ := e.renewAt.LoadOrStore(showID, new(atomic.Int64))
	v.(*atomic.Int64).Store(now.Add(FollowFor / 2).UnixNano())
}

// Watch registers a viewer of showID: the channel receives its changes until stop is
// called or the fan-out closes (then the channel is closed). The first viewer of a
// show in this process subscribes to its channel; Watch waits (up to subscribeWait)
// until Redis confirmed it, so the snapshot the viewer reads next misses no change.
// Errors: ErrTooManyViewers.
func (e *SeatEvents) Watch(showID int64) (<-chan SeatChange, func(), error) {
	ch := make(chan SeatChange, viewerBuffer)
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		close(ch)
		return ch, func() {}, nil
	}
	if e.count >= e.maxViewers {
		e.mu.Unlock()
		return nil, nil, ErrTooManyViewers
	}
	if e.viewers[showID] == nil {
		e.viewers[showID] = map[chan SeatChange]struct{}{}
	}
	e.viewers[showID][ch] = struct{}{}
	e.count++
	sub := e.subscribeLocked(showID)
	e.mu.Unlock()
	if sub != nil {
		select {
		case <-sub.ready:
		case <-time.After(subscribeWait):
			e.mu.Lock()
			sub.late = true
			e.mu.Unlock()
		}
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			e.mu.Lock()
			defer e.mu.Unlock()
			if _, ok := e.viewers[showID][ch]; ok {
				delete(e.viewers[showID], ch)
				if len(e.viewers[showID]) == 0 {
					delete(e.viewers, showID)
					e.unsubscribeIdleLocked(showID, time.Now())
				}
				e.count--
				close(ch)
			}
		})
	}
	return ch, stop, nil
}

// subscribeLocked starts showID's subscription unless it runs or Run has not started
// (Run starts the subscriptions wanted before it); it returns the subscription or nil.
func (e *SeatEvents) subscribeLocked(showID int64) *showSub {
	if sub, ok := e.subs[showID]; ok {
		return sub
	}
	if e.base == nil || e.base.Err() != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(e.base)
	sub := &showSub{cancel: cancel, ready: make(chan struct{}), done: make(chan struct{})}
	e.subs[showID] = sub
	go func() {
		defer close(sub.done)
		e.listenShow(ctx, showID, sub)
	}()
	return sub
}

// unsubscribeIdleLocked ends showID's subscription when no viewer watches it and its
// follow ran out at now.
func (e *SeatEvents) unsubscribeIdleLocked(showID int64, now time.Time) {
	if len(e.viewers[showID]) > 0 || now.Before(e.followed[showID]) {
		return
	}
	delete(e.followed, showID)
	e.renewAt.Delete(showID)
	if sub, ok := e.subs[showID]; ok {
		sub.cancel()
		delete(e.subs, showID)
	}
}

// Listening lists the shows whose channels this process subscribes to now.
func (e *SeatEvents) Listening() []int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]int64, 0, len(e.subs))
	for id := range e.subs {
		out = append(out, id)
	}
	return out
}

// listenShow keeps showID's shard subscription until ctx ends, again a second after a
// failure or after Redis ended it (its slot moved). Each confirmation tells OnChange to
// reload (a cache may hold what changed before it), and the viewers too after a gap.
func (e *SeatEvents) listenShow(ctx context.Context, showID int64, sub *showSub) {
	channel := e.Channel(showID)
	store.KeepSubscribed(ctx, e.log, "seat events of show "+strconv.FormatInt(showID, 10), func(ctx context.Context, again bool) error {
		ps := e.rdb.SSubscribe(ctx, channel)
		defer e.endSyncs(sub, ps)
		ready := func() {
			e.changed(SeatChange{ShowID: showID, Reload: true})
			e.mu.Lock()
			sub.ps = ps
			tell := again || sub.late
			sub.late = false
			select {
			case <-sub.ready:
			default:
				close(sub.ready)
			}
			e.mu.Unlock()
			if tell {
				e.publish(SeatChange{ShowID: showID, Reload: true})
			}
		}
		return store.SubscribeShardOnce(ctx, ps, ready, func(m *redis.Message) {
			if c, ok := ParseSeatChange(m.Channel, m.Payload); ok && c.ShowID == showID {
				e.changed(c)
				e.publish(c)
			}
		}, func(payload string) { e.synced(sub, payload) })
	})
}

// publish hands c to every viewer of its show; a viewer whose buffer is full is told to
// reload (its missed changes are in the map it will read).
func (e *SeatEvents) publish(c SeatChange) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for ch := range e.viewers[c.ShowID] {
		select {
		case ch <- c:
		default:
			drain(ch)
			ch <- SeatChange{ShowID: c.ShowID, Reload: true}
		}
	}
}

func drain(ch chan SeatChange) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// Close ends every viewer's stream (at shutdown); later Watch calls get a closed
// channel.
func (e *SeatEvents) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	for _, set := range e.viewers {
		for ch := range set {
			close(ch)
		}
	}
	e.viewers, e.count = map[int64]map[chan SeatChange]struct{}{}, 0
}

// Run starts the subscriptions of the shows watched or followed so far, then ends the
// subscriptions nobody needs any more (no viewer, follow run out) every few seconds
// until ctx ends, when every subscription ends.
func (e *SeatEvents) Run(ctx context.Context) {
	e.mu.Lock()
	e.base = ctx
	for id := range e.viewers {
		e.subscribeLocked(id)
	}
	for id := range e.followed {
		e.subscribeLocked(id)
	}
	e.mu.Unlock()
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			e.mu.Lock()
			subs := e.subs
			e.subs = map[int64]*showSub{}
			e.mu.Unlock()
			for _, sub := range subs {
				sub.cancel()
				<-sub.done
			}
			return
		case now := <-tick.C:
			e.mu.Lock()
			for id := range e.subs {
				e.unsubscribeIdleLocked(id, now)
			}
			e.mu.Unlock()
		}
	}
}

// ParseSeatChange reads one message of lua/notify.lua: the show id from the channel
// "<prefix>:{show:<id>}:changes" and the payload "reload" or
// "<seat_id>=<F|H|S|B>,...|<zone>=<free>,...". Malformed parts are skipped; false when
// the channel names no show.
func ParseSeatChange(channel, payload string) (SeatChange, bool) {
	i := strings.Index(channel, "{show:")
	j := strings.Index(channel, "}:changes")
	if i < 0 || j < i+6 {
		return SeatChange{}, false
	}
	show, err := strconv.ParseInt(channel[i+6:j], 10, 64)
	if err != nil || show <= 0 {
		return SeatChange{}, false
	}
	c := SeatChange{ShowID: show}
	if payload == "reload" {
		c.Reload = true
		return c, true
	}
	seats, zones, _ := strings.Cut(payload, "|")
	c.Seats = map[int64]string{}
	for _, kv := range strings.Split(seats, ",") {
		k, v, ok := strings.Cut(kv, "=")
		id, err := strconv.ParseInt(k, 10, 64)
		state := changedState(v)
		if ok && err == nil && state != "" {
			c.Seats[id] = state
		}
	}
	c.ZoneFree = map[string]int{}
	for _, kv := range strings.Split(zones, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if n, err := strconv.Atoi(v); ok && err == nil && k != "" {
			c.ZoneFree[k] = n
		}
	}
	return c, true
}

// changedState is the state a change message's code names (F, H, S or B; notify.lua),
// "" for any other.
func changedState(code string) string {
	switch code {
	case "F":
		return services.StateFree
	case "H":
		return services.StateHeld
	case "S":
		return services.StateSold
	case "B":
		return services.StateBlocked
	}
	return ""
}
