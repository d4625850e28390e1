package orders_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
	"seatflow/services/store"
)

// counterEnv is a test env with a staff member who sells at the counter.
func counterEnv(t *testing.T) (*testenv.TestEnv, int64, *audit.Audit) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	staffID, err := e.Users.Create(context.Background(), "seller-"+time.Now().Format("150405.000000000")+"@test.example", "password-123", "Seller", services.RoleStaff)
	if err != nil {
		t.Fatal(err)
	}
	return e, staffID, audit.NewAudit(e.DB, e.Clock)
}

// TestBoxOffice_SellsPaidWalkInOrder: a counter sale is a walk-in's order (no account),
// paid at once with channel box_office and sold_by, its payment approved for the total
// (captured = prices less the voucher), its change computed from the cash given, its
// seats sold in Redis, beyond the purchase limit, with its audit entry and no e-mail
// without an address; both stores agree afterwards.
func TestBoxOffice_SellsPaidWalkInOrder(t *testing.T) {
	e, staffID, log := counterEnv(t)
	ctx := context.Background()
	v := e.MakeVoucher("COUNTER10", 10, 10)
	given := int64(50000)
	o, r, err := e.Orders.SellAtCounter(ctx, log, orders.CounterSale{StaffID: staffID, ShowID: e.Show.ID,
		SeatIDs: e.SeatIDs("C1", "C2", "C3", "C4", "C5", "H5"), Voucher: v.Code, Tender: orders.TenderCash, TenderedMinor: &given})
	if err != nil {
		t.Fatal(err)
	}
	gross := int64(5*4500 + 6500)
	if o.Status != services.OrderPaid || o.Channel != services.ChannelBoxOffice || o.SoldBy == nil || *o.SoldBy != staffID ||
		o.UserID != services.WalkIn || o.TotalMinor != gross-o.DiscountMinor || o.DiscountMinor != gross/10 {
		t.Fatalf("order %+v", o)
	}
	if r.Tender != orders.TenderCash || r.TenderedMinor != given || r.ChangeMinor != given-o.TotalMinor || r.ShiftID != nil {
		t.Fatalf("receipt %+v", r)
	}
	var pay struct {
		Provider string `db:"provider"`
		Status   string `db:"status"`
		Amount   int64  `db:"amount_minor"`
	}
	if err := e.DB.Get(&pay, "SELECT provider, status, amount_minor FROM payments WHERE order_id = ?", o.ID); err != nil {
		t.Fatal(err)
	}
	if pay.Provider != orders.BoxOfficeProvider || pay.Status != "approved" || pay.Amount != o.TotalMinor {
		t.Fatalf("payment %+v, total %d", pay, o.TotalMinor)
	}
	if v := e.SeatVal(e.Show.ID, e.SeatIDs("C1")[0]); v != testenv.SoldTo(o) {
		t.Errorf("C1 in Redis is %q", v)
	}
	if len(e.AuditOf("order", o.OrderNo)) == 0 {
		t.Error("no audit entry of the sale")
	}
	if got := e.MailKinds(o.OrderNo); got != "" {
		t.Errorf("e-mails of a sale without an address: %q", got)
	}
	e.CheckInvariants()
}

// TestBoxOffice_EmailGetsTickets: a walk-in who gives an address gets the tickets'
// e-mail there, in the language asked, and nothing else.
func TestBoxOffice_EmailGetsTickets(t *testing.T) {
	e, staffID, log := counterEnv(t)
	o, _, err := e.Orders.SellAtCounter(context.Background(), log, orders.CounterSale{StaffID: staffID, ShowID: e.Show.ID,
		Zone: "standard", Quantity: 2, Tender: orders.TenderCard, Email: "Walk.In@Example.com", Lang: "zh"})
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Kind string `db:"kind"`
		To   string `db:"to_addr"`
		Lang string `db:"lang"`
	}
	if err := e.DB.Select(&rows, "SELECT kind, to_addr, lang FROM mail_outbox WHERE order_no = ?", o.OrderNo); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Kind != "order_paid" || rows[0].To != "walk.in@example.com" || rows[0].Lang != "zh" {
		t.Fatalf("outbox %+v", rows)
	}
	e.CheckInvariants()
}

// TestBoxOffice_Errors: the contract's refusals, each leaving both stores as they were.
func TestBoxOffice_Errors(t *testing.T) {
	e, staffID, log := counterEnv(t)
	ctx := context.Background()
	buyer := e.User(1)
	taken, err := e.Create(buyer, e.SeatIDs("D4")...)
	if err != nil {
		t.Fatal(err)
	}
	now := e.Clock.Now()
	notYet := e.MakeShow(e.Hall.ID, services.ShowOnSale, now.Add(time.Hour), now.Add(5*time.Hour))
	started := e.MakeShow(e.Hall.ID, services.ShowOnSale, now.Add(-5*time.Hour), now.Add(-time.Minute))
	given := int64(100)
	cases := []struct {
		name string
		sale orders.CounterSale
		code string
	}{
		{"unknown tender", orders.CounterSale{ShowID: e.Show.ID, SeatIDs: e.SeatIDs("A1"), Tender: "cheque"}, services.CodeInvalidRequest},
		{"no tender", orders.CounterSale{ShowID: e.Show.ID, SeatIDs: e.SeatIDs("A1")}, services.CodeInvalidRequest},
		{"cash short of the total", orders.CounterSale{ShowID: e.Show.ID, SeatIDs: e.SeatIDs("A1"), Tender: orders.TenderCash, TenderedMinor: &given}, services.CodeInvalidRequest},
		{"before the opening", orders.CounterSale{ShowID: notYet.ID, SeatIDs: e.SeatIDs("A1"), Tender: orders.TenderCash}, services.CodeNotOnSale},
		{"after the start", orders.CounterSale{ShowID: started.ID, SeatIDs: e.SeatIDs("A1"), Tender: orders.TenderCard}, services.CodeNotOnSale},
		{"seat taken", orders.CounterSale{ShowID: e.Show.ID, SeatIDs: e.SeatIDs("D3", "D4"), Tender: orders.TenderCard}, services.CodeSeatTaken},
		{"unknown show", orders.CounterSale{ShowID: 999999999, SeatIDs: e.SeatIDs("A1"), Tender: orders.TenderCard}, services.CodeNotFound},
	}
	before := e.RedisStateNorm() + e.DBState() // a released hold leaves the walk-in's count at 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.sale.StaffID = staffID
			_, _, err := e.Orders.SellAtCounter(ctx, log, tc.sale)
			if services.ErrorCode(err) != tc.code {
				t.Fatalf("got %v, want %s", err, tc.code)
			}
			if tc.name == "cash short of the total" && !strings.Contains(err.Error(), "(¥1.00) is less than the total ¥") {
				t.Errorf("the cashier is told %q: money should read as on the till", err)
			}
		})
	}
	if after := e.RedisStateNorm() + e.DBState(); after != before {
		t.Errorf("a refusal changed the stores:\n%s", testenv.StateDiff(before, after))
	}
	if e.OrderStatus(taken.OrderNo) != services.OrderPending {
		t.Error("the online order lost its seat")
	}
	e.CheckInvariants()
}

// TestBoxOffice_SellsAfterOnlineSaleClosed: the counter sells until the start, after the
// online sale closed, when an online order is NOT_ON_SALE.
func TestBoxOffice_SellsAfterOnlineSaleClosed(t *testing.T) {
	e, staffID, log := counterEnv(t)
	now := e.Clock.Now()
	e.Exec("UPDATE shows SET sale_closes_at = ?, starts_at = ? WHERE id = ?", now.Add(-time.Minute), now.Add(30*time.Minute), e.Show.ID)
	e.Catalog.ForgetShow(e.Show.ID)
	if _, err := e.Create(e.User(1), e.SeatIDs("A1")...); services.ErrorCode(err) != services.CodeNotOnSale {
		t.Fatalf("online after the close: %v", err)
	}
	o, _, err := e.Orders.SellAtCounter(context.Background(), log, orders.CounterSale{StaffID: staffID, ShowID: e.Show.ID,
		SeatIDs: e.SeatIDs("A1"), Tender: orders.TenderCard})
	if err != nil {
		t.Fatal(err)
	}
	if !o.ExpiresAt.After(now) || o.Status != services.OrderPaid {
		t.Fatalf("order %+v", o)
	}
}

// TestBoxOffice_RaceWithOnlineBuyer: an online buyer and the counter racing for one seat
// get exactly one sale, whichever wins; MySQL has one live order seat and Redis agrees.
func TestBoxOffice_RaceWithOnlineBuyer(t *testing.T) {
	e, staffID, log := counterEnv(t)
	ctx := context.Background()
	for round, label := range []string{"E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8"} {
		seat := e.SeatIDs(label)
		buyer := e.User(round)
		var wg sync.WaitGroup
		var online, counter error
		wg.Add(2)
		go func() { defer wg.Done(); _, online = e.Create(buyer, seat...) }()
		go func() {
			defer wg.Done()
			_, _, counter = e.Orders.SellAtCounter(ctx, log, orders.CounterSale{StaffID: staffID, ShowID: e.Show.ID, SeatIDs: seat, Tender: orders.TenderCard})
		}()
		wg.Wait()
		if (online == nil) == (counter == nil) {
			t.Fatalf("%s: online %v, counter %v: want exactly one sale", label, online, counter)
		}
		for _, err := range []error{online, counter} {
			if err != nil && services.ErrorCode(err) != services.CodeSeatTaken {
				t.Fatalf("%s: loser got %v, want SEAT_TAKEN", label, err)
			}
		}
		var live int
		if err := e.DB.Get(&live, "SELECT COUNT(*) FROM order_seats WHERE show_id = ? AND seat_id = ? AND live = 1", e.Show.ID, seat[0]); err != nil {
			t.Fatal(err)
		}
		if live != 1 {
			t.Fatalf("%s: %d live order seats in MySQL", label, live)
		}
	}
	e.CheckInvariants()
}

// TestBoxOffice_RefundNeedsNoProvider: a counter order's payment names the box office,
// which the refund path always finds (the money is handed back at the counter).
func TestBoxOffice_RefundNeedsNoProvider(t *testing.T) {
	e, _, _ := counterEnv(t)
	pr, ok := e.Payments.ProviderNamed(orders.BoxOfficeProvider)
	if !ok || pr.Refund(context.Background(), &store.Payment{}, orders.Refund{AmountMinor: 1, ID: "x"}) != nil {
		t.Fatal("the box office provider is not known")
	}
	if _, _, err := e.Payments.Start(context.Background(), e.User(1), "0", orders.BoxOfficeProvider); err == nil {
		t.Fatal("a buyer started a box office payment")
	}
}

// TestBoxOffice_QuoteIsTheSaleTotal: the counter's quote (nothing held) prices chosen
// seats and best available as the sale then charges them, voucher included.
func TestBoxOffice_QuoteIsTheSaleTotal(t *testing.T) {
	e, staffID, log := counterEnv(t)
	ctx := context.Background()
	v := e.MakeVoucher("QUOTE15", 10, 15)
	cases := []struct {
		name string
		sale orders.CounterSale
	}{
		{"chosen seats", orders.CounterSale{SeatIDs: e.SeatIDs("G1", "H1"), Voucher: v.Code}},
		{"best available", orders.CounterSale{Zone: "premium", Quantity: 3, Voucher: v.Code}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.sale
			s.StaffID, s.ShowID, s.Tender = staffID, e.Show.ID, orders.TenderCard
			before := e.RedisStateNorm() + e.DBState()
			q, err := e.Orders.QuoteCounter(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			if after := e.RedisStateNorm() + e.DBState(); after != before {
				t.Fatalf("a quote changed the stores:\n%s", testenv.StateDiff(before, after))
			}
			o, _, err := e.Orders.SellAtCounter(ctx, log, s)
			if err != nil {
				t.Fatal(err)
			}
			if q.TotalMinor != o.TotalMinor || q.DiscountMinor != o.DiscountMinor || q.DiscountMinor == 0 {
				t.Fatalf("quote %d (−%d), sale %d (−%d)", q.TotalMinor, q.DiscountMinor, o.TotalMinor, o.DiscountMinor)
			}
		})
	}
	e.CheckInvariants()
}
