package testenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"

	"seatflow/services"
	"seatflow/services/orders"
	"seatflow/services/reconcile"
	"seatflow/services/store"
)

// Fault-injection helpers: a private redis-server the tests may flush, restart and
// pause, a TCP proxy in front of MariaDB that can be cut, an expiry queue that lives in
// Redis (so a wipe loses its tasks, as asynq's would), and the reconcile loop the
// fault tests converge with. The shared Redis and MariaDB are never stopped or paused.

// privateRedis is a redis-server of its own on a free loopback port.
type privateRedis struct {
	t    testing.TB
	port string
	dir  string
	mu   sync.Mutex
	cmd  *exec.Cmd
}

// startPrivateRedis starts a redis-server without persistence on a free port; it is
// killed when the test ends.
func startPrivateRedis(t testing.TB) *privateRedis {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed")
	}
	p := &privateRedis{t: t, port: strconv.Itoa(freePort(t)), dir: t.TempDir()}
	p.Start()
	t.Cleanup(func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.cmd != nil {
			_ = p.cmd.Process.Kill()
			_ = p.cmd.Wait()
			p.cmd = nil
		}
	})
	return p
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Addr is the server's address.
func (p *privateRedis) Addr() string { return "127.0.0.1:" + p.port }

var redisMajorRe = regexp.MustCompile(`v=(\d+)\.`)

// Start starts the server (again, on the same port) and waits until it answers.
func (p *privateRedis) Start() {
	p.t.Helper()
	args := []string{"--port", p.port, "--save", "", "--appendonly", "no", "--bind", "127.0.0.1",
		"--dir", p.dir, "--logfile", "", "--databases", strconv.Itoa(RedisDatabases)}
	if out, err := exec.Command("redis-server", "--version").Output(); err == nil {
		if m := redisMajorRe.FindSubmatch(out); m != nil {
			if major, _ := strconv.Atoi(string(m[1])); major >= 7 {
				args = append(args, "--enable-debug-command", "yes") // DEBUG SLEEP
			}
		}
	}
	cmd := exec.Command("redis-server", args...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		p.t.Fatalf("start redis-server: %v", err)
	}
	p.mu.Lock()
	p.cmd = cmd
	p.mu.Unlock()
	c := redis.NewClient(&redis.Options{Addr: p.Addr(), MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("private redis-server on %s did not answer: %v", p.Addr(), err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop shuts the server down without saving (SHUTDOWN NOSAVE) and waits for the process.
func (p *privateRedis) Stop() {
	p.t.Helper()
	c := redis.NewClient(&redis.Options{Addr: p.Addr(), MaxRetries: -1})
	_ = c.Do(context.Background(), "SHUTDOWN", "NOSAVE").Err() // the connection closes: no reply
	c.Close()
	p.mu.Lock()
	cmd := p.cmd
	p.cmd = nil
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// FlushAll empties every database of the private server.
func (p *privateRedis) FlushAll() {
	p.t.Helper()
	c := redis.NewClient(&redis.Options{Addr: p.Addr()})
	defer c.Close()
	if err := c.FlushAll(context.Background()).Err(); err != nil {
		p.t.Fatalf("FLUSHALL: %v", err)
	}
}

// Sleep makes the server sleep d (DEBUG SLEEP) and returns at once; the channel is
// closed when the server answers again.
func (p *privateRedis) Sleep(d time.Duration) <-chan struct{} {
	done := make(chan struct{})
	c := redis.NewClient(&redis.Options{Addr: p.Addr(), ReadTimeout: d + 10*time.Second, MaxRetries: -1})
	started := make(chan struct{})
	go func() {
		defer close(done)
		defer c.Close()
		close(started)
		if err := c.Do(context.Background(), "DEBUG", "SLEEP", fmt.Sprintf("%.3f", d.Seconds())).Err(); err != nil {
			p.t.Errorf("DEBUG SLEEP: %v", err)
		}
	}()
	<-started
	// DEBUG SLEEP is sent on its own connection: wait until the server is inside it
	probe := redis.NewClient(&redis.Options{Addr: p.Addr(), MaxRetries: -1, ReadTimeout: 50 * time.Millisecond})
	defer probe.Close()
	for i := 0; i < 100; i++ {
		if err := probe.Ping(context.Background()).Err(); err != nil {
			break // the ping did not come back in time: the server sleeps
		}
		time.Sleep(5 * time.Millisecond)
	}
	return done
}

// NewPrivateRedisEnv is a TestEnv whose Redis is a private redis-server.
func NewPrivateRedisEnv(t testing.TB) (*TestEnv, *privateRedis) {
	t.Helper()
	p := startPrivateRedis(t)
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr(), PoolSize: 128})
	t.Cleanup(func() { rdb.Close() })
	return newTestEnvOn(t, Unlimited, NewTestDB(t), rdb), p
}

// tcpProxy forwards loopback connections to a target; Cut closes every connection and
// refuses new ones until Restore.
type tcpProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	cut    bool
	conns  map[net.Conn]bool
}

func newTCPProxy(t testing.TB, target string) *tcpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.Cut() })
	return p
}

// Addr is the proxy's listening address.
func (p *tcpProxy) Addr() string { return p.ln.Addr().String() }

func (p *tcpProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.pipe(c)
	}
}

// track registers connections, or closes them when the proxy is cut.
func (p *tcpProxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	for _, c := range cs {
		p.conns[c] = true
	}
	return true
}

func (p *tcpProxy) pipe(client net.Conn) {
	if !p.track(client) {
		return
	}
	server, err := net.DialTimeout("tcp", p.target, 2*time.Second)
	if err != nil {
		client.Close()
		return
	}
	if !p.track(server) {
		client.Close()
		return
	}
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(server, client); done <- struct{}{} }()
	go func() { _, _ = io.Copy(client, server); done <- struct{}{} }()
	<-done
	client.Close()
	server.Close()
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, server)
	p.mu.Unlock()
}

// Cut closes every proxied connection (both sides) and refuses new ones.
func (p *tcpProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}

// Restore accepts connections again.
func (p *tcpProxy) Restore() {
	p.mu.Lock()
	p.cut = false
	p.mu.Unlock()
}

// NewProxiedEnv is a TestEnv whose MySQL connections go through a proxy the test can
// cut; the database is emptied directly first.
func NewProxiedEnv(t testing.TB) (*TestEnv, *tcpProxy) {
	t.Helper()
	NewTestDB(t) // migrate and empty the test database over a direct connection
	base := os.Getenv("SEATFLOW_TEST_MYSQL_DSN_BASE")
	if base == "" {
		base = "root@tcp(127.0.0.1:3306)/"
	}
	cfg, err := mysql.ParseDSN(base + TestDBName)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newTCPProxy(t, cfg.Addr)
	cfg.Addr = proxy.Addr()
	cfg.Timeout = 2 * time.Second
	db, err := store.OpenDB(cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return newTestEnvOn(t, Unlimited, db, newTestRedis(t)), proxy
}

// redisExpiryQueue keeps expiry tasks in a sorted set of the env's Redis (score: the
// deadline in ms), so a FLUSHALL or a restart loses them as it would lose asynq's.
// It implements ExpiryScheduler and ExpiryTasks.
type redisExpiryQueue struct {
	RDB redis.UniversalClient
	Key string
}

func NewRedisExpiryQueue(rdb redis.UniversalClient) *redisExpiryQueue {
	return &redisExpiryQueue{RDB: rdb, Key: "sf:test:expiry"}
}

func (q *redisExpiryQueue) ScheduleExpiry(ctx context.Context, no string, at time.Time) error {
	_, err := q.EnsureExpiry(ctx, no, at)
	return err
}

func (q *redisExpiryQueue) ScheduleExpiries(ctx context.Context, at time.Time, nos []string) error {
	for _, no := range nos {
		if _, err := q.EnsureExpiry(ctx, no, at); err != nil {
			return err
		}
	}
	return nil
}

func (q *redisExpiryQueue) ExpiryCovered(ctx context.Context, nos []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, no := range nos {
		ok, err := q.ExpiryScheduled(ctx, no)
		if err != nil {
			return nil, err
		}
		out[no] = ok
	}
	return out, nil
}

func (q *redisExpiryQueue) EnsureExpiry(ctx context.Context, no string, at time.Time) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	n, err := q.RDB.ZAddNX(ctx, q.Key, redis.Z{Score: float64(at.UnixMilli()), Member: no}).Result()
	return n == 1, err
}

func (q *redisExpiryQueue) ExpiryScheduled(ctx context.Context, no string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	err := q.RDB.ZScore(ctx, q.Key, no).Err()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	return err == nil, err
}

func (q *redisExpiryQueue) CancelExpiry(ctx context.Context, no string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return q.RDB.ZRem(ctx, q.Key, no).Err()
}

// Due lists the tasks whose time has come at now.
func (q *redisExpiryQueue) Due(ctx context.Context, now time.Time) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return q.RDB.ZRangeByScore(ctx, q.Key, &redis.ZRangeBy{Min: "-inf", Max: strconv.FormatInt(now.UnixMilli(), 10)}).Result()
}

// FaultReconciler is a reconciler over the env (its own Reconciler value, as another
// instance would have) with the given grace and no task queue unless tasks is set.
func FaultReconciler(e *TestEnv, grace time.Duration, tasks reconcile.ExpiryTasks) *reconcile.Reconciler {
	return reconcile.NewReconciler(e.DB, e.Catalog, e.Seats, e.Orders, e.Clock, reconcile.ReconcileConfig{Grace: grace, Tasks: tasks,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// convergence is what reconcileUntilClean did.
type convergence struct {
	runs     int
	Findings map[string]int // by kind, over every run
	fixed    int
	errs     []string
	Clean    bool
}

func (c convergence) String() string {
	kinds := make([]string, 0, len(c.Findings))
	for k, n := range c.Findings {
		kinds = append(kinds, fmt.Sprintf("%s=%d", k, n))
	}
	sort.Strings(kinds)
	s := fmt.Sprintf("%d reconcile runs, %d fixes [%s]", c.runs, c.fixed, strings.Join(kinds, " "))
	if len(c.errs) > 0 {
		s += fmt.Sprintf(", run errors %q", c.errs)
	}
	return s
}

// ReconcileUntilClean runs r the way the schedule does (the seat-sync retries, then a
// run over every show) until Inspect at grace 0 finds nothing for any of shows, at most
// rounds times.
func (e *TestEnv) ReconcileUntilClean(r *reconcile.Reconciler, rounds int, shows ...*services.Show) convergence {
	e.T.Helper()
	ctx := context.Background()
	c := convergence{Findings: map[string]int{}}
	for i := 0; i < rounds && !c.Clean; i++ {
		if _, err := e.Orders.RetrySeatSyncs(ctx, 1000); err != nil {
			c.errs = append(c.errs, "seat syncs: "+err.Error())
		}
		run, err := r.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerCron})
		c.runs++
		if err != nil {
			c.errs = append(c.errs, err.Error())
		}
		if run != nil {
			for _, f := range run.Findings {
				c.Findings[f.Kind]++
			}
			c.fixed += run.Fixed
		}
		c.Clean = true
		for _, s := range shows {
			fs, err := r.Inspect(ctx, s.ID, 0)
			if err != nil || len(fs) > 0 {
				c.Clean = false
			}
		}
	}
	return c
}

// CheckInvariantsOf is CheckInvariants for another show of the env.
func (e *TestEnv) CheckInvariantsOf(show *services.Show) {
	e.T.Helper()
	saved := e.Show
	e.Show = show
	defer func() { e.Show = saved }()
	e.CheckInvariants()
}

// Verdict names the outcome of the invariant checks so far.
func Verdict(t testing.TB) string {
	if t.Failed() {
		return "FAILED"
	}
	return "clean"
}

// SeatSyncRows counts the seat-sync outbox.
func (e *TestEnv) SeatSyncRows() int {
	e.T.Helper()
	var n int
	if err := e.DB.Get(&n, "SELECT COUNT(*) FROM seat_syncs"); err != nil {
		e.T.Fatal(err)
	}
	return n
}

// PayOrder pays an order through the demo provider.
func (e *TestEnv) PayOrder(o *services.Order) error {
	ctx := context.Background()
	p, _, err := e.Payments.Start(ctx, o.UserID, o.OrderNo, "demo")
	if err != nil {
		return err
	}
	_, err = e.Payments.DemoDecide(ctx, p.PaymentID, true)
	return err
}

// ShowKeys saves the seat map and counters of a show (DUMP) to put them back later.
func (e *TestEnv) ShowKeys(showID int64) map[string]string {
	e.T.Helper()
	out := map[string]string{}
	for _, k := range e.Seats.Keys(showID) {
		v, err := e.RDB.Dump(context.Background(), k).Result()
		if err != nil {
			e.T.Fatalf("DUMP %s: %v", k, err)
		}
		out[k] = v
	}
	return out
}

// RestoreShowKeys puts saved keys back as they were (RESTORE ... REPLACE).
func (e *TestEnv) RestoreShowKeys(saved map[string]string) {
	e.T.Helper()
	ctx := context.Background()
	for k, v := range saved {
		ttl := e.RDB.PTTL(ctx, k).Val()
		if ttl < 0 {
			ttl = 0
		}
		if err := e.RDB.RestoreReplace(ctx, k, ttl, v).Err(); err != nil {
			e.T.Fatalf("RESTORE %s: %v", k, err)
		}
	}
}

// Buy orders the seats of ids for user on show under load: a refusal the load expects
// (seat taken, limit, sold out, a store down) is counted as "create <CODE>" and gives
// nil, any other error fails t; a created order is counted as "created".
func (e *TestEnv) Buy(t *testing.T, user, show int64, ids map[int64]bool, count func(string)) *services.Order {
	req := orders.CreateOrderRequest{UserID: user, ShowID: show}
	for id := range ids {
		req.SeatIDs = append(req.SeatIDs, id)
	}
	o, err := e.Orders.Create(context.Background(), req)
	if err != nil {
		switch code := services.ErrorCode(err); code {
		case services.CodeSeatTaken, services.CodeLimitExceeded, services.CodeSoldOut, services.CodeUnavailable:
			count("create " + code)
		default:
			t.Errorf("create: unexpected %v", err)
		}
		return nil
	}
	count("created")
	return o
}
