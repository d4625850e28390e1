package orders_test

import (
	"context"
	"errors"
	"testing"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
	"seatflow/services/store"
)

// TestTicketTypes_RequestShape: tickets and ticket counts that do not fit the request are
// INVALID_REQUEST before anything is held, and a type the seat's zone does not sell is
// TICKET_TYPE_NOT_OFFERED naming the seats; a refusal writes no order, and the one
// order made after them leaves both stores agreeing.
func TestTicketTypes_RequestShape(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	if err := store.InsertTicketType(ctx, e.DB, services.TicketType{Code: "child", NameEn: "Child", NameZh: "儿童", CreatedAt: e.Clock.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := store.InsertTicketType(ctx, e.DB, services.TicketType{Code: "senior", NameEn: "Senior", NameZh: "长者", CreatedAt: e.Clock.Now()}); err != nil {
		t.Fatal(err)
	}
	var standard int64
	for _, z := range e.Show.Zones {
		if z.Code == "standard" {
			standard = z.ID
		}
	}
	if err := store.SetShowTicketPrice(ctx, e.DB, e.Show.ID, "child", standard, 1500); err != nil {
		t.Fatal(err)
	}
	e.Catalog.ForgetShow(e.Show.ID)
	a1, h1 := e.SeatIDs("A1")[0], e.SeatIDs("H2")[0] // standard, premium
	for _, tc := range []struct {
		name  string
		req   orders.CreateOrderRequest
		code  string
		seats []string
	}{
		{"a ticket for a seat not ordered", orders.CreateOrderRequest{SeatIDs: []int64{a1}, Tickets: map[int64]string{h1: "child"}}, services.CodeInvalidRequest, nil},
		{"tickets with best available", orders.CreateOrderRequest{Zone: "standard", Quantity: 1, Tickets: map[int64]string{a1: "child"}}, services.CodeInvalidRequest, nil},
		{"counts with chosen seats", orders.CreateOrderRequest{SeatIDs: []int64{a1}, TicketCounts: map[string]int{"adult": 1}}, services.CodeInvalidRequest, nil},
		{"counts short of the quantity", orders.CreateOrderRequest{Zone: "standard", Quantity: 3, TicketCounts: map[string]int{"child": 2}}, services.CodeInvalidRequest, nil},
		{"counts over the quantity", orders.CreateOrderRequest{Zone: "standard", Quantity: 1, TicketCounts: map[string]int{"child": 1, "adult": 1}}, services.CodeInvalidRequest, nil},
		{"a negative count", orders.CreateOrderRequest{Zone: "standard", Quantity: 1, TicketCounts: map[string]int{"child": -1, "adult": 2}}, services.CodeInvalidRequest, nil},
		{"an unknown type", orders.CreateOrderRequest{SeatIDs: []int64{a1}, Tickets: map[int64]string{a1: "dragon"}}, services.CodeInvalidRequest, nil},
		{"not sold in the seat's zone", orders.CreateOrderRequest{SeatIDs: []int64{a1, h1}, Tickets: map[int64]string{a1: "child", h1: "child"}}, services.CodeTicketTypeNotOffered, []string{"H2"}},
		{"not sold by the show", orders.CreateOrderRequest{SeatIDs: []int64{a1}, Tickets: map[int64]string{a1: "senior"}}, services.CodeTicketTypeNotOffered, []string{"A1"}},
		{"best available in a zone without the type", orders.CreateOrderRequest{Zone: "premium", Quantity: 1, TicketCounts: map[string]int{"child": 1}}, services.CodeTicketTypeNotOffered, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.UserID, tc.req.ShowID = e.User(1), e.Show.ID
			_, err := e.Orders.Create(ctx, tc.req)
			if services.ErrorCode(err) != tc.code {
				t.Fatalf("got %v, want %s", err, tc.code)
			}
			var se *services.Error
			if tc.seats != nil && (!errors.As(err, &se) || len(se.Seats) != len(tc.seats) || se.Seats[0] != tc.seats[0]) {
				t.Errorf("seats named: %v, want %v", se, tc.seats)
			}
			var n int
			if err := e.DB.Get(&n, "SELECT COUNT(*) FROM orders"); err != nil || n != 0 {
				t.Errorf("%d orders after a refusal (%v)", n, err)
			}
		})
	}
	// best available deals the counts out: one child, one adult
	o, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(2), ShowID: e.Show.ID, Zone: "standard", Quantity: 2, TicketCounts: map[string]int{"adult": 1, "child": 1}})
	if err != nil {
		t.Fatal(err)
	}
	adult, _ := e.Show.ZonePrice("standard")
	if o.TotalMinor != adult+1500 || o.Seats[0].TicketType != "adult" || o.Seats[1].TicketType != "child" || o.Seats[1].PriceMinor != 1500 {
		t.Errorf("best available with counts: total %d seats %+v", o.TotalMinor, o.Seats)
	}
	e.CheckInvariants()
}

// TestTicketTypes_OrderBeforeTypesReadsAdult: an order whose seats were written before
// order_seats had a ticket type (an INSERT naming only the old columns) reads as adult,
// each seat at the price it was sold at.
func TestTicketTypes_OrderBeforeTypesReadsAdult(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	now := e.Clock.Now().UTC()
	u := e.User(1)
	id := e.Exec(`INSERT INTO orders (order_no, user_id, show_id, status, total_minor, currency, created_at, expires_at)
		VALUES ('0OLDORDER000001', ?, ?, 'cancelled', 7777, ?, ?, ?)`, u, e.Show.ID, e.Show.Currency, now, now)
	seat := e.SeatIDs("B3")[0]
	e.Exec(`INSERT INTO order_seats (order_id, show_id, seat_id, zone_code, price_minor, live) VALUES (?, ?, ?, 'standard', 7777, NULL)`, id, e.Show.ID, seat)
	o, err := e.Orders.Get(ctx, u, "0OLDORDER000001")
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Seats) != 1 || o.Seats[0].TicketType != services.TicketAdult || o.Seats[0].PriceMinor != 7777 || o.TotalMinor != 7777 {
		t.Errorf("old order reads %+v, total %d", o.Seats, o.TotalMinor)
	}
}
