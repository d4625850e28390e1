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

// smokeRedisDB is the Redis DB of the smoke test's server (flushed first).
const smokeRedisDB = 11

// TestSmoke_WholeRunAgainstInProcessServer runs every ceiling and scenario for 2 s with
// 4 clients against a server started in this process, on the database
// seatflow_loadtest_smoke<SEATFLOW_TEST_SUFFIX> (dropped and created) and Redis DB 11 of
// SEATFLOW_TEST_REDIS_ADDR. It takes about 25 s, so it is skipped unless asked for:
//
//	SEATFLOW_LOADTEST_SMOKE=1 go test -count=1 -run Smoke -v ./web/loadtest/
//
// It checks that the run completes, every phase measured something and every audit is
// clean; it asserts no speed.
func TestSmoke_WholeRunAgainstInProcessServer(t *testing.T) {
	if os.Getenv("SEATFLOW_LOADTEST_SMOKE") != "1" {
		t.Skip("set SEATFLOW_LOADTEST_SMOKE=1 to run the load test for 2 s per phase")
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
	rep, err := Run(ctx, Options{Base: url, PID: os.Getpid(), Clients: 4, Duration: 2 * time.Second, Scenarios: AllScenarios, Out: out,
		MySQLDSN: cfg.MySQLDSN, RedisAddr: cfg.RedisAddr, RedisDB: smokeRedisDB, KeyPrefix: cfg.KeyPrefix, Currency: cfg.Currency,
		Rows: 10, Cols: 40, Buyers: 100, Log: &log})
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
	if len(rep.Scenarios) != len(AllScenarios) {
		t.Fatalf("%d scenarios ran, want %d", len(rep.Scenarios), len(AllScenarios))
	}
	for _, s := range rep.Scenarios {
		if s.OK == 0 {
			t.Errorf("scenario %s measured nothing (%v)", s.Name, s.Codes)
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
}
