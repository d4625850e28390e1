package orders_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// statementKind is a statement's first words, enough to tell the batch's statements
// apart ("INSERT INTO orders", "SELECT … FROM seats", "BEGIN").
func statementKind(q string) string {
	f := strings.Fields(q)
	switch {
	case len(f) == 0:
		return ""
	case len(f) >= 3 && (f[0] == "INSERT" || f[0] == "DELETE"):
		return strings.Join(f[:3], " ")
	case f[0] == "SELECT":
		for i, w := range f {
			if w == "FROM" && i+1 < len(f) {
				return "SELECT … FROM " + f[i+1]
			}
		}
	}
	return f[0]
}

// TestGroupCommit_StatementsPerBatch counts and prints the MySQL statements of one
// group-commit batch of N created orders (each of 2 seats), with and without
// Idempotency-Keys, and with a voucher (one guarded UPDATE per voucher and one INSERT of
// its uses, none without): the batch runs a fixed list of statements whatever N (so MariaDB's
// work per order falls as batches grow), and the list is the one below. A statement
// added to the batch, or one run per order, fails the test. The times printed are each
// statement's round trip as the client saw it, a rough profile of MariaDB's part.
func TestGroupCommit_StatementsPerBatch(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	db, log := countingDB(t)
	o := orders.NewOrders(db, e.Catalog, e.Seats, e.Limiter, e.Clock, orders.OrdersConfig{HoldFor: 15 * time.Minute,
		Expiry: e.Expiry, HallMaps: e.Shows, GroupCommit: orders.GroupCommit{MaxWait: 10 * time.Second}})
	o.SetLogger(e.Orders.Log())
	// one connection, whose profiling gives MariaDB's own time per statement
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	if _, err := db.Exec("SET profiling = 1, profiling_history_size = 100"); err != nil {
		t.Fatal(err)
	}
	// not counted: the seat map loaded, the scripts loaded, the id step read
	if _, err := o.Create(ctx, orders.CreateOrderRequest{UserID: e.User(0), ShowID: e.Show.ID, SeatIDs: e.SeatIDs("J10"), IdempotencyKey: "warm-up"}); err != nil {
		t.Fatal(err)
	}
	// the per-user counts rebuilt an hour ago (Redis's clock): the purchase limit's
	// MySQL count runs only around a rebuild (NeedsLimitCount), which a sale rarely meets
	redisNow, err := e.RDB.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	e.RDB.HSet(ctx, e.Seats.Keys(e.Show.ID)[2], "_", redisNow.Add(-time.Hour).UnixMilli())
	voucher := e.MakeVoucher("BATCH-100", 100, 15)
	batchOf := func(vouchered bool) []string {
		list := []string{"BEGIN", "SELECT … FROM seats"}
		if vouchered {
			list = append(list, "UPDATE")
		}
		list = append(list, "INSERT INTO orders", "INSERT INTO order_seats")
		if vouchered {
			list = append(list, "INSERT INTO voucher_uses")
		}
		return append(list, "INSERT INTO mail_outbox", "COMMIT")
	}
	row, lastProfile := 0, 0
	for c, tc := range []struct {
		name      string
		n         int
		keyed     bool
		vouchered bool
		addressed bool // the requests carry the buyers' address and language, as the API's do
	}{
		{"1 order with a key", 1, true, false, false},
		{"8 orders with keys", 8, true, false, false},
		{"8 orders with keys, addressed", 8, true, false, true},
		{"8 orders without keys", 8, false, false, false},
		{"16 orders with keys", 16, true, false, false},
		{"16 orders with keys, addressed", 16, true, false, true},
		{"8 orders with keys and one voucher", 8, true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			users := e.BulkUsers(tc.n)
			// every other buyer reads Chinese, so a language copied from the wrong place shows
			if _, err := e.DB.Exec("UPDATE users SET lang = 'zh-Hans' WHERE id IN (?"+strings.Repeat(",?", len(users)-1)+") AND id % 2 = 0", anys(users)...); err != nil {
				t.Fatal(err)
			}
			addr := map[int64]services.User{}
			if tc.addressed {
				var rows []services.User
				if err := e.DB.Select(&rows, "SELECT id, email, name, role, lang FROM users WHERE id IN (?"+strings.Repeat(",?", len(users)-1)+")", anys(users)...); err != nil {
					t.Fatal(err)
				}
				for _, u := range rows {
					addr[u.ID] = u
				}
			}
			var from int64
			heldTogether(t, o, tc.n, func() { from = log.Load() })
			var wg sync.WaitGroup
			errs := make([]error, tc.n)
			for i, u := range users {
				wg.Add(1)
				r := row + i/9
				key := ""
				if tc.keyed {
					key = fmt.Sprintf("k%d-%d", c, i)
				}
				seats := e.SeatIDs(fmt.Sprintf("%c%d", 'A'+r, 1+2*(i%9)), fmt.Sprintf("%c%d", 'A'+r, 2+2*(i%9)))
				go func() {
					defer wg.Done()
					req := orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, SeatIDs: seats, IdempotencyKey: key,
						Email: addr[u].Email, Lang: addr[u].Lang}
					if tc.vouchered {
						req.Voucher = voucher.Code
					}
					_, errs[i] = o.Create(ctx, req)
				}()
			}
			wg.Wait()
			row += (tc.n + 8) / 9
			for i, err := range errs {
				if err != nil {
					t.Fatalf("create %d: %v", i, err)
				}
			}
			sent := log.since(from)
			var profiles []struct {
				ID    int     `db:"Query_ID"`
				Secs  float64 `db:"Duration"`
				Query string  `db:"Query"`
			}
			if err := db.Select(&profiles, "SHOW PROFILES"); err != nil {
				t.Fatal(err)
			}
			var server []string
			for _, p := range profiles {
				if p.ID > lastProfile {
					lastProfile = p.ID
					if k := statementKind(p.Query); k != "SHOW" {
						server = append(server, fmt.Sprintf("%s %.0f", k, p.Secs*1e6))
					}
				}
			}
			var got []string
			var total time.Duration
			for _, s := range sent {
				got = append(got, statementKind(s.text))
				total += s.took
				t.Logf("%-32s %7.0f µs round trip", statementKind(s.text), float64(s.took.Microseconds()))
			}
			t.Logf("%d statements for %d orders in one batch, %.0f µs of round trips, %.0f µs per order",
				len(sent), tc.n, float64(total.Microseconds()), float64(total.Microseconds())/float64(tc.n))
			t.Logf("MariaDB's own µs per statement (SHOW PROFILES): %s", strings.Join(server, "; "))
			if want := batchOf(tc.vouchered); strings.Join(got, "; ") != strings.Join(want, "; ") {
				t.Errorf("the batch of %d orders ran\n  %s\nwant\n  %s", tc.n, strings.Join(got, "; "), strings.Join(want, "; "))
			}
			// addressed or not, each buyer's e-mail goes to their address in their language
			var wrong int
			if err := e.DB.Get(&wrong, `SELECT COUNT(*) FROM orders o JOIN users u ON u.id = o.user_id
				LEFT JOIN mail_outbox m ON m.order_no = o.order_no AND m.kind = 'order_created'
				WHERE o.user_id IN (?`+strings.Repeat(",?", len(users)-1)+`)
				AND NOT (m.to_addr <=> u.email AND m.lang <=> u.lang AND m.user_id <=> u.id)`, anys(users)...); err != nil {
				t.Fatal(err)
			}
			if wrong != 0 {
				t.Errorf("%d orders without their buyer's e-mail, address and language", wrong)
			}
			// a keyed order's row holds its key and request hash (the orders' INSERT wrote them)
			var keyed int
			if err := e.DB.Get(&keyed, `SELECT COUNT(*) FROM orders WHERE user_id IN (?`+strings.Repeat(",?", len(users)-1)+`)
				AND idem_key LIKE ? AND LENGTH(idem_hash) = 32`, append(anys(users), fmt.Sprintf("k%d-%%", c))...); err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: tc.n}[tc.keyed]; keyed != want {
				t.Errorf("%d orders hold their Idempotency-Key, want %d", keyed, want)
			}
		})
	}
	e.CheckInvariants()
}

// anys is ids as query arguments.
func anys(ids []int64) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}
