package orders_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
	"seatflow/services/seats"
)

// TestBestAvailable_LostPicksReadNoWholeMap: best-available picks from its snapshot; when
// another process took the block it picked (and the snapshot had not heard yet), the
// create notes the taken seats and picks again from the snapshot, which follows the
// published changes: two picks lost in a row still read no whole seat map (only a third
// loss would), and the order gets the next block.
func TestBestAvailable_LostPicksReadNoWholeMap(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	create := func(user int) *services.Order {
		t.Helper()
		o, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(user), ShowID: e.Show.ID, Zone: "standard", Quantity: 2})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	create(1) // the show's snapshot exists
	// the show's subscription was confirmed: the snapshot follows changes from its next read
	e.Orders.SeatsChanged(seats.SeatChange{ShowID: e.Show.ID, Reload: true})
	create(2) // read after the confirmation
	hall, err := e.Catalog.Hall(ctx, e.Show.HallID)
	if err != nil {
		t.Fatal(err)
	}
	states, err := e.Seats.States(ctx, e.Show.ID)
	if err != nil {
		t.Fatal(err)
	}
	// another process holds the two blocks the snapshot offers next; their changes have
	// not reached this one
	free := seats.FreeOf(hall, states)
	other := e.User(3)
	var taken []int64
	for i := 0; i < 2; i++ {
		p := seats.ChoosePlain(hall, free, seats.NewFreeBits(hall, free), "standard", 2, false)
		var refs []seats.SeatRef
		for _, id := range p.IDs {
			j, _ := hall.SeatIndex(id)
			free[j] = false
			refs = append(refs, seats.SeatRef{ID: id, Zone: "standard"})
			taken = append(taken, id)
		}
		if out, err := e.Seats.Hold(ctx, e.Show.ID, "OTHERPROC"+string(rune('A'+i)), other, 100, refs); err != nil || !out.OK() {
			t.Fatal(out, err)
		}
	}
	var reads atomic.Int64
	e.RDB.AddHook(countWholeMapReads{key: e.Seats.Keys(e.Show.ID)[0], n: &reads})
	o := create(4)
	if n := reads.Load(); n != 0 {
		t.Errorf("two lost picks read the whole seat map %d times, want 0", n)
	}
	for _, s := range o.Seats {
		for _, id := range taken {
			if s.SeatID == id {
				t.Fatalf("order holds seat %d, which the other process holds", id)
			}
		}
	}
	if _, err := e.Seats.Release(ctx, e.Show.ID, "OTHERPROCA", []seats.SeatRef{{ID: taken[0], Zone: "standard"}, {ID: taken[1], Zone: "standard"}}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Seats.Release(ctx, e.Show.ID, "OTHERPROCB", []seats.SeatRef{{ID: taken[2], Zone: "standard"}, {ID: taken[3], Zone: "standard"}}, false); err != nil {
		t.Fatal(err)
	}
	e.CheckInvariants()
}

// countWholeMapReads counts HGETALL commands of one seats hash (whole seat-map reads).
type countWholeMapReads struct {
	key string
	n   *atomic.Int64
}

func (c countWholeMapReads) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c countWholeMapReads) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if args := cmd.Args(); cmd.Name() == "hgetall" && len(args) > 1 && args[1] == c.key {
			c.n.Add(1)
		}
		return next(ctx, cmd)
	}
}
func (c countWholeMapReads) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestBestAvailable_GapReadsOnlyItsRows: when the hold script refuses a picked block for
// the seat it would strand beside a seat another process took (and the snapshot had not
// heard of), best-available reads that block's rows again, not the whole seat map, and
// holds another block that strands none.
func TestBestAvailable_GapReadsOnlyItsRows(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	hall := e.MakeLayout("Gap hall", testenv.RowSpec{Zone: "standard", Seats: "SSSSSSSSSSSS"}, testenv.RowSpec{Zone: "standard", Seats: "SSSSSSSSSSSS"})
	show := e.OnSaleShow(hall.ID, 0)
	create := func(user int) *services.Order {
		t.Helper()
		o, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(user), ShowID: show.ID, Zone: "standard", Quantity: 2})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	create(1)
	e.Orders.SeatsChanged(seats.SeatChange{ShowID: show.ID, Reload: true}) // followed from the next read
	create(2)
	states, err := e.Seats.States(ctx, show.ID)
	if err != nil {
		t.Fatal(err)
	}
	free := seats.FreeOf(hall, states)
	next := seats.ChoosePlain(hall, free, seats.NewFreeBits(hall, free), "standard", 2, false).IDs
	// another process takes the seat two beyond the next block: that block would strand
	// the seat between
	var row, hi, lo int
	lo = 1 << 30
	for _, id := range next {
		s, _ := hall.Seat(id)
		row, hi, lo = s.Row, max(hi, s.Col), min(lo, s.Col)
	}
	var beyond *services.Seat
	for i := range hall.Seats {
		s := &hall.Seats[i]
		if s.Row == row && (s.Col == hi+2 || s.Col == lo-2) && free[i] {
			beyond = s
			break
		}
	}
	if beyond == nil {
		t.Fatalf("no free seat two beyond the next block %v", next)
	}
	ref := []seats.SeatRef{{ID: beyond.ID, Zone: "standard"}}
	if out, err := e.Seats.Hold(ctx, show.ID, "OTHERPROCG", e.User(3), 100, ref); err != nil || !out.OK() {
		t.Fatal(out, err)
	}
	var reads atomic.Int64
	e.RDB.AddHook(countWholeMapReads{key: e.Seats.Keys(show.ID)[0], n: &reads})
	o := create(4)
	if n := reads.Load(); n != 0 {
		t.Errorf("a gap refusal read the whole seat map %d times, want 0", n)
	}
	if len(o.Stranded) > 0 {
		t.Errorf("the order strands %v", o.Stranded)
	}
	for _, s := range o.Seats {
		if slices.Contains(next, s.SeatID) {
			t.Fatalf("the order holds %v, a block stranding a seat beside %s", next, beyond.Label)
		}
	}
	if _, err := e.Seats.Release(ctx, show.ID, "OTHERPROCG", ref, false); err != nil {
		t.Fatal(err)
	}
}

// TestBestAvailable_SoldOutZoneRefusedWithoutWholeMapRead: when the snapshot (fresh, and
// following the changes) has no block left in the zone, the order script's precheck
// refuses a zone with fewer free seats than asked for, before any read of the whole
// seat map: the last seconds of a sale refuse at the cost of one call each.
func TestBestAvailable_SoldOutZoneRefusedWithoutWholeMapRead(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	hall := e.MakeLayout("Sold-out hall", testenv.RowSpec{Zone: "standard", Seats: "SSSSSS"})
	show := e.OnSaleShow(hall.ID, 0)
	if _, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(1), ShowID: show.ID, Zone: "standard", Quantity: 2}); err != nil {
		t.Fatal(err)
	}
	e.Orders.SeatsChanged(seats.SeatChange{ShowID: show.ID, Reload: true}) // followed from the next read
	if _, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(2), ShowID: show.ID, Zone: "standard", Quantity: 2}); err != nil {
		t.Fatal(err)
	}
	states, err := e.Seats.States(ctx, show.ID)
	if err != nil {
		t.Fatal(err)
	}
	// another process holds all but one of the free seats; its change reaches the snapshot
	var refs []seats.SeatRef
	change := map[int64]string{}
	for _, s := range hall.Seats {
		if states[s.ID] == seats.SeatFree {
			refs = append(refs, seats.SeatRef{ID: s.ID, Zone: "standard"})
			change[s.ID] = services.StateHeld
		}
	}
	refs = refs[:len(refs)-1]
	if out, err := e.Seats.Hold(ctx, show.ID, "OTHERPROCS", e.User(3), 100, refs); err != nil || !out.OK() {
		t.Fatal(out, err)
	}
	e.Orders.SeatsChanged(seats.SeatChange{ShowID: show.ID, Seats: change})
	var reads atomic.Int64
	e.RDB.AddHook(countWholeMapReads{key: e.Seats.Keys(show.ID)[0], n: &reads})
	_, err = e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(4), ShowID: show.ID, Zone: "standard", Quantity: 2})
	if services.ErrorCode(err) != services.CodeSoldOut {
		t.Fatalf("2 seats of a zone with 1 free: %v, want SOLD_OUT", err)
	}
	if n := reads.Load(); n != 0 {
		t.Errorf("the refusal read the whole seat map %d times, want 0", n)
	}
	if _, err := e.Seats.Release(ctx, show.ID, "OTHERPROCS", refs, false); err != nil {
		t.Fatal(err)
	}
}
