package handlers

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"seatflow/services"
)

// seatMapTTL bounds how long an encoded seat map is served even when no change was
// heard of (a flushed or evicted seat cache publishes nothing).
const seatMapTTL = time.Second

// seatMapAnonymousLag is how old a map a reader who is not signed in may get after a
// change while the show is busy: during an on-sale the version moves every few
// milliseconds, and rebuilding a big map (one HGETALL, one encoding) for every read
// costs more than the read. Such a reader has written nothing it could miss; the live
// stream and the hold are the truth. A signed-in buyer always reads a map built after
// the last change this process knows of, and so does everyone on a quiet show.
const seatMapAnonymousLag = 100 * time.Millisecond

// A show is busy when its version moved at least busyMoves times, at busyRate or more
// a second, between two builds of its map.
const (
	busyMoves = 8
	busyRate  = 200.0
)

// seatMapCache keeps each show's seat map as encoded JSON, with the seat-state version
// it was built at (ShowService.SeatMapVersion). A map is served again only while the
// version is unchanged: every seat script this process runs, and every change another
// process publishes, moves it, so a buyer who just booked reads the seat as held.
// One encoding per show is made at a time (single-flight).
type seatMapCache struct {
	mu      sync.Mutex
	maps    map[int64]encodedSeatMap
	layouts map[int64]*seatMapLayout // per show, for its hall: see layout
	group   singleflight.Group
}

type encodedSeatMap struct {
	body    []byte
	version uint64
	at      time.Time
	busy    bool     // the show changed fast before this build: anonymous readers may lag
	gz      *gzipped // body gzipped, made on the first read that accepts it
}

// gzipped is a body's gzip encoding, made once.
type gzipped struct {
	once sync.Once
	body []byte
	// from is set when the body was written into a layout: the gzip is then made of
	// the layout's segments, compressing only those whose states changed
	from  *seatMapBody
	codes []byte
}

// of returns body gzipped (best speed: a 2 MB map shrinks about tenfold in a few ms).
func (g *gzipped) of(body []byte) []byte {
	g.once.Do(func() {
		if g.from != nil {
			g.body = g.from.layout.gzip(body, g.from.states, g.codes)
			return
		}
		var buf bytes.Buffer
		w, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		_, _ = w.Write(body)
		_ = w.Close()
		g.body = buf.Bytes()
	})
	return g.body
}

// maxLayouts bounds the layouts kept (a 20,000-seat hall's is about 2 MB); past it they
// are dropped and made again on the next rebuild of each map.
const maxLayouts = 64

// layout returns the JSON layout of showID's map for hall, made when the show has none
// or one of other seats (a hall edit). Errors: newSeatMapLayout's.
func (c *seatMapCache) layout(showID int64, hall *services.Hall) (*seatMapLayout, error) {
	c.mu.Lock()
	l := c.layouts[showID]
	c.mu.Unlock()
	if l != nil && l.fits(hall) {
		return l, nil
	}
	l, err := newSeatMapLayout(showID, hall)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.layouts == nil || len(c.layouts) >= maxLayouts {
		c.layouts = map[int64]*seatMapLayout{}
	}
	c.layouts[showID] = l
	c.mu.Unlock()
	return l, nil
}

// get returns the show's encoded seat map, building it with build when the cached one
// is older than its version (unless the show is busy and the map younger than lag; lag
// 0 reads your writes) or than seatMapTTL.
func (c *seatMapCache) get(ctx context.Context, showID int64, lag time.Duration, version func() uint64, build func(context.Context) (any, error)) ([]byte, error) {
	m, err := c.entry(ctx, showID, lag, version, build)
	if err != nil {
		return nil, err
	}
	return m.body, nil
}

// getGzip is get with the body gzipped (each build compressed once, on demand).
func (c *seatMapCache) getGzip(ctx context.Context, showID int64, lag time.Duration, version func() uint64, build func(context.Context) (any, error)) ([]byte, error) {
	m, err := c.entry(ctx, showID, lag, version, build)
	if err != nil {
		return nil, err
	}
	return m.gz.of(m.body), nil
}

func (c *seatMapCache) entry(ctx context.Context, showID int64, lag time.Duration, version func() uint64, build func(context.Context) (any, error)) (encodedSeatMap, error) {
	v := version()
	c.mu.Lock()
	m, ok := c.maps[showID]
	c.mu.Unlock()
	if age := time.Since(m.at); ok && (m.version == v || (m.busy && age < lag)) && age < seatMapTTL {
		return m, nil
	}
	out, err, _ := c.group.Do(strconv.FormatInt(showID, 10), func() (any, error) {
		v := version() // read before the map: a change meanwhile moves it past this
		at := time.Now()
		val, err := build(context.WithoutCancel(ctx))
		if err != nil {
			return nil, err
		}
		gz := &gzipped{}
		var body []byte
		if b, ok := val.(seatMapBody); ok {
			body, gz.codes = b.layout.encode(b.states)
			gz.from = &b
		} else if body, err = json.Marshal(val); err != nil {
			return nil, err
		}
		c.mu.Lock()
		if c.maps == nil || len(c.maps) > 10000 {
			c.maps = map[int64]encodedSeatMap{}
		}
		m := encodedSeatMap{body: body, version: v, at: at, gz: gz}
		if prev, ok := c.maps[showID]; ok {
			moves, secs := float64(v-prev.version), at.Sub(prev.at).Seconds()
			m.busy = v > prev.version && moves >= busyMoves && (secs <= 0 || moves/secs >= busyRate)
		}
		c.maps[showID] = m
		c.mu.Unlock()
		return m, nil
	})
	if err != nil {
		return encodedSeatMap{}, err
	}
	return out.(encodedSeatMap), nil
}
