package waitingroom

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	"seatflow/services/store"
)

// Moves tells the waiting buyers' event streams in this process that their room moved
// (someone admitted or expired at the front, or the room closed), from the message the
// room's script publishes: one Redis subscription per process, no Redis call per buyer.
// A stream reads its entry again when told (and every few seconds anyway).
type Moves struct {
	rdb     redis.UniversalClient
	pattern string
	log     *slog.Logger

	mu       sync.Mutex
	watchers map[int64]map[chan struct{}]struct{}
	also     []func(showID int64, message string)
}

// Also calls f with a room's show id and its channel's message when it moves (0 and "":
// any room may have moved), before its watchers are told (Rooms.Told: the snapshot the
// watchers read is the message's, or read again). Call it before Run.
func (m *Moves) Also(f func(showID int64, message string)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.also = append(m.also, f)
}

// NewMoves returns the fan-out of the rooms whose keys start with prefix.
func NewMoves(rdb redis.UniversalClient, prefix string, log *slog.Logger) *Moves {
	return &Moves{rdb: rdb, pattern: prefix + ":{show:*}:room:moves", log: log, watchers: map[int64]map[chan struct{}]struct{}{}}
}

// Watch returns a channel told (at most one pending signal) when showID's room moves,
// until stop is called.
func (m *Moves) Watch(showID int64) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	m.mu.Lock()
	if m.watchers[showID] == nil {
		m.watchers[showID] = map[chan struct{}]struct{}{}
	}
	m.watchers[showID][ch] = struct{}{}
	m.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			m.mu.Lock()
			defer m.mu.Unlock()
			delete(m.watchers[showID], ch)
			if len(m.watchers[showID]) == 0 {
				delete(m.watchers, showID)
			}
		})
	}
}

// tell signals every watcher of showID (all shows when showID is 0) without waiting.
func (m *Moves) tell(showID int64, message string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, f := range m.also {
		f(showID, message)
	}
	for show, set := range m.watchers {
		if showID != 0 && show != showID {
			continue
		}
		for ch := range set {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
}

// Run subscribes (PSUBSCRIBE) until ctx ends, again a second after a failure; after a
// gap every watcher is told (it may have missed a move).
func (m *Moves) Run(ctx context.Context) {
	store.KeepSubscribed(ctx, m.log, "waiting room moves", func(ctx context.Context, again bool) error {
		return store.SubscribeOnce(ctx, m.rdb.PSubscribe(ctx, m.pattern), func() {
			if again {
				m.tell(0, "")
			}
		}, func(msg *redis.Message) {
			if id := showOfChannel(msg.Channel); id > 0 {
				m.tell(id, msg.Payload)
			}
		}, redis.WithChannelSize(1024))
	})
}

// showOfChannel reads the show id of "<prefix>:{show:<id>}:room:moves"; 0 when none.
func showOfChannel(channel string) int64 {
	i := strings.Index(channel, "{show:")
	j := strings.Index(channel, "}:room:moves")
	if i < 0 || j < i+6 {
		return 0
	}
	id, err := strconv.ParseInt(channel[i+6:j], 10, 64)
	if err != nil || id <= 0 {
		return 0
	}
	return id
}
