package store

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// TTLCache keeps values for a short time and loads a missing one once however many
// callers ask for it at the same moment (single-flight).
type TTLCache[K comparable, V any] struct {
	ttl   time.Duration
	mu    sync.Mutex
	items map[K]cacheItem[V]
	group singleflight.Group
	load  func(context.Context, K) (V, error)
}

type cacheItem[V any] struct {
	v   V
	exp time.Time
}

// NewTTLCache returns a cache that loads a missing or expired key with load and keeps
// the value for ttl (time.Now, process-local).
func NewTTLCache[K comparable, V any](ttl time.Duration, load func(context.Context, K) (V, error)) *TTLCache[K, V] {
	return &TTLCache[K, V]{ttl: ttl, items: map[K]cacheItem[V]{}, load: load}
}

// Get returns the cached value of k or loads it.
func (c *TTLCache[K, V]) Get(ctx context.Context, k K) (V, error) {
	now := time.Now()
	c.mu.Lock()
	it, ok := c.items[k]
	c.mu.Unlock()
	if ok && now.Before(it.exp) {
		return it.v, nil
	}
	v, err, _ := c.group.Do(fmt.Sprint(k), func() (any, error) {
		v, err := c.load(context.WithoutCancel(ctx), k)
		if err != nil {
			return v, err
		}
		c.mu.Lock()
		if len(c.items) > 10000 {
			c.items = map[K]cacheItem[V]{}
		}
		c.items[k] = cacheItem[V]{v: v, exp: time.Now().Add(c.ttl)}
		c.mu.Unlock()
		return v, nil
	})
	if err != nil {
		var zero V
		return zero, err
	}
	return v.(V), nil
}

// Forget drops k so the next get reads it afresh.
func (c *TTLCache[K, V]) Forget(k K) {
	c.mu.Lock()
	delete(c.items, k)
	c.mu.Unlock()
}

// ForgetAll drops every entry.
func (c *TTLCache[K, V]) ForgetAll() {
	c.mu.Lock()
	c.items = map[K]cacheItem[V]{}
	c.mu.Unlock()
}
