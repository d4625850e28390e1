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
