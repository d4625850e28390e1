package views

import (
	"testing"

	"seatflow/services"
)

// TestNewExchangeView_LeavesRefundedSeatsOut: a partly refunded order changes only the
// seats it keeps: the picker ticks those as its own and asks for as many in their zones.
func TestNewExchangeView_LeavesRefundedSeatsOut(t *testing.T) {
	o := &services.Order{OrderNo: "X1", Seats: []services.OrderSeat{
		{SeatID: 5, ZoneCode: "standard"}, {SeatID: 6, ZoneCode: "standard"},
		{SeatID: 7, ZoneCode: "premium", Refunded: true},
	}}
	v := NewExchangeView(o)
	if v.Count != 2 || v.Zones["standard"] != 2 || v.Zones["premium"] != 0 || !v.Seats[5] || !v.Seats[6] || v.Seats[7] {
		t.Fatalf("exchange view %+v: want seats 5 and 6, 2 standard, the refunded 7 left out", v)
	}
}

// TestExchangePrices_PickedSeatsTakeTheOrdersPrices: a seat of the order that stays keeps
// its type and price; a new seat takes those of a seat let go in its zone; a seat beyond
// them keeps its list price.
func TestExchangePrices_PickedSeatsTakeTheOrdersPrices(t *testing.T) {
	x := NewExchangeView(&services.Order{OrderNo: "X1", Seats: []services.OrderSeat{
		{SeatID: 5, ZoneCode: "standard", TicketType: "child", PriceMinor: 2250},
		{SeatID: 6, ZoneCode: "standard", TicketType: services.TicketAdult, PriceMinor: 4050},
		{SeatID: 7, ZoneCode: "premium", TicketType: services.TicketAdult, PriceMinor: 6000},
	}})
	for _, tc := range []struct {
		name   string
		cells  []SeatCell
		prices []int64
		types  []string
	}{
		{"unchanged", []SeatCell{{ID: "5", ZoneCode: "standard"}, {ID: "6", ZoneCode: "standard"}, {ID: "7", ZoneCode: "premium"}},
			[]int64{2250, 4050, 6000}, []string{"child", "", ""}},
		{"the child seat moved", []SeatCell{{ID: "6", ZoneCode: "standard"}, {ID: "7", ZoneCode: "premium"}, {ID: "9", ZoneCode: "standard", PriceMinor: 4500}},
			[]int64{4050, 6000, 2250}, []string{"", "", "child"}},
		{"one seat too many", []SeatCell{{ID: "5", ZoneCode: "standard"}, {ID: "6", ZoneCode: "standard"}, {ID: "8", ZoneCode: "standard", PriceMinor: 4500}},
			[]int64{2250, 4050, 4500}, []string{"child", "", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x.ExchangePrices(tc.cells, "CNY")
			for i, c := range tc.cells {
				if c.PriceMinor != tc.prices[i] || c.Ticket != tc.types[i] {
					t.Errorf("seat %s: %d %q, want %d %q", c.ID, c.PriceMinor, c.Ticket, tc.prices[i], tc.types[i])
				}
			}
		})
	}
}
