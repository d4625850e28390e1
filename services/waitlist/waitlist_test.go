package waitlist_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
	"seatflow/services/waitlist"
)

// soldOut makes the env's show a two-row hall of 8 seats a row (an aisle in the middle)
// and sells every seat out to orders of 4 (pending), returning them.
func soldOut(t *testing.T, e *testenv.TestEnv) []*services.Order {
	t.Helper()
	h := e.MakeLayout("List hall",
		testenv.RowSpec{Zone: "standard", Seats: "SSSS.SSSS"},
		testenv.RowSpec{Zone: "standard", Seats: "SSSS.SSSS"},
	)
	e.Hall, e.Show = h, e.OnSaleShow(h.ID, 0)
	var out []*services.Order
	for _, block := range [][]string{{"A1", "A2", "A3", "A4"}, {"A5", "A6", "A7", "A8"}, {"B1", "B2", "B3", "B4"}, {"B5", "B6", "B7", "B8"}} {
		o, err := e.Create(e.User(len(out)+1), testenv.HallSeatIDs(t, h, block...)...)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	return out
}

// TestWaitlist_ServedInOrderWhenSeatsComeBack: places are served in the order they
// joined; a place whose quantity does not fit is passed (not removed) for the next that
// fits; an offer is a pending order of the buyer with a 10-minute deadline, listed in
// their orders; an offer that lapses goes to the next place; while seats that came back
// are enough for a place, buyers outside the list cannot take them (the gate).
func TestWaitlist_ServedInOrderWhenSeatsComeBack(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	sold := soldOut(t, e)
	l := waitlist.NewLists(e.DB, e.Orders, nil)

	if _, err := l.Join(ctx, e.User(20), e.Show.ID, 9, "", ""); services.ErrorCode(err) != services.CodeInvalidRequest {
		t.Fatalf("quantity over the limit: %v", err)
	}
	big, small, third := e.User(21), e.User(22), e.User(23)
	for _, j := range []struct {
		user int64
		q    int
	}{{big, 4}, {small, 2}, {third, 2}} {
		en, err := l.Join(ctx, j.user, e.Show.ID, j.q, "standard", "")
		if err != nil {
			t.Fatal(err)
		}
		if en.Status != waitlist.StatusWaiting {
			t.Fatalf("joined: %+v", en)
		}
	}
	if _, err := l.Join(ctx, small, e.Show.ID, 1, "", ""); services.ErrorCode(err) != services.CodeConflict {
		t.Fatalf("a second place: %v", err)
	}
	if en, _ := l.Mine(ctx, third, e.Show.ID); en.Position != 3 {
		t.Fatalf("third place reads position %d", en.Position)
	}

	// serving with nothing free offers nothing and closes the gate: seats that come back
	// are the list's while they are enough for a place
	if n, err := l.Serve(ctx, e.Show.ID); err != nil || n != 0 {
		t.Fatalf("serve of a sold-out show: %d offers, %v", n, err)
	}
	// the first order of 4 is cancelled: a buyer racing for those seats is refused, and
	// the 4-seat place, first in line, gets them
	if _, err := e.Orders.Cancel(ctx, sold[0].UserID, sold[0].OrderNo); err != nil {
		t.Fatal(err)
	}
	racer := e.User(30)
	if _, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: racer, ShowID: e.Show.ID, Zone: "standard", Quantity: 1}); services.ErrorCode(err) != services.CodeSoldOut {
		t.Fatalf("a buyer took a seat the waiting list was owed: %v", err)
	}
	if _, err := e.Create(racer, sold[0].Seats[0].SeatID); services.ErrorCode(err) != services.CodeSoldOut {
		t.Fatalf("a buyer took a chosen seat the waiting list was owed: %v", err)
	}
	if n, err := l.Serve(ctx, e.Show.ID); err != nil || n != 1 {
		t.Fatalf("serve: %d offers, %v", n, err)
	}
	first, err := l.Mine(ctx, big, e.Show.ID)
	if err != nil || first.Status != waitlist.StatusOffered || first.OrderNo == "" {
		t.Fatalf("the first place: %+v %v", first, err)
	}
	offer, err := e.Orders.Get(ctx, big, first.OrderNo)
	if err != nil || offer.Status != services.OrderPending || len(offer.Seats) != 4 {
		t.Fatalf("the offer: %+v %v", offer, err)
	}
	if d := offer.ExpiresAt.Sub(e.Clock.Now()); d != waitlist.OfferFor {
		t.Errorf("the offer holds for %v, want %v", d, waitlist.OfferFor)
	}
	if mine, _ := e.Orders.List(ctx, big, 10); len(mine) != 1 || mine[0].OrderNo != offer.OrderNo {
		t.Errorf("the offer is not in the buyer's orders: %v", mine)
	}
	if en, _ := l.Mine(ctx, small, e.Show.ID); en.Position != 1 {
		t.Errorf("the 2-seat place moved to position %d, want 1", en.Position)
	}

	// the offer lapses: its 4 seats go to the 2-seat places, in order
	e.Clock.Advance(waitlist.OfferFor + time.Second)
	if ok, err := e.Orders.Expire(ctx, offer.OrderNo); !ok || err != nil {
		t.Fatalf("expire the offer: %v %v", ok, err)
	}
	if n, err := l.Serve(ctx, e.Show.ID); err != nil || n != 2 {
		t.Fatalf("serve after the lapse: %d offers, %v", n, err)
	}
	if en, _ := l.Mine(ctx, big, e.Show.ID); en.Status != waitlist.StatusLapsed {
		t.Errorf("the lapsed place reads %q", en.Status)
	}
	for _, u := range []int64{small, third} {
		if en, _ := l.Mine(ctx, u, e.Show.ID); en.Status != waitlist.StatusOffered {
			t.Errorf("user %d reads %q, want offered", u, en.Status)
		}
	}
	// the lapsed buyer may join again, at the back
	if en, err := l.Join(ctx, big, e.Show.ID, 4, "", ""); err != nil || en.Position != 1 {
		t.Fatalf("join again: %+v %v", en, err)
	}
	// nothing came back: serving again offers nothing
	if n, _ := l.Serve(ctx, e.Show.ID); n != 0 {
		t.Fatalf("serve with nothing released made %d offers", n)
	}
	list, err := l.List(ctx, e.Show.ID)
	if err != nil || len(list) != 4 {
		t.Fatalf("staff list: %d places, %v", len(list), err)
	}
	e.CheckInvariants()
}

// TestWaitlist_RacingReleasesAndBuyers: while orders are cancelled one by one, buyers
// race the waiting list for the same seats (chosen and best-available), and three
// servers (instances) serve the list at once, no seat is sold twice, no place that fits
// is passed for a later one, no place gets two offers, and at the end no waiting place
// fits the seats left free.
func TestWaitlist_RacingReleasesAndBuyers(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	sold := soldOut(t, e)
	lists := []*waitlist.Lists{waitlist.NewLists(e.DB, e.Orders, nil), waitlist.NewLists(e.DB, e.Orders, nil), waitlist.NewLists(e.DB, e.Orders, nil)}
	var mu sync.Mutex
	offered := map[int64]int{} // entry id -> offers
	for _, l := range lists {
		l.OnOffer(func(en *waitlist.Entry, _ *services.Order) { mu.Lock(); offered[en.ID]++; mu.Unlock() })
	}
	quantities := []int{3, 1, 2, 4, 1, 2, 2, 3, 1, 1}
	for i, q := range quantities {
		if _, err := lists[0].Join(ctx, e.User(100+i), e.Show.ID, q, "", ""); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for _, l := range lists {
		wg.Add(1)
		go func(l *waitlist.Lists) {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := l.Serve(ctx, e.Show.ID); err != nil {
					t.Error(err)
					return
				}
			}
		}(l)
	}
	for b := 0; b < 4; b++ {
		wg.Add(1)
		go func(b int) {
			defer wg.Done()
			buyer := e.User(200 + b)
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				case <-time.After(time.Duration(2+b) * time.Millisecond):
				}
				var err error
				if k%2 == 0 {
					_, err = e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: buyer, ShowID: e.Show.ID, Zone: "standard", Quantity: 1})
				} else {
					seat := e.Hall.Seats[(b*5+k)%len(e.Hall.Seats)]
					_, err = e.Create(buyer, seat.ID)
				}
				if c := services.ErrorCode(err); err != nil && c != services.CodeSeatTaken && c != services.CodeSoldOut &&
					c != services.CodeNoAdjacentSeats && c != services.CodeLimitExceeded {
					t.Error(err)
				}
			}
		}(b)
	}
	for _, o := range sold {
		time.Sleep(30 * time.Millisecond)
		if _, err := e.Orders.Cancel(ctx, o.UserID, o.OrderNo); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond)
	close(stop)
	wg.Wait()
	if _, err := lists[0].Serve(ctx, e.Show.ID); err != nil {
		t.Fatal(err)
	}

	e.CheckInvariants()
	places, err := lists[0].List(ctx, e.Show.ID)
	if err != nil {
		t.Fatal(err)
	}
	states, err := e.Seats.States(ctx, e.Show.ID)
	if err != nil {
		t.Fatal(err)
	}
	freeNow := 0
	for _, s := range e.Hall.Seats {
		if states[s.ID] == "F" {
			freeNow++
		}
	}
	offers := 0
	for i, p := range places {
		if offered[p.ID] > 1 {
			t.Errorf("place %d got %d offers", p.ID, offered[p.ID])
		}
		switch p.Status {
		case waitlist.StatusOffered:
			offers++
			o, err := e.Orders.Get(ctx, p.UserID, p.OrderNo)
			if err != nil || o.Status != services.OrderPending || len(o.Seats) != p.Quantity {
				t.Errorf("place %d's offer: %+v %v", p.ID, o, err)
			}
			// never skip: no earlier place wanting no more seats still waits
			for _, q := range places[:i] {
				if q.Status == waitlist.StatusWaiting && q.Quantity <= p.Quantity {
					t.Errorf("place %d (%d seats) waits though the later place %d (%d seats) got an offer", q.ID, q.Quantity, p.ID, p.Quantity)
				}
			}
		case waitlist.StatusWaiting:
			if p.Quantity <= 1 && freeNow > 0 {
				t.Errorf("place %d waits for 1 seat while %d seats are free", p.ID, freeNow)
			}
		}
	}
	t.Logf("%d offers made; %d seats free at the end", offers, freeNow)
	if offers < 2 {
		t.Errorf("%d offers were made: the race proved little", offers)
	}
}

// TestWaitlist_SeatsThatFitNobodyStayOnSale: seats free but not side by side fit no
// place waiting for a pair, so other buyers can still book them (the gate keeps only
// seats that come back after a serve); a buyer at the purchase limit cannot join; a
// closed sale keeps the places waiting, and a cancelled show closes them, an open offer
// too.
func TestWaitlist_SeatsThatFitNobodyStayOnSale(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	h := e.MakeLayout("Fragments", testenv.RowSpec{Zone: "standard", Seats: "SSSS"})
	e.Hall, e.Show = h, e.OnSaleShow(h.ID, 0)
	l := waitlist.NewLists(e.DB, e.Orders, nil)
	holder := e.User(1)
	if _, err := e.Create(holder, testenv.HallSeatIDs(t, h, "A1", "A3")...); err != nil {
		t.Fatal(err)
	}
	pair := e.User(2)
	if _, err := l.Join(ctx, pair, e.Show.ID, 2, "", ""); err != nil {
		t.Fatalf("join for a pair with only single seats free: %v", err)
	}
	if n, err := l.Serve(ctx, e.Show.ID); err != nil || n != 0 {
		t.Fatalf("serve: %d offers, %v", n, err)
	}
	if _, err := e.Create(e.User(3), testenv.HallSeatIDs(t, h, "A2")...); err != nil {
		t.Fatalf("a single seat nobody on the list fits is not on sale: %v", err)
	}
	if _, err := l.Join(ctx, holder, e.Show.ID, 3, "", ""); services.ErrorCode(err) != services.CodeLimitExceeded {
		t.Fatalf("joining for 3 while holding 2 of a limit of 4: %v", err)
	}

	// the sale closes for a while: the place waits on; it opens again: still there
	e.Exec("UPDATE shows SET sale_closes_at = ? WHERE id = ?", e.Clock.Now().Add(-time.Minute), e.Show.ID)
	if _, err := l.Serve(ctx, e.Show.ID); err != nil {
		t.Fatal(err)
	}
	var status string
	if err := e.DB.Get(&status, "SELECT status FROM waitlist_entries WHERE user_id = ?", pair); err != nil || status != "waiting" {
		t.Fatalf("a closed sale ended the place: %q %v", status, err)
	}
	e.Exec("UPDATE shows SET sale_closes_at = ? WHERE id = ?", e.Show.StartsAt.Add(-time.Hour), e.Show.ID)
	// a pair comes back: the place gets it; then the show is cancelled
	all, _ := e.Orders.List(ctx, holder, 10)
	if _, err := e.Orders.Cancel(ctx, holder, all[0].OrderNo); err != nil {
		t.Fatal(err)
	}
	if n, err := l.Serve(ctx, e.Show.ID); err != nil || n != 1 {
		t.Fatalf("serve after the pair came back: %d offers, %v", n, err)
	}
	en, _ := l.Mine(ctx, pair, e.Show.ID)
	if en.Status != waitlist.StatusOffered {
		t.Fatalf("the place reads %q", en.Status)
	}
	e.Exec("UPDATE shows SET status = 'cancelled' WHERE id = ?", e.Show.ID)
	e.Exec("UPDATE orders SET status = 'cancelled' WHERE order_no = ?", en.OrderNo)
	e.Catalog.ForgetShow(e.Show.ID)
	if en, _ := l.Mine(ctx, pair, e.Show.ID); en.Status != waitlist.StatusClosed {
		t.Errorf("an offer of a cancelled show reads %q, want closed", en.Status)
	}
}
