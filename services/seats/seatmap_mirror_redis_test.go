package seats_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/seats"
)

// TestSeatStates_MirrorReadsEveryHoldAtOnce: with the mirror of the published changes
// (real scripts, real shard subscription), a seat-map read right after a hold answered
// has the seat held: the Sync before each answer waits for the hold's change. Most
// answers come from the mirror, not from a read of the whole map. The store has a key
// prefix of its own: channels are shared by every Redis database.
func TestSeatStates_MirrorReadsEveryHoldAtOnce(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := seats.NewSeatStore(e.RDB, e.DB, e.Catalog, "sfmirror")
	listing := seats.NewListing(e.DB, e.Catalog, store, e.Clock, time.UTC)
	events := seats.NewSeatEvents(e.RDB, "sfmirror", 10, slog.New(slog.NewTextHandler(io.Discard, nil)))
	mirrors := seats.NewSeatMirrors(events.Sync)
	listing.SetMirrors(mirrors)
	events.OnChange(func(c seats.SeatChange) {
		mirrors.Apply(c)
		store.Changed(c.ShowID)
	})
	store.SetFollow(events.Follow)
	show := e.Show.ID
	store.Follow(show)
	go events.Run(ctx)
	for deadline := time.Now().Add(5 * time.Second); !events.Sync(ctx, show); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the show's subscription was never confirmed")
		}
	}
	hall, states, err := listing.SeatStates(ctx, show)
	if err != nil {
		t.Fatal(err)
	}
	var free []int
	for i, st := range states {
		if st == services.StateFree {
			free = append(free, i)
		}
	}
	if len(free) < 20 {
		t.Fatalf("%d free seats", len(free))
	}
	for k, i := range free[:20] {
		seat := hall.Seats[i]
		out, err := store.Hold(ctx, show, services.NewOrderNo(time.Now()), int64(100+k), 10, []seats.SeatRef{{ID: seat.ID, Zone: seat.ZoneCode}})
		if err != nil || !out.OK() {
			t.Fatalf("hold %d: %+v %v", k, out, err)
		}
		_, states, err := listing.SeatStates(ctx, show)
		if err != nil {
			t.Fatal(err)
		}
		if states[i] != services.StateHeld {
			t.Fatalf("hold %d: seat %s read as %s right after its hold answered", k, seat.Label, states[i])
		}
	}
	if from, whole := mirrors.Answers(); from < 15 {
		t.Fatalf("%d answers from the mirror, %d whole reads: the mirror was not used", from, whole)
	}
}
