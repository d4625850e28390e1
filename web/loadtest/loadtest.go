// Package loadtest is `seatflow loadtest`: it targets a running server or starts one,
// creates buyers through the API, drives scenarios (a flash sale, the same with ticket
// types and a voucher in every order (mixed.go), rejection storms,
// seat-map reads during a sale, and the V1 baseline; on demand, a crowd in a show's
// waiting room, waitroom.go) with a fixed number of clients,
// measures the ceilings of this machine in the same run (raw EVALSHA of the hold script,
// a raw MariaDB order transaction, an HTTP no-op), audits MySQL and Redis after every
// scenario and writes a report (report.md and PNG plots) to a results folder.
//
// The measurements are reported, never asserted: targets come out as PASS or MISS.
package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/redis/go-redis/v9"

	"seatflow/services/catalog"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// Options configure one load test run.
type Options struct {
	// Base is the URL of a running server; empty: start one (Executable serve).
	Base string
	// PID is the server's process id for RSS sampling and its CPU time per operation
	// when Base is set (0: neither).
	PID int
	// Executable is the seatflow binary whose migrate and serve commands start a server.
	Executable string
	// Clients is the number of concurrent clients of every phase.
	Clients int
	// Duration is the wall time of every ceiling and scenario (a flash sale ends sooner
	// when it is sold out).
	Duration time.Duration
	// Scenarios to run, from AllScenarios.
	Scenarios []string
	// Out is the results folder (created).
	Out string
	// MySQLDSN and Redis* reach the server's stores, for fixtures, ceilings and audits.
	// When the tool starts its own server, the DSN's database is dropped and created
	// afresh (its name must start with "seatflow_loadtest") and the Redis DB is flushed.
	MySQLDSN  string
	RedisAddr string
	RedisDB   int
	KeyPrefix string
	// Rows x Cols is the big hall of the flash sale; Buyers the number of customers.
	Rows, Cols, Buyers int
	// MySQLBatch is the orders of one transaction of the mysql_batch ceiling (0:
	// DefaultMySQLBatch).
	MySQLBatch int
	// Currency of the fixture shows (the server's SEATFLOW_CURRENCY).
	Currency string
	// FlashMax is the longest the flash sale runs when it does not sell out first
	// (0: Duration).
	FlashMax time.Duration
	// PreloadLead is how long before a sale of the big hall (the flash sale, the seat-map
	// reads) its seat map is loaded, as the publish job loads maps ahead (10 minutes in
	// production); the order transaction counts buyers' seats in MySQL for 15 s after a
	// map is (re)built. 0: the sale starts right after the load.
	PreloadLead time.Duration
	// Visitors, AdmitPerMinute, VisitorConns and QueuePoll shape the waitroom scenario:
	// how many visitors queue for the show (accounts and sessions inserted in MySQL), the
	// pace of its waiting room (buyers a minute), the most requests the visitors have in
	// flight at once (and so connections), and the mean time between one waiting
	// visitor's reads of its place (each drawn from 0.5x to 1.5x of it). 0: 10,000
	// visitors, 600 a minute, and for the crowd's size defaultConns connections (200 up
	// to 20,000 visitors) and defaultPoll, set when the scenario starts from the saturated
	// HTTP no-op the run measured (5 s up to 10,000 visitors, 24 s at 100,000 on a machine
	// whose no-op answers 28,000 a second).
	Visitors, AdmitPerMinute, VisitorConns int
	QueuePoll                              time.Duration
	// Progress receives the progress lines (nil: none): rewritten every second when
	// ProgressLive (a terminal), else one line per phase. Log gets the run's messages.
	Progress     io.Writer
	ProgressLive bool
	Log          io.Writer
}

func (o *Options) defaults() error {
	if o.Clients < 1 {
		return errors.New("clients must be at least 1")
	}
	if o.Duration < 500*time.Millisecond {
		return errors.New("duration must be at least 500ms")
	}
	if o.Rows < 2 || o.Cols < 4 {
		return errors.New("the big hall needs at least 2 rows of 4 seats")
	}
	if o.Buyers < 1 {
		return errors.New("buyers must be at least 1")
	}
	for _, s := range o.Scenarios {
		if !slices.Contains(KnownScenarios, s) {
			return fmt.Errorf("unknown scenario %q (known: %v)", s, KnownScenarios)
		}
	}
	if o.MySQLBatch <= 0 {
		o.MySQLBatch = DefaultMySQLBatch
	}
	if o.MySQLBatch > 64 {
		return errors.New("mysql-batch must be at most 64 (SEATFLOW_COMMIT_BATCH_MAX's default)")
	}
	if o.Visitors <= 0 {
		o.Visitors = defaultVisitors
	}
	if o.AdmitPerMinute <= 0 {
		o.AdmitPerMinute = defaultAdmitPerMinute
	}
	if o.AdmitPerMinute > 100000 {
		return errors.New("admit-per-minute must be at most 100000")
	}
	if o.VisitorConns <= 0 {
		o.VisitorConns = defaultConns(o.Visitors)
	}
	if o.QueuePoll < 0 {
		return errors.New("queue-poll must not be negative")
	}
	if o.QueuePoll > maxQueuePoll {
		return errors.New("queue-poll must be at most 60s: a waiting place unread for 120 s is given up")
	}
	if o.KeyPrefix == "" {
		o.KeyPrefix = "sf"
	}
	if o.FlashMax <= 0 {
		o.FlashMax = o.Duration
	}
	if o.Currency == "" {
		o.Currency = "CNY"
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return nil
}

// run is the state of one load test.
type run struct {
	opts      Options
	client    *Client
	db        *sqlx.DB
	rdb       redis.UniversalClient
	store     *seats.SeatStore
	catalog   *catalog.Catalog
	fx        *Fixtures
	big       *Hall
	small     *Hall
	buyers    []Buyer
	nextBuyer func() Buyer
	rss       *rssSampler
	cpu       *cpuMeter
	noopRate  float64 // answers a second of the saturated HTTP no-op (runHTTPCeiling)
}

// step is what one operation of a scenario found: its outcome, the answer's code, an
// error's detail; stop ends the scenario, skip records nothing.
type step struct {
	o            Outcome
	code, detail string
	stop, skip   bool
}

// Run performs a whole load test and writes the report into opts.Out. The returned
// report is complete even when a scenario's audit failed; errors are set-up failures.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, err
	}
	r := &run{opts: opts}
	logf := func(format string, a ...any) { fmt.Fprintf(opts.Log, format+"\n", a...) }
	if opts.Base == "" {
		srv, err := startServer(ctx, opts, logf)
		if err != nil {
			return nil, err
		}
		defer srv.stop()
		r.opts.Base, r.opts.PID = srv.base, srv.pid
	}
	var err error
	if r.db, err = store.OpenDB(r.opts.MySQLDSN); err != nil {
		return nil, err
	}
	defer r.db.Close()
	r.db.SetMaxOpenConns(opts.Clients + 4)
	r.db.SetMaxIdleConns(opts.Clients + 4)
	addrs, err := store.ParseRedisAddrs(opts.RedisAddr)
	if err != nil {
		return nil, fmt.Errorf("redis address: %w", err)
	}
	if r.rdb, err = store.NewRedis(store.RedisConn{Addrs: addrs, DB: opts.RedisDB, PoolSize: opts.Clients + 4}); err != nil {
		return nil, err
	}
	defer r.rdb.Close()
	r.catalog = catalog.NewCatalog(r.db)
	r.store = seats.NewSeatStore(r.rdb, r.db, r.catalog, opts.KeyPrefix)
	r.client = NewClient(r.opts.Base, opts.Clients)
	if r.opts.PID > 0 {
		r.rss = startRSS(ctx, r.opts.PID)
		defer r.rss.stop()
	}
	var cpuNote string
	r.cpu, cpuNote = r.findCPUProcs(ctx)
	logf("cpu time of: %s", cpuNote)

	runID := time.Now().UTC().Format("0102150405")
	logf("fixtures: a %dx%d hall, a 10x20 hall, %d buyers (run %s)", opts.Rows, opts.Cols, opts.Buyers, runID)
	if r.fx, err = NewFixtures(ctx, r.db, runID, opts.Currency); err != nil {
		return nil, err
	}
	if err := ensureChildType(ctx, r.db, time.Now().UTC()); err != nil {
		return nil, err
	}
	if r.big, err = r.fx.NewHall(ctx, "big", opts.Rows, opts.Cols); err != nil {
		return nil, err
	}
	if r.small, err = r.fx.NewHall(ctx, "small", 10, 20); err != nil {
		return nil, err
	}
	t0 := time.Now()
	if r.buyers, err = registerBuyers(ctx, r.client, runID, opts.Buyers, min(opts.Clients, 16)); err != nil {
		return nil, fmt.Errorf("register buyers: %w", err)
	}
	var nb atomic.Int64
	r.nextBuyer = func() Buyer { return r.buyers[int(nb.Add(1)-1)%len(r.buyers)] }
	logf("buyers registered and logged in through the API in %s", time.Since(t0).Round(time.Millisecond))

	rep := &Report{Clients: opts.Clients, Duration: opts.Duration, FlashMax: r.opts.FlashMax, Base: r.opts.Base, Started: time.Now().UTC(),
		BigSeats: len(r.big.Seats), Buyers: opts.Buyers, CPUNote: cpuNote}
	for _, c := range []func(context.Context) (*Result, error){r.runHTTPCeiling, r.runRedisCeiling, r.runRedisOrderFloorCeiling, r.runMySQLCeiling, r.runMySQLBatchCeiling} {
		res, err := c(ctx)
		if err != nil {
			return nil, err
		}
		res.Ceiling = true
		if res.Name == CeilingHTTP {
			r.noopRate = res.Rate()
		}
		rep.Ceilings = append(rep.Ceilings, res)
	}
	for _, name := range opts.Scenarios {
		var res *Result
		var err error
		switch name {
		case ScenarioFlash:
			res, err = r.flashSale(ctx)
		case ScenarioFlashMixed:
			res, err = r.flashSaleMixed(ctx)
		case ScenarioSoldOut:
			res, err = r.rejectionStorm(ctx, false)
		case ScenarioHotSeats:
			res, err = r.rejectionStorm(ctx, true)
		case ScenarioSeatMap:
			res, err = r.seatMapDuringSale(ctx)
		case ScenarioSeatMapSmall:
			res, err = r.seatMapSmall(ctx)
		case ScenarioV1:
			res, err = r.baselineV1(ctx)
		case ScenarioWaitRoom:
			res, err = r.waitRoom(ctx)
		}
		if err != nil {
			return nil, fmt.Errorf("scenario %s: %w", name, err)
		}
		for _, a := range res.audit {
			logf("  audit %-9s %-40s %d%s", name, a.Check, a.Count, map[bool]string{true: "  FAILED", false: ""}[a.Failed()])
		}
		rep.Scenarios = append(rep.Scenarios, res)
		if res.Room != nil && res.Room.Reads != nil {
			rep.Scenarios = append(rep.Scenarios, res.Room.Reads)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	if r.rss != nil {
		rep.RSSMaxKB = r.rss.max.Load()
	} else {
		rep.RSSNote = "not sampled (-base without -pid)"
	}
	rep.Finished = time.Now().UTC()
	rep.Evaluate()
	if err := rep.Write(opts.Out); err != nil {
		return rep, err
	}
	logf("report: %s", filepath.Join(opts.Out, "report.md"))
	return rep, nil
}

// measure runs op on every client for the run's duration and summarises it as a
// Result named name (title: what it does; metric: what OK counts), with the server's
// RSS and the CPU time the measured processes spent while the clients ran.
func (r *run) measure(ctx context.Context, name, title, metric string, op func(ctx context.Context, w int) step) (*Result, error) {
	return r.measureFor(ctx, r.opts.Duration, name, title, metric, op)
}

// measureFor is measure for a duration of its own.
func (r *run) measureFor(ctx context.Context, d time.Duration, name, title, metric string, op func(ctx context.Context, w int) step) (*Result, error) {
	start := time.Now()
	rec := NewRecorder(start, int(d/time.Second)+60)
	if r.rss != nil {
		r.rss.phase.Store(0)
	}
	cpu0 := r.cpu.snapshot()
	elapsed := runClients(ctx, name, r.opts.Clients, d, rec, r.opts.Progress, r.opts.ProgressLive, func(ctx context.Context, w int) bool {
		t0 := time.Now()
		st := op(ctx, w)
		end := time.Now()
		if !st.skip && (st.o != OutError || ctx.Err() == nil) { // an op cut off by the end of the run is not counted
			rec.Observe(st.o, end.Sub(t0), end, st.code, st.detail)
		}
		return !st.stop
	})
	cpu := cpuSince(cpu0, r.cpu.snapshot())
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	res := newResult(name, title, metric, r.opts.Clients, elapsed, rec)
	res.CPU = cpu
	if r.rss != nil {
		res.RSSMaxKB = r.rss.phase.Load()
	}
	return res, nil
}
