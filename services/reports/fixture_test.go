package reports_test

import (
	"context"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
	"seatflow/services/store"
)

// salesFixture is a chain of two cinemas and what they sold, through the order and
// payment paths at chosen instants:
//
//   - Berlin (cinema 1, Europe/Berlin, CNY), show S: C at 23:30 on Sat 24 Oct 2026 (CEST);
//     D (two seats) at 00:30 on Sun 25 Oct, the day the clocks go back (25 hours); E at
//     23:30 on 25 Oct (CET); F at 00:30 on 26 Oct; V at 23:30 on 29 Nov with voucher
//     HALF (50 %) on an adult and a child seat; W at 00:30 on 30 Nov, two seats at the box
//     office, one of them exchanged away later (no longer live, no refund); a pending
//     order P on 29 Nov never paid. V's adult seat is refunded (2250) at 11:00 on 1 Dec.
//   - Tokyo (Asia/Tokyo, JPY), show T: J at 00:30 on 30 Nov local (15:30 UTC on 29 Nov,
//     still 29 Nov in Berlin).
//
// Standard seats cost 4500, a child's 1500.
type salesFixture struct {
	e                 *testenv.TestEnv
	berlin, tokyo     int64
	showS, showT      *services.Show
	c, d, ee, f, v, w *services.Order
	j                 *services.Order
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// buyAt orders labels of show (its hall's seats) for a new customer at instant at, with
// tickets (label -> type) and voucher, and pays it at the same instant unless pending.
func buyAt(e *testenv.TestEnv, hall *services.Hall, show *services.Show, at time.Time, pay bool, voucher string, tickets map[string]string, labels ...string) *services.Order {
	e.T.Helper()
	e.Clock.Mu.Lock()
	e.Clock.T = at.UTC()
	e.Clock.Mu.Unlock()
	ids := testenv.HallSeatIDs(e.T.(*testing.T), hall, labels...)
	req := orders.CreateOrderRequest{UserID: e.User(int(testenv.BulkSeq.Add(1))), ShowID: show.ID, SeatIDs: ids, Voucher: voucher, Tickets: map[int64]string{}}
	for i, l := range labels {
		if tt, ok := tickets[l]; ok {
			req.Tickets[ids[i]] = tt
		}
	}
	o, err := e.Orders.Create(context.Background(), req)
	if err != nil {
		e.T.Fatalf("order %v at %s: %v", labels, at, err)
	}
	if pay {
		e.Pay(o)
	}
	return o
}

func newSalesFixture(t *testing.T) *salesFixture {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	testenv.SetFirstCinemaZone(t, e.DB, "Europe/Berlin")
	fx := &salesFixture{e: e, berlin: 1}
	var err error
	if fx.tokyo, err = store.InsertCinema(ctx, e.DB, "Tokyo", "Asia/Tokyo", "JPY", e.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	if err := store.InsertTicketType(ctx, e.DB, services.TicketType{Code: "child", NameEn: "Child", NameZh: "儿童", CreatedAt: e.Clock.Now()}); err != nil {
		t.Fatal(err)
	}
	fx.showS = e.MakeShow(e.Hall.ID, services.ShowOnSale, utc("2026-10-01T00:00:00Z"), utc("2027-01-31T19:00:00Z"))
	for _, z := range fx.showS.Zones {
		if z.Code == "standard" {
			if err := store.SetShowTicketPrice(ctx, e.DB, fx.showS.ID, "child", z.ID, 1500); err != nil {
				t.Fatal(err)
			}
		}
	}
	e.Catalog.ForgetShow(fx.showS.ID)
	if fx.showS, err = e.Catalog.Show(ctx, fx.showS.ID); err != nil {
		t.Fatal(err)
	}
	th, err := e.CatalogWriter(e.Shows).CreateHall(ctx, 0, catalog.HallInput{CinemaID: fx.tokyo, Name: "Tokyo 1",
		Layout: "SSSSSS\nSSSSSS\n", Numbering: catalog.NumberLeftToRight})
	if err != nil {
		t.Fatal(err)
	}
	fx.showT = e.MakeShow(th.ID, services.ShowOnSale, utc("2026-10-01T00:00:00Z"), utc("2027-01-31T10:00:00Z"))
	e.Exec("UPDATE shows SET currency = 'JPY' WHERE id = ?", fx.showT.ID)
	e.Catalog.ForgetShow(fx.showT.ID)
	if fx.showT, err = e.Catalog.Show(ctx, fx.showT.ID); err != nil {
		t.Fatal(err)
	}
	e.MakeVoucher("HALF", 10, 50, fx.showS.ID)
	e.Exec("UPDATE movies SET title = 'Alpha' WHERE id = ?", fx.showS.Movie.ID)
	e.Exec("UPDATE movies SET title = 'Zulu' WHERE id = ?", fx.showT.Movie.ID)

	h := e.Hall
	fx.c = buyAt(e, h, fx.showS, utc("2026-10-24T21:30:00Z"), true, "", nil, "A1")
	fx.d = buyAt(e, h, fx.showS, utc("2026-10-24T22:30:00Z"), true, "", nil, "A2", "A3")
	fx.ee = buyAt(e, h, fx.showS, utc("2026-10-25T22:30:00Z"), true, "", nil, "A4")
	fx.f = buyAt(e, h, fx.showS, utc("2026-10-25T23:30:00Z"), true, "", nil, "A5")
	fx.v = buyAt(e, h, fx.showS, utc("2026-11-29T22:30:00Z"), true, "HALF", map[string]string{"B2": "child"}, "B1", "B2")
	buyAt(e, h, fx.showS, utc("2026-11-29T22:40:00Z"), false, "", nil, "B5") // pending, never paid
	fx.w = buyAt(e, h, fx.showS, utc("2026-11-29T23:30:00Z"), true, "", nil, "B3", "B4")
	th2, err := e.Catalog.Hall(ctx, th.ID)
	if err != nil {
		t.Fatal(err)
	}
	fx.j = buyAt(e, th2, fx.showT, utc("2026-11-29T15:30:00Z"), true, "", nil, "A1")

	// W was sold at the box office; its B4 was exchanged away (no longer live, no refund)
	e.Exec("UPDATE orders SET channel = 'box_office', sold_by = ? WHERE id = ?", e.User(0), fx.w.ID)
	b4 := testenv.HallSeatIDs(t, h, "B4")[0]
	e.Exec("UPDATE order_seats SET live = NULL WHERE order_id = ? AND seat_id = ?", fx.w.ID, b4)
	// V's adult seat B1 refunded on 1 Dec: its price less its voucher saving
	b1 := testenv.HallSeatIDs(t, h, "B1")[0]
	e.Exec("UPDATE order_seats SET live = NULL WHERE order_id = ? AND seat_id = ?", fx.v.ID, b1)
	if err := store.InsertRefund(ctx, e.DB, &store.RefundRow{RefundID: "test-refund-v-b1", OrderID: fx.v.ID, AmountMinor: 2250,
		Currency: "CNY", Reason: "test", CreatedAt: utc("2026-12-01T10:00:00Z")},
		[]store.RefundSeatRow{{SeatID: b1, AmountMinor: 2250}}); err != nil {
		t.Fatal(err)
	}
	return fx
}
