package invariants

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// TestExchange_RaceIntoTheSameSeats proves the exchange's guarantee (DESIGN.md
// "Exchanging seats") under contention: in each of three rounds, 16 orders of one row
// (half pending, half paid) each try to move their one seat onto one of two free seats,
// all at once, and 8 buyers try to buy those seats from the moment the first exchange has
// taken a seat in Redis, racing its MySQL commit and the other exchanges. Each contested seat ends with
// at most one live order in MySQL and the same owner in Redis; every exchange that lost
// kept its old seat in both stores (held or sold as before), every winner's old seat is
// free, and the seat invariants hold afterwards (CheckInvariants: one live order per
// seat, the cache equal to MySQL, counters and purchase limits). A script that freed the
// old seat before the new one was the order's, or took a seat someone else had, would
// break one of them.
func TestExchange_RaceIntoTheSameSeats(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	type mover struct {
		order *services.Order
		from  int64
		err   error
	}
	exchanged := 0
	for round := 0; round < 3; round++ {
		row := string(rune('A' + round))
		target := e.SeatIDs("F"+strconv.Itoa(2*round+1), "F"+strconv.Itoa(2*round+2))
		var movers []*mover
		for i := 1; i <= 16; i++ {
			o, err := e.Create(e.User(round*100+i), e.SeatIDs(row+strconv.Itoa(i))...)
			if err != nil {
				t.Fatal(err)
			}
			if i%2 == 0 {
				if err := e.PayOrder(o); err != nil {
					t.Fatal(err)
				}
				o.Status = services.OrderPaid
			}
			movers = append(movers, &mover{order: o, from: o.Seats[0].SeatID})
		}
		buyers := make([]int64, 8)
		for i := range buyers {
			buyers[i] = e.User(round*100 + 50 + i)
		}
		var wg, moved sync.WaitGroup
		start, buy := make(chan struct{}), make(chan struct{})
		var first sync.Once
		e.Orders.SetFailHook(func(stage string) error {
			if stage == "exchanged" {
				first.Do(func() { close(buy) })
			}
			return nil
		})
		for i, m := range movers {
			moved.Add(1)
			go func() {
				defer moved.Done()
				<-start
				_, m.err = e.Orders.Exchange(ctx, orders.ExchangeRequest{UserID: m.order.UserID, OrderNo: m.order.OrderNo,
					SeatIDs: []int64{target[i%2]}})
			}()
		}
		for i, u := range buyers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-buy
				_, _ = e.Create(u, target[i%2])
			}()
		}
		close(start)
		moved.Wait()
		first.Do(func() { close(buy) }) // no exchange got as far as Redis: the buyers go now
		wg.Wait()
		e.Orders.SetFailHook(nil)
		for _, id := range target {
			var live int
			if err := e.DB.Get(&live, "SELECT COUNT(*) FROM order_seats WHERE show_id = ? AND seat_id = ? AND live = 1", e.Show.ID, id); err != nil {
				t.Fatal(err)
			}
			if live > 1 {
				t.Errorf("round %d: seat %d has %d live orders", round, id, live)
			}
		}
		won := 0
		for _, m := range movers {
			mine := testenv.HeldBy(m.order)
			if m.order.Status == services.OrderPaid {
				mine = testenv.SoldTo(m.order)
			}
			var live int
			if err := e.DB.Get(&live, "SELECT COUNT(*) FROM order_seats WHERE order_id = ? AND seat_id = ? AND live = 1", m.order.ID, m.from); err != nil {
				t.Fatal(err)
			}
			switch services.ErrorCode(m.err) {
			case "":
				won++
				if v := e.SeatVal(e.Show.ID, m.from); v != "F" || live != 0 {
					t.Errorf("round %d: the winner %s's old seat is %q in the cache, %d live rows", round, m.order.OrderNo, v, live)
				}
			case services.CodeSeatTaken:
				if v := e.SeatVal(e.Show.ID, m.from); live != 1 || v != mine {
					t.Errorf("round %d: loser %s lost its seat: %d live rows, cache %q (want %q)", round, m.order.OrderNo, live, v, mine)
				}
			default:
				t.Errorf("round %d: exchange of %s: %v", round, m.order.OrderNo, m.err)
			}
		}
		if won > 2 {
			t.Errorf("round %d: %d exchanges won two seats", round, won)
		}
		t.Logf("round %d: %d of 16 exchanges won", round, won)
		exchanged += won
		e.CheckInvariants()
	}
	if exchanged == 0 {
		t.Error("no exchange won a seat in any round: the race tested nothing of them")
	}
}
