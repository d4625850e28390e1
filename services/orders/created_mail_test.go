package orders_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/mail"
	"seatflow/services/orders"
	"seatflow/services/store"
)

// createdMailCount returns how many order_created e-mails the outbox holds for order,
// failing the test when one is addressed to someone else.
func createdMailCount(t *testing.T, e *testenv.TestEnv, o *services.Order) int {
	t.Helper()
	n := 0
	for _, m := range e.MailsOf(o.OrderNo) {
		if m.Kind == string(mail.OrderCreated) {
			if m.UserID != o.UserID || m.ShowID != o.ShowID {
				t.Errorf("order_created of %s to user %d about show %d, want user %d, show %d", o.OrderNo, m.UserID, m.ShowID, o.UserID, o.ShowID)
			}
			n++
		}
	}
	return n
}

// TestGroupCommit_BatchQueuesOneCreatedMailPerCommittedOrder: a batch of M orders that
// commits together queues M order_created e-mails with it (one multi-row INSERT), each
// to its own buyer; a batch that refuses an order at its commit (the purchase limit
// after the counts were rebuilt: the batch runs again without it; a seat MySQL has sold:
// the batch commits order by order) queues e-mails only for the orders that committed.
func TestGroupCommit_BatchQueuesOneCreatedMailPerCommittedOrder(t *testing.T) {
	const n, victim = 8, 5 // buyer 5 orders A6 and B6
	for _, tc := range []struct {
		name   string
		inject func(e *testenv.TestEnv, victimUser int64) (undo func())
	}{
		{"all commit", nil},
		{"purchase limit refuses one", func(e *testenv.TestEnv, u int64) func() {
			no := insertLiveOrder(e, u, "C1", "C2", "C3") // 3 + 2 seats > 4
			e.RDB.HDel(context.Background(), e.Seats.Keys(e.Show.ID)[2], "_")
			return func() { deleteOrder(e, no) }
		}},
		{"seat sold in MySQL refuses one", func(e *testenv.TestEnv, _ int64) func() {
			no := insertLiveOrder(e, e.User(40), "A6")
			return func() { deleteOrder(e, no) }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := testenv.NewTestEnv(t, testenv.Unlimited)
			e.QuietLogs()
			o := batching(e)
			if _, err := e.Create(e.User(0), e.SeatIDs("J10")...); err != nil { // loads the seat map
				t.Fatal(err)
			}
			users := e.BulkUsers(n)
			undo := func() {}
			heldTogether(t, o, n, func() {
				if tc.inject != nil {
					undo = tc.inject(e, users[victim])
				}
			})
			before := e.CountRows("mail_outbox")
			list, errs := createAll(e, users, pairOf(e))
			committed := 0
			for i, err := range errs {
				refused := tc.inject != nil && i == victim
				switch {
				case refused && err == nil:
					t.Fatalf("order %d committed; the test meant it to be refused", i)
				case !refused && err != nil:
					t.Fatalf("order %d: %v", i, err)
				case !refused:
					committed++
					if c := createdMailCount(t, e, list[i]); c != 1 {
						t.Errorf("order %d has %d order_created e-mails, want 1", i, c)
					}
				}
			}
			if got := e.CountRows("mail_outbox") - before; got != committed {
				t.Errorf("the batch queued %d e-mails for %d committed orders", got, committed)
			}
			if count, _ := batches(t, o); tc.inject == nil && count != 2 {
				t.Errorf("%d transactions committed, want 2 (the first order, then one batch of %d)", count, n)
			}
			t.Logf("%d of %d orders committed, %d e-mails queued", committed, n, committed)
			undo()
			e.CheckInvariants()
		})
	}
}

// TestGroupCommit_CreatedMailFactsAsMySQLHasThem: the facts a batch writes into its
// order_created e-mails without reading them back (the orders as inserted, the seats as
// its lock read them, the show as the create read it) are the facts MySQL holds for
// those orders once committed (mail.ReadFacts, the read Queue makes for any other
// e-mail): number, status, total, currency, deadline, seats in row and column order
// with their zones' names, the movie's title, the hall's name and the start. Seats are
// ordered out of row order, alone and in a batch.
func TestGroupCommit_CreatedMailFactsAsMySQLHasThem(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	o := batching(e)
	// a ticket type sold in every zone, for the seats the cases name as child tickets
	if err := store.InsertTicketType(ctx, e.DB, services.TicketType{Code: "child", NameEn: "Child", NameZh: "儿童", CreatedAt: e.Clock.Now()}); err != nil {
		t.Fatal(err)
	}
	for _, z := range e.Show.Zones {
		if err := store.SetShowTicketPrice(ctx, e.DB, e.Show.ID, "child", z.ID, 1000); err != nil {
			t.Fatal(err)
		}
	}
	e.Catalog.ForgetShow(e.Show.ID)
	e.Catalog.ForgetTicketTypes()
	for _, tc := range []struct {
		name  string
		seats [][]string // one order per list, all in one batch
		child []string   // seats sold as child tickets
	}{
		{"one order, seats out of order", [][]string{{"B2", "A1", "A2"}}, nil},
		{"a batch across zones", [][]string{{"H5", "G5"}, {"C3", "C1"}, {"J20", "J19", "I19"}}, nil},
		{"ticket types", [][]string{{"D2", "D1"}, {"E4", "E3"}}, []string{"D1", "E3", "E4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			users := e.BulkUsers(len(tc.seats))
			if len(tc.seats) > 1 {
				heldTogether(t, o, len(tc.seats), nil)
			}
			child := map[int64]bool{}
			for _, id := range e.SeatIDs(tc.child...) {
				child[id] = true
			}
			list, errs := make([]*services.Order, len(users)), make([]error, len(users))
			var wg sync.WaitGroup
			for i, u := range users {
				wg.Add(1)
				go func() {
					defer wg.Done()
					req := orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, SeatIDs: e.SeatIDs(tc.seats[i]...), Tickets: map[int64]string{}}
					for _, id := range req.SeatIDs {
						if child[id] {
							req.Tickets[id] = "child"
						}
					}
					list[i], errs[i] = e.Orders.Create(ctx, req)
				}()
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("create %d: %v", i, err)
				}
			}
			for _, order := range list {
				var stored string
				if err := e.DB.Get(&stored, "SELECT facts FROM mail_outbox WHERE order_no = ? AND kind = ?", order.OrderNo, mail.OrderCreated); err != nil {
					t.Fatal(err)
				}
				read, err := mail.ReadFacts(ctx, e.DB, mail.Message{Kind: mail.OrderCreated, UserID: order.UserID, OrderNo: order.OrderNo, ShowID: order.ShowID})
				if err != nil || read[0] == nil {
					t.Fatalf("reading the facts of %s: %v", order.OrderNo, err)
				}
				want, _ := json.Marshal(read[0])
				if len(tc.child) > 0 && !strings.Contains(stored, `"ticket_name":"Child"`) {
					t.Errorf("order %s: no child ticket in the e-mail's facts %s", order.OrderNo, stored)
				}
				if string(want) != stored {
					t.Errorf("order %s: the e-mail's facts\n  %s\nMySQL's\n  %s", order.OrderNo, stored, want)
				}
			}
		})
	}
	e.CheckInvariants()
}
