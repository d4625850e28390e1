package orders_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// countingDB opens the test database through a connector that counts the statements
// (queries, execs, prepares, transaction begins, commits and rollbacks) every connection
// sends to MySQL, and keeps each one's text and time (statementLog).
func countingDB(t *testing.T) (*sqlx.DB, *statementLog) {
	t.Helper()
	base := os.Getenv("SEATFLOW_TEST_MYSQL_DSN_BASE")
	if base == "" {
		base = "root@tcp(127.0.0.1:3306)/"
	}
	cfg, err := mysql.ParseDSN(base + testenv.TestDBName)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ParseTime, cfg.Loc, cfg.InterpolateParams = true, time.UTC, true
	cfg.Params = map[string]string{"time_zone": "'+00:00'"}
	inner, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	log := &statementLog{}
	db := sqlx.NewDb(sql.OpenDB(countingConnector{inner, log}), "mysql")
	t.Cleanup(func() { db.Close() })
	return db, log
}

// statementLog is what a countingDB sent: the number of statements, and each one's
// first words and how long MySQL took to answer it (as the client saw it).
type statementLog struct {
	n    atomic.Int64
	mu   sync.Mutex
	list []loggedStatement
}

// loggedStatement is one statement of a statementLog.
type loggedStatement struct {
	text string
	took time.Duration
}

// Load returns how many statements were sent so far.
func (l *statementLog) Load() int64 { return l.n.Load() }

// since returns the statements sent after the first `from` ones.
func (l *statementLog) since(from int64) []loggedStatement {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]loggedStatement(nil), l.list[min(int(from), len(l.list)):]...)
}

// add records one statement of text that took d.
func (l *statementLog) add(text string, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n.Add(1)
	l.list = append(l.list, loggedStatement{text: text, took: d})
}

// timed runs f and records it as text.
func (l *statementLog) timed(text string, f func() error) error {
	start := time.Now()
	err := f()
	l.add(text, time.Since(start))
	return err
}

type countingConnector struct {
	inner driver.Connector
	log   *statementLog
}

func (c countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return countingConn{conn, c.log}, nil
}

func (c countingConnector) Driver() driver.Driver { return c.inner.Driver() }

// countingConn counts each statement and passes it to the driver's connection, which
// implements the context interfaces below.
type countingConn struct {
	driver.Conn
	log *statementLog
}

func (c countingConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (res driver.Result, err error) {
	err = c.log.timed(q, func() error {
		res, err = c.Conn.(driver.ExecerContext).ExecContext(ctx, q, args)
		return err
	})
	return res, err
}

func (c countingConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (rows driver.Rows, err error) {
	err = c.log.timed(q, func() error {
		rows, err = c.Conn.(driver.QueryerContext).QueryContext(ctx, q, args)
		return err
	})
	return rows, err
}

func (c countingConn) PrepareContext(ctx context.Context, q string) (st driver.Stmt, err error) {
	err = c.log.timed("PREPARE "+q, func() error {
		st, err = c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, q)
		return err
	})
	return st, err
}

func (c countingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (tx driver.Tx, err error) {
	err = c.log.timed("BEGIN", func() error {
		tx, err = c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
		return err
	})
	if err != nil {
		return nil, err
	}
	return countingTx{tx, c.log}, nil
}

func (c countingConn) ResetSession(ctx context.Context) error {
	return c.Conn.(driver.SessionResetter).ResetSession(ctx)
}

// countingTx counts the transaction's end.
type countingTx struct {
	driver.Tx
	log *statementLog
}

func (t countingTx) Commit() error   { return t.log.timed("COMMIT", t.Tx.Commit) }
func (t countingTx) Rollback() error { return t.log.timed("ROLLBACK", t.Tx.Rollback) }

// TestCreate_OneRedisCallPerOrder counts the Redis calls (a hook on the client: every
// Process and ProcessPipeline) and the MySQL statements of one create: a created order
// makes exactly one Redis call before its commit (lua/order.lua: the key's marker, the
// precheck, both rate limits, the key's lock and the hold), the batch's own calls come
// after; each refusal (SEAT_TAKEN, SOLD_OUT, LIMIT_EXCEEDED from the hold and over the
// purchase limit, RATE_LIMITED), with or without a key, makes exactly one Redis call and
// no MySQL statement. An order with a voucher, ticket types or both (chosen seats and
// best available) makes the calls of one without.
func TestCreate_OneRedisCallPerOrder(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.QuietLogs()
	// premium sold out but one seat (best available asks for 2 below)
	for i, qty := 0, 4; ; i++ {
		_, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(100 + i), ShowID: e.Show.ID, Zone: "premium", Quantity: qty})
		if services.ErrorCode(err) == services.CodeNoAdjacentSeats && qty > 1 {
			qty = 1
			continue
		}
		if services.ErrorCode(err) == services.CodeSoldOut || i > 80 {
			t.Fatalf("selling out premium, order %d: %v", i, err)
		}
		if left, _ := e.RDB.HGet(ctx, e.Seats.Keys(e.Show.ID)[1], "premium").Int(); left == 1 {
			break
		}
		if err != nil {
			t.Fatalf("selling out premium, order %d: %v", i, err)
		}
	}
	db, statements := countingDB(t)
	lim := testenv.Unlimited
	lim.UserPerMinute, lim.UserBurst = 1, 1
	rt := &roundTrips{by: map[string]int{}}
	e.RDB.AddHook(rt)
	var atHold int
	newOrders := func() *orders.Orders {
		o := orders.NewOrders(db, e.Catalog, e.Seats, orders.NewRateLimiter(e.RDB, lim, "sf"), e.Clock,
			orders.OrdersConfig{HoldFor: 15 * time.Minute, Expiry: e.Expiry, HallMaps: e.Shows})
		o.SetLogger(e.Orders.Log())
		o.SetFailHook(func(stage string) error {
			if stage == "held" {
				rt.mu.Lock()
				atHold = rt.total
				rt.mu.Unlock()
			}
			return nil
		})
		return o
	}
	// o makes every order below but best-available's, which ob makes: ob's
	// best-available snapshot of the show (warmed below) would make o's SOLD_OUT refusals
	// read the map
	o, ob := newOrders(), newOrders()
	count := func(f func()) (redisCalls int, sqlStatements int64) {
		rt.mu.Lock()
		rt.total, rt.by, atHold = 0, map[string]int{}, -1
		rt.mu.Unlock()
		before := statements.Load()
		f()
		rt.mu.Lock()
		defer rt.mu.Unlock()
		return rt.total, statements.Load() - before
	}

	// not counted: the scripts loaded, the show's marker epoch set, the holder's one
	// order of the minute spent; two buyers at the purchase limit (4)
	holder, full, fullKeyed := e.User(1), e.User(2), e.User(3)
	if _, err := o.Create(ctx, orders.CreateOrderRequest{UserID: holder, ShowID: e.Show.ID, SeatIDs: e.SeatIDs("A1", "A2"), IdempotencyKey: "warm"}); err != nil {
		t.Fatal(err)
	}
	for i, u := range []int64{full, fullKeyed} {
		row := string(rune('C' + i))
		if _, err := e.Create(u, e.SeatIDs(row+"1", row+"2", row+"3", row+"4")...); err != nil {
			t.Fatal(err)
		}
	}

	// a ticket type sold in every zone: an order with types costs the Redis calls of one without
	if err := store.InsertTicketType(ctx, e.DB, services.TicketType{Code: "child", NameEn: "Child", NameZh: "儿童", CreatedAt: e.Clock.Now()}); err != nil {
		t.Fatal(err)
	}
	for _, z := range e.Show.Zones {
		if err := store.SetShowTicketPrice(ctx, e.DB, e.Show.ID, "child", z.ID, 1000); err != nil {
			t.Fatal(err)
		}
	}
	e.Catalog.ForgetShow(e.Show.ID)
	e.Catalog.ForgetTicketTypes() // the orders above read the list of types
	// a voucher: an order with it costs the Redis calls of one without (its cap and count
	// ride in the same script call, the voucher itself comes from the process's cache)
	e.MakeVoucher("CALLS-10", 10, 10)
	t.Run("created order", func(t *testing.T) {
		plain, bestPlain := -1, -1
		for i, key := range []string{"", "new-key", "typed", "voucher", "typed+voucher", "best available", "best available typed+voucher"} {
			req := orders.CreateOrderRequest{UserID: e.User(10 + i), ShowID: e.Show.ID, SeatIDs: e.SeatIDs(fmt.Sprintf("E%d", i+1)), IdempotencyKey: key}
			if key == "typed" {
				req.IdempotencyKey = "new-key-2"
				req.Tickets = map[int64]string{req.SeatIDs[0]: "child"}
			}
			if key == "voucher" {
				req.IdempotencyKey, req.Voucher = "new-key-3", "calls-10"
			}
			if key == "typed+voucher" { // two seats: one child, one adult, both discounted
				req.IdempotencyKey, req.Voucher = "new-key-4", "calls-10"
				req.SeatIDs = e.SeatIDs("E11", "E12")
				req.Tickets = map[int64]string{req.SeatIDs[0]: "child"}
			}
			if key == "best available" { // not counted: the snapshot's first read
				// ob's snapshot follows the show (as the server's, whose subscription is
				// confirmed): it is read again after 10 s, not after 250 ms, which a loaded
				// machine can spend between two creates (their batch commits)
				ob.SeatsChanged(seats.SeatChange{ShowID: e.Show.ID, Reload: true})
				if _, err := ob.Create(ctx, orders.CreateOrderRequest{UserID: e.User(9), ShowID: e.Show.ID, Zone: "standard", Quantity: 1}); err != nil {
					t.Fatal(err)
				}
			}
			if strings.HasPrefix(key, "best available") {
				req.SeatIDs, req.Zone, req.Quantity, req.IdempotencyKey = nil, "standard", 2, "new-key-"+strconv.Itoa(i)
			}
			if key == "best available typed+voucher" {
				req.TicketCounts, req.Voucher = map[string]int{"child": 1, services.TicketAdult: 1}, "calls-10"
			}
			var err error
			var order *services.Order
			creator := o
			if req.Zone != "" {
				creator = ob
			}
			calls, sqls := count(func() { order, err = creator.Create(ctx, req) })
			if err != nil {
				t.Fatal(err)
			}
			if atHold != 1 {
				t.Errorf("key %q: %d Redis calls before the commit, want 1", key, atHold)
			}
			switch {
			case key == "new-key":
				plain = calls
			case key == "typed" && (calls != plain || order.Seats[0].TicketType != "child" || order.Seats[0].PriceMinor != 1000):
				t.Errorf("an order with a child seat: %d Redis calls (one without: %d), seats %+v", calls, plain, order.Seats)
			case key == "voucher" && (calls != plain || order.Voucher != "CALLS-10" || order.DiscountMinor != 450 || order.TotalMinor != 4050):
				t.Errorf("an order with a voucher: %d Redis calls (one without: %d), order %+v", calls, plain, order)
			case key == "typed+voucher" && (calls != plain || order.DiscountMinor != 100+450 || order.TotalMinor != 900+4050):
				t.Errorf("an order with a child seat and a voucher: %d Redis calls (one without: %d), order %+v", calls, plain, order)
			case key == "best available":
				bestPlain = calls
			case key == "best available typed+voucher" && (calls != bestPlain || order.Voucher != "CALLS-10" || order.DiscountMinor == 0):
				t.Errorf("best available with a child seat and a voucher: %d Redis calls (without: %d), order %+v", calls, bestPlain, order)
			}
			t.Logf("key %q: %d Redis calls before the commit, %d in all (the batch's: %d; %v); %d MySQL statements", key, atHold, calls, calls-atHold, rt.by, sqls)
		}
	})

	for _, tc := range []struct {
		name string
		req  orders.CreateOrderRequest
		code string
	}{
		{"SEAT_TAKEN", orders.CreateOrderRequest{UserID: e.User(20), ShowID: e.Show.ID, SeatIDs: e.SeatIDs("A2", "A3")}, services.CodeSeatTaken},
		{"SEAT_TAKEN with a key", orders.CreateOrderRequest{UserID: e.User(20), ShowID: e.Show.ID, SeatIDs: e.SeatIDs("A2", "A3"), IdempotencyKey: "t"}, services.CodeSeatTaken},
		{"SOLD_OUT", orders.CreateOrderRequest{UserID: e.User(21), ShowID: e.Show.ID, Zone: "premium", Quantity: 2}, services.CodeSoldOut},
		{"SOLD_OUT with a key", orders.CreateOrderRequest{UserID: e.User(21), ShowID: e.Show.ID, Zone: "premium", Quantity: 2, IdempotencyKey: "s"}, services.CodeSoldOut},
		{"LIMIT_EXCEEDED by the hold", orders.CreateOrderRequest{UserID: full, ShowID: e.Show.ID, SeatIDs: e.SeatIDs("E5")}, services.CodeLimitExceeded},
		{"LIMIT_EXCEEDED with a key", orders.CreateOrderRequest{UserID: fullKeyed, ShowID: e.Show.ID, SeatIDs: e.SeatIDs("E5"), IdempotencyKey: "l"}, services.CodeLimitExceeded},
		{"LIMIT_EXCEEDED over the purchase limit", orders.CreateOrderRequest{UserID: e.User(22), ShowID: e.Show.ID, SeatIDs: e.SeatIDs("F1", "F2", "F3", "F4", "F5")}, services.CodeLimitExceeded},
		{"RATE_LIMITED", orders.CreateOrderRequest{UserID: holder, ShowID: e.Show.ID, SeatIDs: e.SeatIDs("G1")}, services.CodeRateLimited},
		{"RATE_LIMITED with a key", orders.CreateOrderRequest{UserID: holder, ShowID: e.Show.ID, SeatIDs: e.SeatIDs("G1"), IdempotencyKey: "r"}, services.CodeRateLimited},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := e.RedisStateNorm()
			var err error
			calls, sqls := count(func() { _, err = o.Create(ctx, tc.req) })
			if services.ErrorCode(err) != tc.code {
				t.Fatalf("got %v, want %s", err, tc.code)
			}
			if calls != 1 || sqls != 0 {
				t.Errorf("%d Redis calls (%v) and %d MySQL statements, want 1 and 0", calls, rt.by, sqls)
			}
			if after := e.RedisStateNorm(); after != before {
				t.Errorf("a refusal wrote something:\n%s", testenv.StateDiff(before, after))
			}
		})
	}
	e.CheckInvariants()
}

// TestIdempotencyKey_AnotherShow: a key's lock and marker live in the show's hash slot,
// so Redis does not know a key its buyer used for another show; MySQL's unique key on
// orders (uq_orders_idem) does: the create answers IDEMPOTENCY_MISMATCH, writes nothing, and
// the key still replays its first order on the first show.
func TestIdempotencyKey_AnotherShow(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	other := e.OnSaleShow(e.Show.HallID, 1)
	u := e.User(1)
	req := orders.CreateOrderRequest{UserID: u, ShowID: e.Show.ID, SeatIDs: e.SeatIDs("B3"), IdempotencyKey: "once"}
	first, err := e.Orders.Create(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		req  orders.CreateOrderRequest
	}{
		{"chosen seats", orders.CreateOrderRequest{UserID: u, ShowID: other.ID, SeatIDs: e.SeatIDs("B3"), IdempotencyKey: "once"}},
		{"best available", orders.CreateOrderRequest{UserID: u, ShowID: other.ID, Zone: "standard", Quantity: 2, IdempotencyKey: "once"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if o, err := e.Orders.Create(ctx, tc.req); services.ErrorCode(err) != services.CodeIdempotencyMismatch {
				t.Fatalf("the key on another show: %+v %v, want IDEMPOTENCY_MISMATCH", o, err)
			}
			if n := e.CountOrders(); n != 1 {
				t.Errorf("%d orders, want the first only", n)
			}
			if n := e.RDB.Exists(ctx, e.Orders.IdempotencyKeyNames(other.ID, u, "once")[0]).Val(); n != 0 {
				t.Error("the key's lock on the other show is still taken")
			}
		})
	}
	again, err := e.Orders.Create(ctx, req)
	if err != nil || again.OrderNo != first.OrderNo {
		t.Fatalf("the replay on the first show: %+v %v, want order %s", again, err, first.OrderNo)
	}
	e.CheckInvariants()
	e.CheckInvariantsOf(other)
}
