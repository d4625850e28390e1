package orders_test

import (
	"bytes"
	"context"
	"testing"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// TestTickets_CodeIsStoredOnceAndACollisionDrawsAgain: an order's code is drawn once and
// read back after; a second order whose first draw is a code already taken (MySQL 1062
// on the primary key) gets the next draw; a code names its order, an unknown one is
// NOT_FOUND.
func TestTickets_CodeIsStoredOnceAndACollisionDrawsAgain(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	o1, err := e.Create(e.User(1), e.SeatIDs("A1")...)
	if err != nil {
		t.Fatal(err)
	}
	o2, err := e.Create(e.User(2), e.SeatIDs("A2")...)
	if err != nil {
		t.Fatal(err)
	}
	first, second := bytes.Repeat([]byte{7}, 9), bytes.Repeat([]byte{9}, 9)
	want1, _ := orders.NewTicketCode(bytes.NewReader(first))
	want2, _ := orders.NewTicketCode(bytes.NewReader(second))
	tk := orders.NewTickets([]byte("secret")).WithCodes(e.DB, e.Clock)

	tk.SetRand(bytes.NewReader(first))
	if c, err := tk.Code(ctx, o1); c != want1 || err != nil {
		t.Fatalf("o1's code: %q, %v; want %q", c, err, want1)
	}
	tk.SetRand(bytes.NewReader(second))
	if c, err := tk.Code(ctx, o1); c != want1 || err != nil {
		t.Fatalf("o1's code read again: %q, %v; want %q (no new draw)", c, err, want1)
	}
	tk.SetRand(bytes.NewReader(append(append([]byte{}, first...), second...)))
	if c, err := tk.Code(ctx, o2); c != want2 || err != nil {
		t.Fatalf("o2's code after drawing o1's: %q, %v; want %q", c, err, want2)
	}
	for code, no := range map[string]string{want1: o1.OrderNo, want2: o2.OrderNo} {
		if got, err := tk.OrderNoOfCode(ctx, code); got != no || err != nil {
			t.Errorf("OrderNoOfCode(%s) = %q, %v; want %q", code, got, err, no)
		}
	}
	unknown, _ := orders.NewTicketCode(bytes.NewReader(bytes.Repeat([]byte{3}, 9)))
	if _, err := tk.OrderNoOfCode(ctx, unknown); services.ErrorCode(err) != services.CodeNotFound {
		t.Errorf("an unknown code: %v, want NOT_FOUND", err)
	}
	tk.SetRand(bytes.NewReader(bytes.Repeat(first, 10)))
	o3, err := e.Create(e.User(3), e.SeatIDs("A3")...)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := tk.Code(ctx, o3); services.ErrorCode(err) != services.CodeUnavailable {
		t.Errorf("every draw taken: %q, %v; want UNAVAILABLE after the tries", c, err)
	}
}
