package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"seatflow/services"
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

// TestSeatMapCache_GzipFollowsEveryChange: a map built into a layout is served, plain
// and gzipped, with the states of its build: after a change (the version moves) both
// carry the new state at once, while the segments that did not change are reused.
func TestSeatMapCache_GzipFollowsEveryChange(t *testing.T) {
	var c seatMapCache
	var version atomic.Uint64
	hall := layoutTestHall(3, segmentSeats)
	states := make([]string, len(hall.Seats))
	for i := range states {
		states[i] = services.StateFree
	}
	build := func(context.Context) (any, error) {
		l, err := c.layout(9, hall)
		if err != nil {
			return nil, err
		}
		return seatMapBody{layout: l, states: append([]string(nil), states...)}, nil
	}
	for i, seat := range []int{0, segmentSeats + 1, segmentSeats + 1, 2*segmentSeats + 7} {
		if i > 0 {
			states[seat] = []string{services.StateHeld, services.StateSold}[i%2]
			version.Add(1)
		}
		plain, err := c.get(context.Background(), 9, 0, version.Load, build)
		if err != nil {
			t.Fatal(err)
		}
		gz, err := c.getGzip(context.Background(), 9, 0, version.Load, build)
		if err != nil {
			t.Fatal(err)
		}
		var m seatMapJSON
		if err := json.Unmarshal(gunzip(t, gz), &m); err != nil || !bytes.Equal(gunzip(t, gz), plain) {
			t.Fatalf("change %d: gzipped map differs from the plain one (%v)", i, err)
		}
		if got := m.Seats[seat].State; got != states[seat] {
			t.Fatalf("change %d: seat %d is %s in the served map, %s in Redis", i, seat, got, states[seat])
		}
	}
}
