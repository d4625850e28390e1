package seats_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
	"seatflow/services/seats"
)

// TestBestAvailable_ConcurrentBuyersGetDifferentBlocks: 35 buyers ask for the 2 best
// seats of the standard zone (140 seats) at the same moment. Each is offered a
// different block (chosen one at a time, the chosen seats marked at once), so every one
// gets seats, the seat map is read far fewer times than there are orders, and both
// stores agree afterwards.
func TestBestAvailable_ConcurrentBuyersGetDifferentBlocks(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	var reads atomic.Int64
	e.RDB.AddHook(countHGetAll{&reads})
	const buyers = 35
	users := make([]int64, buyers)
	for i := range users {
		users[i] = e.User(i)
	}
	var wg sync.WaitGroup
	var failed atomic.Int64
	start := make(chan struct{})
	for i := 0; i < buyers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			if _, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: users[i], ShowID: e.Show.ID, Zone: "standard", Quantity: 2}); err != nil {
				failed.Add(1)
				t.Errorf("buyer %d: %v", i, err)
			}
		}(i)
	}
	close(start)
	wg.Wait()
	if failed.Load() > 0 {
		t.Fatalf("%d of %d buyers got no seats", failed.Load(), buyers)
	}
	if n := reads.Load(); n >= buyers {
		t.Errorf("the seat map was read %d times for %d orders", n, buyers)
	}
	e.CheckInvariants()
}

// countHGetAll counts HGETALL commands (whole seat-map reads).
type countHGetAll struct{ n *atomic.Int64 }

func (c countHGetAll) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c countHGetAll) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() == "hgetall" {
			c.n.Add(1)
		}
		return next(ctx, cmd)
	}
}
func (c countHGetAll) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// oneRow is a hall of one row of cols standard seats with ids 1..cols, indexed.
func oneRow(cols int) *services.Hall {
	h := &services.Hall{Rows: 1, Cols: cols}
	for c := 1; c <= cols; c++ {
		h.Seats = append(h.Seats, services.Seat{ID: int64(c), ZoneCode: "standard", Row: 1, Col: c, Kind: services.KindStandard})
	}
	h.Index()
	return h
}

// TestBestSnapshot_FollowsPublishedChanges: a change another process published makes
// the snapshot offer other seats without reading the map again, and a reload drops it.
func TestBestSnapshot_FollowsPublishedChanges(t *testing.T) {
	h := oneRow(5)
	var b seats.BestSnapshots
	reads := 0
	read := func(context.Context) (map[int64]string, error) {
		reads++
		return map[int64]string{1: seats.SeatFree, 2: seats.SeatFree, 3: seats.SeatFree, 4: seats.SeatFree, 5: seats.SeatFree}, nil
	}
	pick := func() []int64 {
		ids, err := b.Of(9).Choose(context.Background(), false, h, read, func(free []bool, bits seats.FreeBits) []int64 {
			return seats.ChoosePlain(h, free, bits, "standard", 1, false).IDs
		})
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	if got := pick(); len(got) != 1 || got[0] != 3 {
		t.Fatalf("first pick %v, want the centre seat 3", got)
	}
	b.Of(9).Done([]int64{3}) // its hold answered
	// another process sold seats 2 and 4, then seat 3 was released
	b.Apply(seats.SeatChange{ShowID: 9, Seats: map[int64]string{2: services.StateSold, 4: services.StateHeld, 3: services.StateFree}})
	if got := pick(); len(got) != 1 || got[0] != 3 || reads != 1 {
		t.Fatalf("after the change: %v (%d reads), want seat 3 from the snapshot", got, reads)
	}
	if got := pick(); len(got) != 1 || (got[0] != 1 && got[0] != 5) || reads != 1 {
		t.Fatalf("next pick %v (%d reads), want an outer seat: 2 and 4 are taken", got, reads)
	}
	b.Apply(seats.SeatChange{ShowID: 9, Reload: true})
	pick()
	if reads != 2 {
		t.Fatalf("a reload did not drop the snapshot (%d reads)", reads)
	}
	b.Apply(seats.SeatChange{ShowID: 10, Seats: map[int64]string{1: services.StateSold}}) // a show without a snapshot: nothing to do
}

// TestBestSnapshot_SeatsInFlightStayTakenAcrossARead: a read of the map cannot see the
// seats chosen but not yet held, so they stay taken in the snapshot until their hold
// answered (Done): a buyer choosing right after a read is not offered them again.
func TestBestSnapshot_SeatsInFlightStayTakenAcrossARead(t *testing.T) {
	h := oneRow(5)
	var b seats.BestSnapshots
	read := func(context.Context) (map[int64]string, error) { // the map as Redis has it: nothing held yet
		return map[int64]string{1: seats.SeatFree, 2: seats.SeatFree, 3: seats.SeatFree, 4: seats.SeatFree, 5: seats.SeatFree}, nil
	}
	pick := func(fresh bool) []int64 {
		ids, err := b.Of(9).Choose(context.Background(), fresh, h, read, func(free []bool, bits seats.FreeBits) []int64 {
			return seats.ChoosePlain(h, free, bits, "standard", 1, false).IDs
		})
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	cases := []struct {
		name string
		done []int64 // holds answered before the pick
		want int64
	}{
		{"the centre seat first", nil, 3},
		{"after a read, the centre seat is still in flight", nil, 2},
		{"its hold answered (refused): offered again", []int64{3}, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b.Of(9).Done(tc.done)
			if got := pick(true); len(got) != 1 || got[0] != tc.want {
				t.Fatalf("picked %v after a read, want seat %d", got, tc.want)
			}
		})
	}
}

// TestBestSnapshot_RefusalCountsSeatsInFlightFree: a fresh read decides whether a request
// is refused, and seats another buyer chose but has not held yet may come back (their
// hold refused by a purchase limit or a gap). When nothing is left without them, the
// choice is made on the map as read, so a buyer is never told "no seats side by side"
// while they are free; a stale choice (fresh not set) still keeps them taken.
func TestBestSnapshot_RefusalCountsSeatsInFlightFree(t *testing.T) {
	h := oneRow(5)
	var b seats.BestSnapshots
	read := func(context.Context) (map[int64]string, error) { // nothing held yet
		return map[int64]string{1: seats.SeatFree, 2: seats.SeatFree, 3: seats.SeatFree, 4: seats.SeatFree, 5: seats.SeatFree}, nil
	}
	pick := func(fresh bool, n int) []int64 {
		ids, err := b.Of(9).Choose(context.Background(), fresh, h, read, func(free []bool, bits seats.FreeBits) []int64 {
			return seats.ChoosePlain(h, free, bits, "standard", n, false).IDs
		})
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	first := pick(true, 3) // the centre block, in flight from now on
	if len(first) != 3 {
		t.Fatalf("first pick %v", first)
	}
	for _, tc := range []struct {
		name  string
		fresh bool
		want  int
	}{
		{"from the snapshot: the block in flight stays taken", false, 0},
		{"on a fresh read: chosen on the map as it is", true, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pick(tc.fresh, 3); len(got) != tc.want {
				t.Fatalf("picked %v, want %d seats", got, tc.want)
			}
		})
	}
}

// TestBestSnapshot_FollowedIsReadLessOften: a snapshot read after the show's
// subscription was confirmed (a reload arrived through it) follows every change, so it
// is read again only after bestSnapshotFollowedTTL (10 s); one not followed after 250 ms.
func TestBestSnapshot_FollowedIsReadLessOften(t *testing.T) {
	h := oneRow(3)
	for _, followed := range []bool{false, true} {
		t.Run(map[bool]string{false: "not followed", true: "followed"}[followed], func(t *testing.T) {
			var b seats.BestSnapshots
			reads := 0
			read := func(context.Context) (map[int64]string, error) {
				reads++
				return map[int64]string{1: seats.SeatFree, 2: seats.SeatFree, 3: seats.SeatFree}, nil
			}
			snap := b.Of(9)
			if followed {
				b.Apply(seats.SeatChange{ShowID: 9, Reload: true})
			}
			choose := func() {
				ids, err := snap.Choose(context.Background(), false, h, read, func(free []bool, bits seats.FreeBits) []int64 { return nil })
				if err != nil || ids != nil {
					t.Fatal(ids, err)
				}
			}
			choose()
			time.Sleep(400 * time.Millisecond)
			choose()
			want := 2
			if followed {
				want = 1
			}
			if reads != want {
				t.Fatalf("%d reads of the map 400 ms apart, want %d", reads, want)
			}
		})
	}
}

// TestBestSnapshot_FollowedWhenConfirmedBeforeItWasMade: the show's subscription is
// often confirmed before best-available first picks for it (a seat-map read followed it
// first); the snapshot made later follows the changes from its first read all the same.
func TestBestSnapshot_FollowedWhenConfirmedBeforeItWasMade(t *testing.T) {
	h := oneRow(3)
	var b seats.BestSnapshots
	b.Apply(seats.SeatChange{ShowID: 9, Reload: true}) // no snapshot of show 9 yet
	reads := 0
	read := func(context.Context) (map[int64]string, error) {
		reads++
		return map[int64]string{1: seats.SeatFree, 2: seats.SeatFree, 3: seats.SeatFree}, nil
	}
	snap := b.Of(9)
	for i := 0; i < 2; i++ {
		if _, err := snap.Choose(context.Background(), false, h, read, func([]bool, seats.FreeBits) []int64 { return nil }); err != nil {
			t.Fatal(err)
		}
		time.Sleep(400 * time.Millisecond)
	}
	if reads != 1 {
		t.Fatalf("%d reads of the map 400 ms apart, want 1", reads)
	}
}
