package testenv

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"testing"
)

// TestRedisDBsAreDistinct: no two test packages share a Redis DB number, every number
// fits the databases the test Redis is started with, every package under services/
// whose tests build a TestEnv or a test database is in the table, and the numbers of
// the packages outside services/ are the ones their test files set.
func TestRedisDBsAreDistinct(t *testing.T) {
	owner := map[int]string{}
	for pkg, n := range RedisDBs {
		if n < 0 || n >= RedisDatabases {
			t.Errorf("%s: Redis DB %d is outside 0..%d", pkg, n, RedisDatabases-1)
		}
		if other, ok := owner[n]; ok {
			t.Errorf("Redis DB %d is both %s's and %s's", n, pkg, other)
		}
		owner[n] = pkg
	}
	root := filepath.Join("..", "..", "..")
	uses := regexp.MustCompile(`testenv\.(New[A-Za-z]*Env|NewTestDB|NewTestEnvOnRedis)\(`)
	tests, err := filepath.Glob(filepath.Join(root, "services", "*", "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join(root, "services", "*", "*", "*_test.go"))
	var missing []string
	seen := map[string]bool{}
	for _, f := range append(tests, more...) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, filepath.Dir(f))
		pkg := filepath.ToSlash(rel)
		if _, ok := RedisDBs[pkg]; !ok && !seen[pkg] && uses.Match(src) {
			seen[pkg] = true
			missing = append(missing, pkg)
		}
	}
	sort.Strings(missing)
	for _, pkg := range missing {
		t.Errorf("%s builds test stores but has no Redis DB in RedisDBs", pkg)
	}
	for _, c := range []struct{ pkg, file, pattern string }{
		{"web", "web/testapp_test.go", `const testRedisDB = (\d+)`},
		{"web (browser)", "web/testapp_test.go", `browserRedisDB\s*= (\d+)`},
		{"jobs", "jobs/expiry_test.go", `const jobsRedisDB = (\d+)`},
		{"web/loadtest", "web/loadtest/smoke_test.go", `const smokeRedisDB = (\d+)`},
		{"(make bench)", "cmd_loadtest.go", `const loadtestRedisDB = (\d+)`},
		{"(make run)", "web/config.go", `env:"REDIS_DB" envDefault:"(\d+)"`},
	} {
		src, err := os.ReadFile(filepath.Join(root, c.file))
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(c.pattern).FindSubmatch(src)
		if m == nil {
			t.Errorf("%s: no %q: update this test with the file", c.file, c.pattern)
			continue
		}
		if n, _ := strconv.Atoi(string(m[1])); n != RedisDBs[c.pkg] {
			t.Errorf("%s sets Redis DB %d for %s, RedisDBs says %d", c.file, n, c.pkg, RedisDBs[c.pkg])
		}
	}
}

// TestPackageAndDatabaseName: this process knows its package from its folder, and its
// database is named after it with SEATFLOW_TEST_SUFFIX appended.
func TestPackageAndDatabaseName(t *testing.T) {
	if Package != "services/internal/testenv" {
		t.Errorf("Package = %q", Package)
	}
	if want := "seatflow_test_internal_testenv" + os.Getenv("SEATFLOW_TEST_SUFFIX"); TestDBName != want {
		t.Errorf("TestDBName = %q, want %q", TestDBName, want)
	}
	if got := dbPart("services/orders"); got != "orders" {
		t.Errorf("dbPart(services/orders) = %q", got)
	}
}
