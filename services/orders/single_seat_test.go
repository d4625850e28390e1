package orders_test

import (
	"context"
	"slices"
	"testing"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// TestSingleSeatRule_ChosenSeats: under enforce an order that would leave a lone seat
// while its row offers a choice that leaves none is refused SINGLE_SEAT_GAP naming the
// seat, and changes nothing; under warn it is created and lists the seat; with off it
// says nothing; and under enforce an order is accepted when every choice of as many
// seats in its row would strand one.
func TestSingleSeatRule_ChosenSeats(t *testing.T) {
	for _, tc := range []struct {
		rule, row string
		pick      []string
		code      string   // "" created
		stranded  []string // named in the error or the order
	}{
		{"enforce", "SSSSSS", []string{"A2", "A3"}, services.CodeSingleSeatGap, []string{"A1"}},
		{"warn", "SSSSSS", []string{"A2", "A3"}, "", []string{"A1"}},
		{"off", "SSSSSS", []string{"A2", "A3"}, "", nil},
		{"enforce", "SSSSSS", []string{"A1", "A2"}, "", nil},
		{"enforce", "SSS.S", []string{"A1", "A2"}, "", []string{"A3"}}, // every pair of the row strands one
	} {
		t.Run(tc.rule+" "+tc.row+" "+tc.pick[0], func(t *testing.T) {
			e := testenv.NewTestEnv(t, testenv.Unlimited)
			h := e.MakeLayout("Rule hall", testenv.RowSpec{Zone: "standard", Seats: tc.row})
			show := e.OnSaleShow(h.ID, 0)
			e.Exec("UPDATE shows SET single_seat_rule = ? WHERE id = ?", tc.rule, show.ID)
			o, err := e.Orders.Create(context.Background(), orders.CreateOrderRequest{UserID: e.User(1), ShowID: show.ID, SeatIDs: testenv.HallSeatIDs(t, h, tc.pick...)})
			if got := services.ErrorCode(err); got != tc.code {
				t.Fatalf("create: %v, want code %q", err, tc.code)
			}
			var named []string
			if err != nil {
				named = err.(*services.Error).Seats
				states, _ := e.Seats.States(context.Background(), show.ID)
				for id, v := range states {
					if v != "F" {
						t.Errorf("a refused order left seat %d %q", id, v)
					}
				}
			} else {
				named = o.Stranded
			}
			if !slices.Equal(named, tc.stranded) {
				t.Errorf("stranded %v, want %v", named, tc.stranded)
			}
		})
	}
}

// TestSingleSeatRule_BestAvailableFallsBackAndSaysSo: best-available takes a block that
// strands nothing while one exists, whatever the show's rule; when every block left
// strands a seat it takes the best of them and the order names the stranded seat.
func TestSingleSeatRule_BestAvailableFallsBackAndSaysSo(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	h := e.MakeLayout("Fallback hall",
		testenv.RowSpec{Zone: "standard", Seats: "SSS.SSSS"},
	)
	show := e.OnSaleShow(h.ID, 0)
	// A5-A8 take two without a lone seat; A1-A3 cannot
	first, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(1), ShowID: show.ID, Zone: "standard", Quantity: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := orders.Labels(first.Seats); len(first.Stranded) > 0 || (got[0] != "A4" && got[0] != "A6") {
		t.Fatalf("first pick %v strands %v; want A4-A5 or A6-A7, stranding nothing", got, first.Stranded)
	}
	second, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(2), ShowID: show.ID, Zone: "standard", Quantity: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Stranded) > 0 {
		t.Fatalf("second pick %v strands %v though a clean pair was left", orders.Labels(second.Seats), second.Stranded)
	}
	third, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(3), ShowID: show.ID, Zone: "standard", Quantity: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(third.Stranded) != 1 {
		t.Fatalf("third pick %v: every pair of A1-A3 strands one, the order must say which (got %v)", orders.Labels(third.Seats), third.Stranded)
	}
	e.Show = show
	e.CheckInvariants()
}
