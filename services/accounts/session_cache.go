package accounts

import (
	"context"
	"encoding/hex"
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

// maxCachedSessions bounds the cache; when full, its expired entries go, and then
// random ones until it is a quarter below the bound (a crowd larger than the cache
// keeps most of its entries rather than losing them all at once). A waiting room of
// 100,000 and the show's other buyers fit.
const maxCachedSessions = 150_000

// SessionCache keeps token -> user in this process for up to its TTL
// (SEATFLOW_SESSION_CACHE_TTL), so most requests cost no MySQL query. Logout and role
// changes publish on a Redis channel that every process listens to (Run), so a session
// ended in one process ends in all at once; when the subscription breaks the cache is
// emptied, since messages may have been lost meanwhile. A nil *SessionCache caches
// nothing.
type SessionCache struct {
	rdb     redis.UniversalClient
	channel string
	ttl     time.Duration
	now     func() time.Time
	log     *slog.Logger

	active  atomic.Bool // the subscription is confirmed
	mu      sync.Mutex
	entries map[[32]byte]cachedSession
	max     int // the most entries (0: maxCachedSessions)
}

type cachedSession struct {
	user    *services.User
	expires time.Time
}

// NewSessionCache returns a cache whose entries live ttl, publishing and listening on
// the channel "<prefix>:sessions:ended" of rdb.
func NewSessionCache(rdb redis.UniversalClient, prefix string, ttl time.Duration, log *slog.Logger) *SessionCache {
	return &SessionCache{rdb: rdb, channel: prefix + ":sessions:ended", ttl: ttl, now: time.Now, log: log,
		entries: map[[32]byte]cachedSession{}}
}

// get returns a copy of the cached user of h, if fresh.
func (c *SessionCache) get(h [32]byte) (*services.User, bool) {
	if !c.Active() {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[h]
	if !ok || !c.now().Before(e.expires) {
		return nil, false
	}
	u := *e.user
	return &u, true
}

// put caches u for h for the cache's TTL, and never longer than left (how long the
// session itself has to live, by the app's clock; 0 or less: not cached).
func (c *SessionCache) put(h [32]byte, u *services.User, left time.Duration) {
	if !c.Active() || c.ttl <= 0 || left <= 0 {
		return
	}
	cp := *u
	now := c.now()
	exp := now.Add(min(c.ttl, left))
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.limit() {
		c.evict(now)
	}
	c.entries[h] = cachedSession{user: &cp, expires: exp}
}

// limit is the most entries the cache holds (maxCachedSessions unless a test set less).
func (c *SessionCache) limit() int {
	if c.max > 0 {
		return c.max
	}
	return maxCachedSessions
}

// evict drops the expired entries, then random ones (Go's map order) until the cache
// is a quarter below its limit. Called with c.mu held.
func (c *SessionCache) evict(now time.Time) {
	for h, e := range c.entries {
		if !now.Before(e.expires) {
			delete(c.entries, h)
		}
	}
	keep := c.limit() * 3 / 4
	for h := range c.entries {
		if len(c.entries) <= keep {
			break
		}
		delete(c.entries, h)
	}
}

// Forget drops session h here and tells every other process to drop it.
func (c *SessionCache) Forget(ctx context.Context, h [32]byte) {
	if c == nil {
		return
	}
	c.drop("s:" + hex.EncodeToString(h[:]))
	c.publish(ctx, "s:"+hex.EncodeToString(h[:]))
}

// ForgetUser drops every cached session of userID here and in every other process.
func (c *SessionCache) ForgetUser(ctx context.Context, userID int64) {
	if c == nil {
		return
	}
	msg := "u:" + strconv.FormatInt(userID, 10)
	c.drop(msg)
	c.publish(ctx, msg)
}

func (c *SessionCache) publish(ctx context.Context, msg string) {
	if err := c.rdb.Publish(ctx, c.channel, msg).Err(); err != nil {
		c.log.Warn("session cache: could not tell other processes; their entries end with the TTL", "err", err)
	}
}

// drop applies one message: "s:<hex token hash>" or "u:<user id>".
func (c *SessionCache) drop(msg string) {
	kind, arg, _ := strings.Cut(msg, ":")
	c.mu.Lock()
	defer c.mu.Unlock()
	switch kind {
	case "s":
		var h [32]byte
		if b, err := hex.DecodeString(arg); err == nil && len(b) == len(h) {
			copy(h[:], b)
			delete(c.entries, h)
		}
	case "u":
		id, err := strconv.ParseInt(arg, 10, 64)
		if err != nil {
			return
		}
		for h, e := range c.entries {
			if e.user.ID == id {
				delete(c.entries, h)
			}
		}
	}
}

// Run subscribes to the channel and applies the messages of other processes until ctx
// ends, subscribing again a second after a failure. Nothing is served from the cache
// until Redis has confirmed the subscription, so no logout published before can be
// missed; when go-redis had to subscribe again by itself (store.ErrResubscribed), the
// entries go, since what was published in between is lost.
func (c *SessionCache) Run(ctx context.Context) {
	if c == nil {
		return
	}
	for ctx.Err() == nil {
		if err := c.listen(ctx); err != nil && ctx.Err() == nil {
			c.log.Warn("session cache: subscription failed; not caching until it is back", "err", err)
		}
		c.active.Store(false)
		c.clear()
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// listen is one subscription: confirmed, then read until it ends.
func (c *SessionCache) listen(ctx context.Context) error {
	return store.SubscribeOnce(ctx, c.rdb.Subscribe(ctx, c.channel), func() { c.active.Store(true) },
		func(m *redis.Message) { c.drop(m.Payload) })
}

// clear drops every entry.
func (c *SessionCache) clear() {
	c.mu.Lock()
	c.entries = map[[32]byte]cachedSession{}
	c.mu.Unlock()
}

// Active reports whether the cache serves entries (its subscription is confirmed).
func (c *SessionCache) Active() bool { return c != nil && c.active.Load() }
