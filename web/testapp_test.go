package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/demo"
	"seatflow/services/store"
)

// offsetClock is the wall clock moved by an offset, or held still at one instant.
type offsetClock struct {
	off    atomic.Int64
	frozen atomic.Int64 // Unix ns the clock is held at; 0 when it runs
}

func (c *offsetClock) Now() time.Time {
	if f := c.frozen.Load(); f != 0 {
		return time.Unix(0, f).UTC()
	}
	return time.Now().UTC().Add(time.Duration(c.off.Load()))
}

// Set moves the clock d from the wall clock (and lets it run).
func (c *offsetClock) Set(d time.Duration) { c.frozen.Store(0); c.off.Store(int64(d)) }

// Freeze holds the clock at its current reading until Thaw or Set: whatever the app
// measures by it (a waiting room's pace) stands still however slow a busy run is.
func (c *offsetClock) Freeze() { c.frozen.Store(c.Now().UnixNano()) }

// Thaw lets a frozen clock run again from the wall clock and the offset.
func (c *offsetClock) Thaw() { c.frozen.Store(0) }

// testApp is a whole seatflow process (HTTP, worker) over the test database
// seatflow_test_web (plus SEATFLOW_TEST_SUFFIX) and Redis DB 12 (on
// SEATFLOW_TEST_REDIS_ADDR when set), seeded with the demo cinema, serving on a free
// loopback port.
type testApp struct {
	*App
	t        *testing.T
	base     string
	clock    *offsetClock
	accounts map[string]demo.DemoAccount
}

const testRedisDB = 12

// The browser tests run in two processes of their own beside the others (make test;
// they mostly wait on chromium, so two halves finish sooner than one), each with its own
// database (suffix "_browser" or "_browser2") and key prefix, since pub/sub channels are
// shared by every DB of a server. The first half (SEATFLOW_TEST_WEB_PART=browser) has
// Redis DB 10 of the test Redis. Every DB below 16 belongs to a test package, make run or
// make bench (services/internal/testenv.RedisDBs), and the machine's Redis may have only
// 16, so the second half (browser2) runs on a private redis-server that make test starts
// for it (.ci/test-redis) and names in SEATFLOW_TEST_REDIS_ADDR; there it uses DB 10 too.
// Without that address it refuses to run rather than share the first half's DB.
const (
	browserPart    = "browser"
	browserRedisDB = 10
	browser2Part   = "browser2"
)

func testConfig() Config {
	cfg, err := LoadConfig()
	if err != nil {
		panic(err)
	}
	base := os.Getenv("SEATFLOW_TEST_MYSQL_DSN_BASE")
	if base == "" {
		base = "root@tcp(127.0.0.1:3306)/"
	}
	part := os.Getenv("SEATFLOW_TEST_WEB_PART")
	suffix := os.Getenv("SEATFLOW_TEST_SUFFIX")
	if part == browserPart || part == browser2Part {
		suffix += "_" + part
	}
	cfg.MySQLDSN = base + "seatflow_test_web" + suffix
	addr := os.Getenv("SEATFLOW_TEST_REDIS_ADDR")
	if addr != "" {
		cfg.RedisAddr = addr
	}
	switch part {
	case browserPart:
		cfg.RedisDB = browserRedisDB
	case browser2Part:
		if addr == "" {
			panic("SEATFLOW_TEST_WEB_PART=browser2 runs on a Redis of its own: set SEATFLOW_TEST_REDIS_ADDR to it (make test starts one with .ci/test-redis)")
		}
		cfg.RedisDB = browserRedisDB
	default:
		cfg.RedisDB = testRedisDB
	}
	// pub/sub channels are shared by every DB of a Redis server: a prefix of their own
	// keeps the live seat maps and waiting rooms of these tests from hearing the seat
	// changes of the services tests and the load test's smoke run running beside them
	cfg.KeyPrefix = "sfweb" + part
	cfg.BcryptCost = 4
	// each test's app shuts down at its end, waiting out the worker's idle pause
	cfg.TaskCheckInterval = 100 * time.Millisecond
	// every test of a run registers and signs in from 127.0.0.1, many of them as the same
	// demo accounts, against one Redis: the sign-up limit (30 a minute per address) and
	// the sign-in limit (10 a minute per account) would refuse a busy run's later tests.
	// The tests of those limits set their own (api_auth_test.go).
	cfg.RateRegisterPerMinute, cfg.RateRegisterBurst = 100000, 100000
	cfg.RateLoginPerMinute, cfg.RateLoginBurst = 100000, 100000
	cfg.RateLoginIPPerMinute, cfg.RateLoginIPBurst = 100000, 100000
	cfg.PaymentWebhookSecret = "web-test-secret"
	cfg.AdmissionSecret = "web-test-admission-secret" // shared by every instance of a test
	cfg.DemoPayments = true
	return cfg
}

// localDate is the cinema's date (its time zone, YYYY-MM-DD) days after today by the
// app's clock: the day a test books or opens a sale in agrees with the app's, whatever
// the machine's zone and wherever the wall clock is.
func (a *testApp) localDate(days int) string {
	return a.clock.Now().In(a.Cfg.Location()).AddDate(0, 0, days).Format(time.DateOnly)
}

func newTestApp(t *testing.T, tweak func(*Config)) *testApp {
	t.Helper()
	cfg := testConfig()
	if tweak != nil {
		tweak(&cfg)
	}
	ctx := context.Background()
	if err := store.EnsureDatabase(ctx, cfg.MySQLDSN); err != nil {
		t.Fatal(err)
	}
	clock := &offsetClock{}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	a, err := New(cfg, clock, log)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	resetStores(t, a)
	rep, err := demo.SeedDemo(ctx, a.DB, a.Users, demo.DemoOptions{Now: clock.Now(), Zone: cfg.Location(), Currency: cfg.Currency, PurchaseLimit: cfg.PurchaseLimit})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.StartWorker(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = a.HTTP.Listener(Lingering(ln)) }()
	ta := &testApp{App: a, t: t, base: "http://" + ln.Addr().String(), clock: clock, accounts: map[string]demo.DemoAccount{}}
	for _, acc := range rep.Accounts {
		ta.accounts[acc.Role] = acc
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.Shutdown(ctx)
	})
	return ta
}

// resetStores empties every table, then the test Redis DB: in that order, because the
// app's background goroutines (started by New) may already load a seat map from what
// MySQL holds, and a map loaded from the last test's rows would outlive them in Redis
// under a show id the truncated tables hand out again.
func resetStores(t *testing.T, a *App) {
	t.Helper()
	ctx := context.Background()
	defer func() {
		if err := a.Redis.FlushDB(ctx).Err(); err != nil {
			t.Fatal(err)
		}
	}()
	if err := store.ResetTables(ctx, a.DB); err != nil {
		t.Fatal(err)
	}
	if _, err := store.EnsureFirstCinema(ctx, a.DB, a.Cfg.FirstCinema()); err != nil {
		t.Fatal(err)
	}
	// the app's background work may have read the last test's cinemas already
	a.Catalog.ForgetCinemas()
}

type apiResp struct {
	status int
	body   []byte
	header http.Header
}

func (r apiResp) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("not JSON (%d): %s", r.status, r.body)
	}
	return m
}

func (r apiResp) code() string {
	var m struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.Unmarshal(r.body, &m)
	return m.Error.Code
}

var noRedirect = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// do sends a request; body may be nil, a string, []byte or a value to marshal.
func (a *testApp) do(method, path, token string, body any, hdr map[string]string) apiResp {
	a.t.Helper()
	return a.send(a.base, method, path, token, body, hdr)
}

// doAt is do against another instance's base URL.
func (a *testApp) doAt(base, method, path, token string, body any) apiResp {
	return a.send(base, method, path, token, body, nil)
}

// send sends one request and checks it and its answer against the OpenAPI document
// (checkOpenAPI); a mismatch fails the test.
func (a *testApp) send(base, method, path, token string, body any, hdr map[string]string) apiResp {
	a.t.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	default:
		raw, _ = json.Marshal(b)
	}
	req, err := http.NewRequest(method, base+path, bytes.NewReader(raw))
	if err != nil {
		a.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := noRedirect.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	out := apiResp{status: res.StatusCode, body: b, header: res.Header}
	if msg := checkOpenAPI(method, base+path, req.Header, raw, out); msg != "" {
		a.t.Error(msg)
	}
	return out
}

var userSeq atomic.Int64

// newUser registers and signs in a fresh customer, returning the token.
func (a *testApp) newUser() string {
	a.t.Helper()
	email := fmt.Sprintf("buyer%d-%d@example.test", time.Now().UnixNano(), userSeq.Add(1))
	if r := a.do("POST", "/api/v1/auth/register", "", map[string]string{"email": email, "password": "password-123", "name": "Buyer"}, nil); r.status != 201 {
		a.t.Fatalf("register: %d %s", r.status, r.body)
	}
	r := a.do("POST", "/api/v1/auth/login", "", map[string]string{"email": email, "password": "password-123"}, nil)
	if r.status != 200 {
		a.t.Fatalf("login: %d %s", r.status, r.body)
	}
	return r.json(a.t)["token"].(string)
}

// onSaleShowLead is how far from now the shows onSaleShow picks start at the earliest.
const onSaleShowLead = 3 * time.Hour

// onSaleShow returns a show on sale now, starting onSaleShowLead or more from now, with
// at least n free standard seats and those seats' ids.
func (a *testApp) onSaleShow(n int) (string, []string) {
	a.t.Helper()
	now := a.clock.Now()
	for d := 0; d < 7; d++ {
		day := now.In(a.Cfg.Location()).AddDate(0, 0, d).Format(time.DateOnly)
		r := a.do("GET", "/api/v1/shows?date="+day, "", nil, nil)
		var v struct {
			Shows []struct {
				ID, Status  string
				SaleOpensAt string `json:"sale_opens_at"`
				StartsAt    string `json:"starts_at"`
				SeatsLeft   int    `json:"seats_left"`
			}
		}
		json.Unmarshal(r.body, &v)
		for _, s := range v.Shows {
			opens, _ := time.Parse(time.RFC3339, s.SaleOpensAt)
			starts, _ := time.Parse(time.RFC3339, s.StartsAt)
			// a show that starts within onSaleShowLead of now could start (or pass a
			// cut-off before its start) while the test runs, whatever the hour it runs at
			if s.Status != "on_sale" || opens.After(now) || starts.Before(now.Add(onSaleShowLead)) || s.SeatsLeft < n+10 {
				continue
			}
			if ids := a.freeSeats(s.ID, n); len(ids) == n {
				return s.ID, ids
			}
		}
	}
	a.t.Fatal("no show on sale")
	return "", nil
}

func (a *testApp) seatMap(show string) []struct{ ID, Label, Zone, Kind, State string } {
	r := a.do("GET", "/api/v1/shows/"+show+"/seats", "", nil, nil)
	var v struct {
		Seats []struct{ ID, Label, Zone, Kind, State string }
	}
	json.Unmarshal(r.body, &v)
	return v.Seats
}

func (a *testApp) freeSeats(show string, n int) []string {
	var out []string
	for _, s := range a.seatMap(show) {
		if s.State == "free" && s.Kind == "standard" && len(out) < n {
			out = append(out, s.ID)
		}
	}
	return out
}

func (a *testApp) seatState(show, id string) string {
	for _, s := range a.seatMap(show) {
		if s.ID == id {
			return s.State
		}
	}
	return "missing"
}

// otherInstance starts another app process over cfg (the same stores as a test app,
// or a tweaked copy) on a free loopback port, serving until the test ends, and returns
// it with its base URL.
func otherInstance(t *testing.T, cfg Config, clock services.Clock) (*App, string) {
	t.Helper()
	b, err := New(cfg, clock, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = b.HTTP.Listener(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = b.Shutdown(ctx)
	})
	return b, "http://" + ln.Addr().String()
}
