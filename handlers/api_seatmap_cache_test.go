package handlers

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestSeatMapCache_ServesUntilTheVersionMoves: a show's encoded seat map is built once
// and served again while its seat-state version stands still; a change (the version
// moves) or the TTL makes the next read build it afresh.
func TestSeatMapCache_ServesUntilTheVersionMoves(t *testing.T) {
	var c seatMapCache
	var version atomic.Uint64
	builds := 0
	get := func() string {
		b, err := c.get(context.Background(), 7, 0, version.Load, func(context.Context) (any, error) {
			builds++
			return map[string]int{"build": builds}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	first := get()
	if again := get(); again != first || builds != 1 {
		t.Fatalf("rebuilt with no change: %s then %s (%d builds)", first, again, builds)
	}
	version.Add(1) // a seat changed
	if after := get(); after == first || builds != 2 {
		t.Fatalf("served the old map after a change: %s (%d builds)", after, builds)
	}
	c.mu.Lock()
	m := c.maps[7]
	m.at = time.Now().Add(-2 * seatMapTTL)
	c.maps[7] = m
	c.mu.Unlock()
	if get(); builds != 3 {
		t.Fatalf("an old map was served past the TTL (%d builds)", builds)
	}
}

// TestSeatMapCache_AnonymousReadersMayLagOnBusyShows: while a show changes fast (many
// version moves between builds), a reader who is not signed in may get a map up to
// seatMapAnonymousLag older than the last change; a signed-in reader (lag 0) never, and
// on a quiet show nobody does.
func TestSeatMapCache_AnonymousReadersMayLagOnBusyShows(t *testing.T) {
	var c seatMapCache
	var version atomic.Uint64
	builds := 0
	get := func(lag time.Duration) {
		if _, err := c.get(context.Background(), 7, lag, version.Load, func(context.Context) (any, error) {
			builds++
			return builds, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	get(seatMapAnonymousLag)
	version.Add(1) // one change on a quiet show
	if get(seatMapAnonymousLag); builds != 2 {
		t.Fatalf("an anonymous read after one change on a quiet show got the old map (%d builds)", builds)
	}
	version.Add(busyMoves) // an on-sale: many changes at once
	if get(seatMapAnonymousLag); builds != 3 {
		t.Fatalf("the first read after many changes got the old map (%d builds)", builds)
	}
	version.Add(1)
	if get(seatMapAnonymousLag); builds != 3 {
		t.Fatalf("an anonymous read on a busy show rebuilt the map (%d builds)", builds)
	}
	if get(0); builds != 4 {
		t.Fatalf("a signed-in read after a change got the old map (%d builds)", builds)
	}
	version.Add(busyMoves)
	if get(0); builds != 5 {
		t.Fatalf("signed-in read: %d builds", builds)
	}
	version.Add(1)
	c.mu.Lock()
	m := c.maps[7]
	m.at = time.Now().Add(-seatMapAnonymousLag)
	c.maps[7] = m
	c.mu.Unlock()
	if get(seatMapAnonymousLag); builds != 6 {
		t.Fatalf("an anonymous read got a map older than the lag after a change (%d builds)", builds)
	}
}
