package seats

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"

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

// SeatEvents fans the changes the seat scripts publish (lua/notify.lua) out to the
// viewers of each show in this process: one Redis subscription per process, no Redis
// call per viewer or per change.
type SeatEvents struct {
	rdb        *redis.Client
	pattern    string
	changed    func(SeatChange) // told of every change, before the viewers
	maxViewers int
	log        *slog.Logger

	mu      sync.Mutex
	viewers map[int64]map[chan SeatChange]struct{}
	count   int
	closed  bool
}

// NewSeatEvents returns the fan-out for keys under prefix, streaming to at most
// maxViewers viewers at once.
func NewSeatEvents(rdb *redis.Client, prefix string, maxViewers int, log *slog.Logger) *SeatEvents {
	return &SeatEvents{rdb: rdb, pattern: prefix + ":{show:*}:changes", maxViewers: maxViewers, log: log, changed: func(SeatChange) {},
		viewers: map[int64]map[chan SeatChange]struct{}{}}
}

// OnChange sets f to be told of every change of seat state (in any process), before
// the viewers are; set it before Run.
func (e *SeatEvents) OnChange(f func(SeatChange)) { e.changed = f }

// Watch registers a viewer of showID: the channel receives its changes until stop is
// called or the fan-out closes (then the channel is closed). Errors: ErrTooManyViewers.
func (e *SeatEvents) Watch(showID int64) (<-chan SeatChange, func(), error) {
	ch := make(chan SeatChange, viewerBuffer)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		close(ch)
		return ch, func() {}, nil
	}
	if e.count >= e.maxViewers {
		return nil, nil, ErrTooManyViewers
	}
	if e.viewers[showID] == nil {
		e.viewers[showID] = map[chan SeatChange]struct{}{}
	}
	e.viewers[showID][ch] = struct{}{}
	e.count++
	var once sync.Once
	stop := func() {
		once.Do(func() {
			e.mu.Lock()
			defer e.mu.Unlock()
			if _, ok := e.viewers[showID][ch]; ok {
				delete(e.viewers[showID], ch)
				if len(e.viewers[showID]) == 0 {
					delete(e.viewers, showID)
				}
				e.count--
				close(ch)
			}
		})
	}
	return ch, stop, nil
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

// reloadAll tells every viewer to read its map again (changes may have been missed).
func (e *SeatEvents) reloadAll() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for show, set := range e.viewers {
		for ch := range set {
			drain(ch)
			ch <- SeatChange{ShowID: show, Reload: true}
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

// Run subscribes to the changes of every show (PSUBSCRIBE) and fans them out until ctx
// ends, subscribing again a second after a failure; after a gap every viewer is told
// to reload.
func (e *SeatEvents) Run(ctx context.Context) {
	store.KeepSubscribed(ctx, e.log, "seat events", e.listen)
}

func (e *SeatEvents) listen(ctx context.Context, again bool) error {
	ready := func() {
		if again {
			e.reloadAll()
		}
	}
	return store.SubscribeOnce(ctx, e.rdb.PSubscribe(ctx, e.pattern), ready, func(m *redis.Message) {
		if c, ok := ParseSeatChange(m.Channel, m.Payload); ok {
			e.changed(c)
			e.publish(c)
		}
	}, redis.WithChannelSize(1024))
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
		state := map[string]string{"F": services.StateFree, "H": services.StateHeld, "S": services.StateSold, "B": services.StateBlocked}[v]
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
