package handlers

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// seatMapTTL bounds how long an encoded seat map is served even when no change was
// heard of (a flushed or evicted seat cache publishes nothing).
const seatMapTTL = time.Second

// seatMapCache keeps each show's seat map as encoded JSON, with the seat-state version
// it was built at (ShowService.SeatMapVersion). A map is served again only while the
// version is unchanged: every seat script this process runs, and every change another
// process publishes, moves it, so a buyer who just booked reads the seat as held.
// One encoding per show is made at a time (single-flight).
type seatMapCache struct {
	mu    sync.Mutex
	maps  map[int64]encodedSeatMap
	group singleflight.Group
}

type encodedSeatMap struct {
	body    []byte
	version uint64
	at      time.Time
}

// get returns the show's encoded seat map, building it with build when the cached one
// is older than its version or seatMapTTL.
func (c *seatMapCache) get(ctx context.Context, showID int64, version func() uint64, build func(context.Context) (any, error)) ([]byte, error) {
	v := version()
	c.mu.Lock()
	m, ok := c.maps[showID]
	c.mu.Unlock()
	if ok && m.version == v && time.Since(m.at) < seatMapTTL {
		return m.body, nil
	}
	out, err, _ := c.group.Do(strconv.FormatInt(showID, 10), func() (any, error) {
		v := version() // read before the map: a change meanwhile moves it past this
		at := time.Now()
		val, err := build(context.WithoutCancel(ctx))
		if err != nil {
			return nil, err
		}
		body, err := json.Marshal(val)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		if c.maps == nil || len(c.maps) > 10000 {
			c.maps = map[int64]encodedSeatMap{}
		}
		c.maps[showID] = encodedSeatMap{body: body, version: v, at: at}
		c.mu.Unlock()
		return body, nil
	})
	if err != nil {
		return nil, err
	}
	return out.([]byte), nil
}
