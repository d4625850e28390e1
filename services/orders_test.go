package services

import (
	"context"
	"testing"
)

// TestCreateOrderHoldsSeatsAndPrices is the happy path: the order is pending, priced
// from the zone prices (invariant 6), and both stores agree afterwards.
func TestCreateOrderHoldsSeatsAndPrices(t *testing.T) {
	e := newTestEnv(t, unlimited)
	u := e.user(1)
	o, err := e.create(u, e.seatIDs("A1", "H5")...)
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != OrderPending || o.TotalMinor != 4500+6500 || len(o.Seats) != 2 {
		t.Fatalf("order %+v", o)
	}
	if _, ok := e.expiry.scheduled[o.OrderNo]; !ok {
		t.Error("no expiry task scheduled")
	}
	m, err := e.shows.SeatMap(context.Background(), e.show.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st := m.States[e.seatIDs("A1")[0]]; st != StateHeld {
		t.Errorf("A1 is %s", st)
	}
	e.checkInvariants()
}
