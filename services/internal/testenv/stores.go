package testenv

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
)

// Each test package has stores of its own, so that go test runs the packages side by
// side: the MariaDB database seatflow_test_<name><SEATFLOW_TEST_SUFFIX> (name: the
// package's path under services/ with "/" as "_") and the Redis DB that RedisDBs gives
// it. A package is known by the directory go test runs it in (its source folder).

// RedisDBs maps a test package (its folder, from the module root) to the Redis DB
// number it owns on the test Redis (SEATFLOW_TEST_REDIS_ADDR, else 127.0.0.1:6379). The
// numbers are distinct (TestRedisDBsAreDistinct). Numbers from 16 up need a server
// started with more databases than Redis's default 16 (.ci/services starts one with
// RedisDatabases); on a server with fewer, a package with such a number gets a private
// redis-server per test instead (newTestRedis). The entries outside services/ are the
// numbers their tests set in their own files (a test reads them there); 0 is make
// run's (SEATFLOW_REDIS_DB's default) and 9 the load test command's (cmd_loadtest.go).
// A services package that builds a TestEnv and is not listed fails with a message
// naming this table.
var RedisDBs = map[string]int{
	"(make run)":           0,
	"services/accounts":    1,
	"services/audit":       2,
	"services/catalog":     3,
	"services/demo":        4,
	"services/invariants":  5,
	"services/mail":        6,
	"services/orders":      7,
	"services/reconcile":   8,
	"(make bench)":         9,
	"web (browser)":        10,
	"services/seats":       11,
	"web":                  12,
	"jobs":                 13,
	"web/loadtest":         14,
	"services/staff":       15,
	"services/store":       16,
	"services/waitingroom": 17,
	"services/waitlist":    18,
	"services/vouchers":    23,
	"services/stripepay":   27,
	"services/reports":     29,
}

// RedisDatabases is how many databases the test Redis needs for every number in RedisDBs
// (redis-server --databases).
const RedisDatabases = 32

// Package is the test package this process runs, as its folder from the module root
// ("services/orders"); "" when the working directory is outside the module.
var Package = testPackage()

// testPackage finds the module root (the folder with go.mod) above the working
// directory, which go test sets to the package's folder.
func testPackage() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil {
				return ""
			}
			return filepath.ToSlash(rel)
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// TestDBName is the MariaDB database of this test package:
// seatflow_test_<path under services/ with "/" as "_"><SEATFLOW_TEST_SUFFIX>, e.g.
// seatflow_test_orders; the suffix lets two checkouts run their tests side by side.
var TestDBName = "seatflow_test_" + dbPart(Package) + os.Getenv("SEATFLOW_TEST_SUFFIX")

func dbPart(pkg string) string {
	p := strings.TrimPrefix(pkg, "services/")
	if p == "" || p == "." {
		p = "services"
	}
	return strings.NewReplacer("/", "_", "-", "_", ".", "_").Replace(p)
}

// TestRedisDB is the Redis DB number of this test package (RedisDBs), -1 when the
// package has none.
var TestRedisDB = redisDBOf(Package)

func redisDBOf(pkg string) int {
	if n, ok := RedisDBs[pkg]; ok {
		return n
	}
	return -1
}

// testRedisAddr is SEATFLOW_TEST_REDIS_ADDR, else 127.0.0.1:6379.
func testRedisAddr() string {
	if addr := os.Getenv("SEATFLOW_TEST_REDIS_ADDR"); addr != "" {
		return addr
	}
	return "127.0.0.1:6379"
}

var (
	databasesOnce sync.Once
	databasesN    int // databases of the test Redis; 0 when it did not say
)

// serverDatabases is how many databases the test Redis has (CONFIG GET databases), 16
// when CONFIG is not available.
func serverDatabases(addr string) int {
	databasesOnce.Do(func() {
		c := redis.NewClient(&redis.Options{Addr: addr})
		defer c.Close()
		databasesN = 16
		if v, err := c.ConfigGet(context.Background(), "databases").Result(); err == nil {
			if n, err := strconv.Atoi(v["databases"]); err == nil {
				databasesN = n
			}
		}
	})
	return databasesN
}

// newTestRedis returns a client of this package's Redis DB (TestRedisDB) on the test
// Redis, flushed; when the server has too few databases for that number, a client of
// the same DB on a private redis-server started for the test (killed when it ends).
func newTestRedis(t testing.TB) *redis.Client {
	t.Helper()
	LockStores(t)
	if TestRedisDB < 0 {
		t.Fatalf("test package %q has no Redis DB: add it to testenv.RedisDBs with a number no other package has", Package)
	}
	addr := testRedisAddr()
	if TestRedisDB >= serverDatabases(addr) {
		addr = startPrivateRedis(t).Addr()
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr, DB: TestRedisDB, PoolSize: 128})
	if err := rdb.FlushDB(context.Background()).Err(); err != nil {
		t.Fatalf("redis %s DB %d: %v", addr, TestRedisDB, err)
	}
	t.Cleanup(func() { rdb.Close() })
	return rdb
}
