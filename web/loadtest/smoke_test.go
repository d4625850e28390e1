package loadtest

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"

	"seatflow/services/store"
	"seatflow/web"
)

// smokeRedisDB is the Redis DB of this package's tests (the smoke test's server and the
// audit test, one after the other; flushed first). No other package's tests use it
// (services/internal/testenv.RedisDBs lists every test package's number), since make
// test runs packages side by side.
const smokeRedisDB = 14

// TestSmoke_WholeRunAgainstInProcessServer runs every ceiling and scenario (the
// standard set and the waiting room, with a crowd of 100) against a server started in
// this process, on the database
// seatflow_loadtest_smoke<SEATFLOW_TEST_SUFFIX> (dropped and created) and Redis DB 14 of
// SEATFLOW_TEST_REDIS_ADDR, with 4 clients, a big hall of 10 x 40 seats and 100 buyers
// (the fewest the sold-out fixture's 200 seats need within its purchase limit). By
// default (and so in make test) every phase lasts 1 s, about 20 s with -race on two
// cores; SEATFLOW_LOADTEST_SMOKE=1 makes it 2 s (about 30 s):
//
//	SEATFLOW_LOADTEST_SMOKE=1 go test -count=1 -run Smoke -v ./web/loadtest/
//
// -short skips it. It checks that the run completes, every phase measured something,
// orders were created and seats sold, every scenario was audited and every audit is
// clean, and that no seat is in two live orders; it asserts no speed.
func TestSmoke_WholeRunAgainstInProcessServer(t *testing.T) {
	if testing.Short() {
		t.Skip("the load test's smoke run starts a server and drives it for several seconds")
	}
	duration := time.Second
	if os.Getenv("SEATFLOW_LOADTEST_SMOKE") == "1" {
		duration = 2 * time.Second
	}
	ctx := context.Background()
	cfg, err := web.LoadConfig()
	if err != nil {
		t.Fatal(err)
	}
	base := os.Getenv("SEATFLOW_TEST_MYSQL_DSN_BASE")
	if base == "" {
		base = "root@tcp(127.0.0.1:3306)/"
	}
	cfg.MySQLDSN = base + "seatflow_loadtest_smoke" + os.Getenv("SEATFLOW_TEST_SUFFIX")
	if addr := os.Getenv("SEATFLOW_TEST_REDIS_ADDR"); addr != "" {
		cfg.RedisAddr = addr
	}
	cfg.RedisDB, cfg.BcryptCost, cfg.DemoPayments, cfg.AllowEviction = smokeRedisDB, 4, true, true
	cfg.KeyPrefix = "sfsmoke" // its pub/sub channels (shared by every Redis DB) are its own
	cfg.ReconcileInterval = 24 * time.Hour
	const high = 100000000
	cfg.RateUserPerMinute, cfg.RateUserBurst, cfg.RateShowPerSecond, cfg.RateShowBurst = high, high, high, high
	cfg.RateLoginPerMinute, cfg.RateLoginBurst, cfg.RateLoginIPPerMinute, cfg.RateLoginIPBurst = high, high, high, high
	cfg.RateRegisterPerMinute, cfg.RateRegisterBurst = high, high
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.HTTPAddr = ln.Addr().String()
	ln.Close()

	dsn, err := mysql.ParseDSN(cfg.MySQLDSN)
	if err != nil {
		t.Fatal(err)
	}
	name := dsn.DBName
	dsn.DBName = ""
	admin, err := store.OpenDB(dsn.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec("DROP DATABASE IF EXISTS `" + name + "`"); err != nil {
		t.Fatal(err)
	}
	admin.Close()
	rdb := redis.NewClient(&redis.Options{Addr: cfg.RedisAddr, DB: smokeRedisDB})
	if err := rdb.FlushDB(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	rdb.Close()

	a, err := web.New(cfg, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	go a.Serve()
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		a.Shutdown(sctx)
	})
	url := "http://" + cfg.HTTPAddr
	for i := 0; ; i++ {
		resp, err := http.Get(url + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if i > 100 {
			t.Fatalf("server did not start: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	out := t.TempDir()
	var log strings.Builder
	rep, err := Run(ctx, Options{Base: url, PID: os.Getpid(), Clients: 4, Duration: duration, Scenarios: KnownScenarios, Out: out,
		MySQLDSN: cfg.MySQLDSN, RedisAddr: cfg.RedisAddr, RedisDB: smokeRedisDB, KeyPrefix: cfg.KeyPrefix, Currency: cfg.Currency,
		Rows: 10, Cols: 40, Buyers: 100, Visitors: 100, AdmitPerMinute: 1200, VisitorConns: 8, QueuePoll: 200 * time.Millisecond, Log: &log})
	t.Log(log.String())
	if err != nil {
		t.Fatal(err)
	}
	var tables strings.Builder
	rep.WriteTables(&tables)
	t.Log("\n" + tables.String())
	for _, c := range rep.Ceilings {
		if c.OK == 0 || c.Errors > 0 {
			t.Errorf("ceiling %s: %d ok, %d errors (%s)", c.Name, c.OK, c.Errors, c.FirstError)
		}
	}
	if len(rep.Scenarios) != len(KnownScenarios)+1 { // the waiting room has two rows
		t.Fatalf("%d scenarios ran, want %d", len(rep.Scenarios), len(KnownScenarios)+1)
	}
	for _, s := range rep.Scenarios {
		if s.OK == 0 {
			t.Errorf("scenario %s measured nothing (%v)", s.Name, s.Codes)
		}
		if (s.Name == ScenarioFlash || s.Name == ScenarioFlashMixed) && s.SeatsSold == 0 {
			t.Errorf("%s: the flash sale sold no seat (%d orders, %v)", s.Name, s.OK, s.Codes)
		}
		if s.Name == ScenarioWaitRoom {
			checkRoom(t, s)
		}
		if len(s.Audit()) == 0 && s.Name != ScenarioWaitRoomQueue { // the queue reads are the waitroom's second row
			t.Errorf("scenario %s was not audited", s.Name)
		}
		for _, l := range s.Audit() {
			if l.Failed() {
				t.Errorf("scenario %s: audit %q = %d", s.Name, l.Check, l.Count)
			}
		}
	}
	if _, err := os.Stat(out + "/report.md"); err != nil {
		t.Error(err)
	}

	// the outcome in MySQL: orders were created, and no seat of a show is in two orders
	// that are pending or paid
	db, err := store.OpenDB(cfg.MySQLDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var orders, twice int64
	if err := db.GetContext(ctx, &orders, `SELECT COUNT(*) FROM orders WHERE status IN ('pending','paid')`); err != nil {
		t.Fatal(err)
	}
	if err := db.GetContext(ctx, &twice, `SELECT COUNT(*) FROM (SELECT os.show_id, os.seat_id FROM order_seats os
		JOIN orders o ON o.id = os.order_id WHERE o.status IN ('pending','paid')
		GROUP BY os.show_id, os.seat_id HAVING COUNT(*) > 1) x`); err != nil {
		t.Fatal(err)
	}
	if orders == 0 {
		t.Error("no order is pending or paid after the run")
	}
	if twice != 0 {
		t.Errorf("%d seats are in more than one pending or paid order", twice)
	}
	t.Logf("%d pending or paid orders, no seat sold twice", orders)
}

// checkRoom checks the waitroom scenario of the smoke run: a tiny crowd (100 visitors,
// 20 admitted a second from the opening, which follows the arrivals) joined, someone
// was admitted and ordered, every order sent without a valid token was refused
// NOT_ADMITTED, MySQL holds no order of a buyer who was not admitted, and the HTTP no-op
// was sent at the crowd's pace; it asserts no speed.
func checkRoom(t *testing.T, s *Result) {
	t.Helper()
	f := s.Room
	if f == nil || f.Reads == nil {
		t.Fatal("the waitroom scenario has no room figures")
	}
	// every join sent was answered; how many visitors had their turn before the run's
	// end is a matter of the machine's speed, so it is logged, not checked
	if f.Joined == 0 || f.JoinErrors > 0 || f.AdmittedSeen == 0 || f.Admitted < f.AdmittedSeen {
		t.Errorf("waitroom: %d of %d joined (%d join errors), the room admitted %d, %d read their admission",
			f.Joined, f.Visitors, f.JoinErrors, f.Admitted, f.AdmittedSeen)
	}
	if t.Failed() {
		t.Log("waitroom notes:\n" + strings.Join(s.Notes, "\n"))
	}
	if f.Joined < int64(f.Visitors) {
		t.Logf("waitroom: %d of %d visitors had no turn to join before the run ended", int64(f.Visitors)-f.Joined, f.Visitors)
	}
	if f.Refusals == 0 || f.RefusedNotAdmitted != f.Refusals {
		t.Errorf("waitroom: %d of %d orders without a valid token refused NOT_ADMITTED (others: %v)", f.RefusedNotAdmitted, f.Refusals, f.RefusalCodes)
	}
	if f.OrdersInMySQL != s.OK || f.OrdersUnadmitted != 0 {
		t.Errorf("waitroom: %d orders in MySQL, %d seen created, %d of buyers not admitted", f.OrdersInMySQL, s.OK, f.OrdersUnadmitted)
	}
	if s.Errors > 0 || f.Reads.Errors > 0 {
		t.Errorf("waitroom: %d order errors (%s), %d read errors (%s)", s.Errors, s.FirstError, f.Reads.Errors, f.Reads.FirstError)
	}
	// the no-op at the crowd's pace: 8 connections, 100 visitors every 200 ms
	if p := f.PacedNoop; p == nil || p.OK == 0 || p.Errors > 0 || p.Clients != 8 {
		t.Errorf("waitroom: the HTTP no-op at the crowd's pace was not measured as the crowd reads: %+v", p)
	} else if _, ok := p.CPUPerOp(ProcServer); !ok {
		t.Error("waitroom: the paced no-op has no server CPU per answer")
	}
}
