package waitingroom_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"seatflow/services/waitingroom"
)

// drawChunk is DRAW_CHUNK of lua/waiting_room.lua: the places one call of the opening's
// draw numbers.
const drawChunk = 10000

// TestWaitingRoom_OpeningDrawIsChunked: 20,001 buyers join before the opening, so the
// draw takes three calls. The first call after the opening numbers one chunk, nobody
// more; while the rest wait to be numbered, the room still counts all of them, a buyer
// who joins then comes after every one of them, and the buyer the draw numbers last
// reads the place it will give them. A room closed meanwhile draws nothing until it
// opens again. When the draw has ended the early buyers hold places 1..20,001 once each
// and the late one 20,002, as a draw in one call gives.
func TestWaitingRoom_OpeningDrawIsChunked(t *testing.T) {
	r := newRoomEnv(t)
	opens := r.Clock.Now().Add(10 * time.Minute)
	r.shows.add(1, opens, 60)
	const n = 2*drawChunk + 1
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for u := int64(1 + w); u <= n; u += 8 {
				if _, err := r.rooms.Join(ctx, 1, u); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	keys := r.rooms.Keys(1)
	r.Clock.Advance(opens.Sub(r.Clock.Now())) // exactly the opening: no admission credit yet

	// the first call after the opening: one chunk numbered
	late := int64(n + 1)
	e := r.join(t, 1, late)
	if got := r.RDB.ZCard(ctx, keys[1]).Val(); got != drawChunk+1 {
		t.Fatalf("after the first call %d places are numbered, want one chunk (%d) and the late buyer", got, drawChunk)
	}
	if e.Position != n+1 || e.FirstPosition != n+1 {
		t.Errorf("buyer joining while the draw runs: position %d, first %d; want %d behind every early buyer", e.Position, e.FirstPosition, n+1)
	}
	st, err := r.rooms.Stats(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if st.Waiting != n+1 {
		t.Errorf("%d waiting while the draw runs, want %d", st.Waiting, n+1)
	}

	// the last of the draws: still unnumbered after the next call (its own read's)
	lastDrawn := r.RDB.ZRange(ctx, keys[2], -1, -1).Val()
	if len(lastDrawn) != 1 {
		t.Fatalf("the early buyers' draws: %v", lastDrawn)
	}
	var last int64
	for _, c := range lastDrawn[0] {
		last = last*10 + int64(c-'0')
	}
	if e := r.read(t, 1, last); e.Position != n || e.FirstPosition != n || e.Status != waitingroom.StatusWaiting {
		t.Errorf("the last drawn, read before the draw numbered it: %s at %d (first %d), want waiting at %d", e.Status, e.Position, e.FirstPosition, n)
	}
	if got := r.RDB.ZCard(ctx, keys[1]).Val(); got != 2*drawChunk+1 {
		t.Errorf("after the second call %d places are numbered, want %d", got, 2*drawChunk+1)
	}

	// a room closed meanwhile draws nothing; the
	// tickers' call once it opens again ends the draw
	show := mustShow(t, r, 1)
	if _, err := r.rooms.Close(ctx, show, waitingroom.ClosedSoldOut); err != nil {
		t.Fatal(err)
	}
	if got := r.RDB.ZCard(ctx, keys[1]).Val(); got != 2*drawChunk+1 {
		t.Errorf("a closed room numbered places: %d numbered, want %d", got, 2*drawChunk+1)
	}
	if waiting, err := r.rooms.Close(ctx, show, ""); err != nil || waiting != n+1 {
		t.Fatalf("the room opened again: %d waiting (%v), want %d", waiting, err, n+1)
	}
	if r.RDB.Exists(ctx, keys[2]).Val() != 0 {
		t.Errorf("the draw has not ended after the tickers' call")
	}
	seen := make([]bool, n+2)
	for u := int64(1); u <= n+1; u++ {
		e := r.read(t, 1, u)
		if e.Position < 1 || e.Position > n+1 || seen[e.Position] || e.FirstPosition != e.Position {
			t.Fatalf("user %d: position %d (first %d) is not a fresh place in 1..%d", u, e.Position, e.FirstPosition, n+1)
		}
		seen[e.Position] = true
		switch u {
		case last:
			if e.Position != n {
				t.Errorf("the last drawn holds %d after the draw, want %d as it read before", e.Position, n)
			}
		case late:
			if e.Position != n+1 {
				t.Errorf("the late buyer holds %d after the draw, want %d", e.Position, n+1)
			}
		}
	}
}
