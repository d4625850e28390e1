package loadtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"

	"seatflow/services/store"
)

// loadtestDBPrefix is what the name of a database the tool may drop starts with.
const loadtestDBPrefix = "seatflow_loadtest"

// server is a seatflow process the tool started.
type server struct {
	base string
	pid  int
	cmd  *exec.Cmd
	log  *os.File
}

// serverEnv is the environment of the child server: the caller's, without its
// SEATFLOW_* variables (but passedThroughVars), plus the load test's database, Redis DB, address, high rate
// limits, the demo payment provider, a cheap bcrypt cost (buyers are set up through
// the API) and no periodic reconciliation during the run.
func serverEnv(opts Options, addr string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SEATFLOW_") || passedThrough(kv) {
			env = append(env, kv)
		}
	}
	const high = "100000000"
	set := map[string]string{
		"MYSQL_DSN": opts.MySQLDSN, "REDIS_ADDR": opts.RedisAddr, "REDIS_DB": strconv.Itoa(opts.RedisDB),
		"REDIS_KEY_PREFIX": opts.KeyPrefix, "HTTP_ADDR": addr, "DEMO_PAYMENTS": "true", "BCRYPT_COST": "4",
		"CURRENCY": opts.Currency, "LOG_LEVEL": "warn", "RECONCILE_INTERVAL": "24h", "ALLOW_EVICTION": "true",
		"RATE_USER_PER_MINUTE": high, "RATE_USER_BURST": high, "RATE_SHOW_PER_SECOND": high, "RATE_SHOW_BURST": high,
		"RATE_LOGIN_PER_MINUTE": high, "RATE_LOGIN_BURST": high, "RATE_LOGIN_IP_PER_MINUTE": high, "RATE_LOGIN_IP_BURST": high,
		"RATE_REGISTER_PER_MINUTE": high, "RATE_REGISTER_BURST": high,
	}
	for k, v := range set {
		env = append(env, "SEATFLOW_"+k+"="+v)
	}
	return env
}

// passedThroughVars are the SEATFLOW_ variables the started server takes from this
// process's environment, for experiments and profiles: the group commit's sizes, the
// expiry enqueue mode and the operations address (pprof).
var passedThroughVars = []string{"SEATFLOW_COMMIT_BATCH_MAX", "SEATFLOW_COMMIT_WAIT", "SEATFLOW_COMMIT_IN_FLIGHT",
	"SEATFLOW_EXPIRY_ENQUEUE", "SEATFLOW_OPS_ADDR"}

// passedThrough reports whether the environment entry kv ("NAME=value") is one of
// passedThroughVars.
func passedThrough(kv string) bool {
	name, _, _ := strings.Cut(kv, "=")
	return slices.Contains(passedThroughVars, name)
}

// startServer creates the load test's database afresh, flushes its Redis DB, runs the
// binary's migrate, then its serve on a free port, and waits until /healthz answers.
func startServer(ctx context.Context, opts Options, logf func(string, ...any)) (*server, error) {
	if opts.Executable == "" {
		return nil, errors.New("no seatflow binary to start a server with (set Base or Executable)")
	}
	cfg, err := mysql.ParseDSN(opts.MySQLDSN)
	if err != nil {
		return nil, fmt.Errorf("mysql dsn: %w", err)
	}
	if !strings.HasPrefix(cfg.DBName, loadtestDBPrefix) {
		return nil, fmt.Errorf("the load test drops and creates its database: its name must start with %q, not %q", loadtestDBPrefix, cfg.DBName)
	}
	name := cfg.DBName
	cfg.DBName = ""
	admin, err := store.OpenDB(cfg.FormatDSN())
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	if err := store.LoadTestRecreateDatabase(ctx, admin, name); err != nil {
		return nil, fmt.Errorf("load test database: %w", err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: opts.RedisAddr, DB: opts.RedisDB})
	err = rdb.FlushDB(ctx).Err()
	rdb.Close()
	if err != nil {
		return nil, fmt.Errorf("flush redis db %d: %w", opts.RedisDB, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	env := serverEnv(opts, addr)
	logPath := filepath.Join(opts.Out, "server.log")
	lf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	mig := exec.CommandContext(ctx, opts.Executable, "migrate")
	mig.Env, mig.Stdout, mig.Stderr = env, lf, lf
	if err := mig.Run(); err != nil {
		lf.Close()
		return nil, fmt.Errorf("%s migrate: %w (see %s)", opts.Executable, err, logPath)
	}
	cmd := exec.Command(opts.Executable, "serve")
	cmd.Env, cmd.Stdout, cmd.Stderr = env, lf, lf
	if err := cmd.Start(); err != nil {
		lf.Close()
		return nil, err
	}
	s := &server{base: "http://" + addr, pid: cmd.Process.Pid, cmd: cmd, log: lf}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(s.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		select {
		case err := <-exited:
			lf.Close()
			return nil, fmt.Errorf("server exited at start: %v (see %s)", err, logPath)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("server did not answer /healthz within 60 s (see %s)", logPath)
		}
	}
	go func() { <-exited; lf.Close() }()
	logf("server: pid %d at %s, database %s, redis %s db %d, log %s", s.pid, s.base, name, opts.RedisAddr, opts.RedisDB, logPath)
	return s, nil
}

// stop sends SIGTERM to the server and kills it when it has not exited after 20 s.
func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	for i := 0; i < 200; i++ {
		if err := s.cmd.Process.Signal(syscall.Signal(0)); err != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = s.cmd.Process.Kill()
}

// rssSampler reads a process's resident set size every 250 ms: the maximum of the whole
// run and of the current phase (reset by storing 0), in KiB.
type rssSampler struct {
	max, phase atomic.Int64
	cancel     context.CancelFunc
}

func startRSS(ctx context.Context, pid int) *rssSampler {
	ctx, cancel := context.WithCancel(ctx)
	s := &rssSampler{cancel: cancel}
	path := fmt.Sprintf("/proc/%d/status", pid)
	sample := func() {
		kb, err := readVmRSS(path)
		if err != nil {
			return
		}
		for _, m := range []*atomic.Int64{&s.max, &s.phase} {
			if kb > m.Load() {
				m.Store(kb)
			}
		}
	}
	sample()
	go func() {
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				sample()
			}
		}
	}()
	return s
}

func (s *rssSampler) stop() { s.cancel() }

// readVmRSS returns the VmRSS line of a /proc/<pid>/status file in KiB.
func readVmRSS(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
		}
	}
	return 0, errors.New("no VmRSS in " + path)
}
