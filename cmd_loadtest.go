package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"seatflow/web"
	"seatflow/web/loadtest"
)

// loadtestRedisDB is the Redis DB of the server the load test starts (flushed first).
const loadtestRedisDB = 9

// loadtestArgs are the options of one run of the set and how many runs to make.
type loadtestArgs struct {
	loadtest.Options
	// Runs is how many times the whole set runs, one after the other (each in a folder
	// run-<k> of Out); more than one also prints the goals over the runs with their medians.
	Runs int
}

// loadtestFlags parses `loadtest [flags]` into options; defaults come from cfg (the
// SEATFLOW_* variables). -h prints the flags and returns flag.ErrHelp.
func loadtestFlags(cfg web.Config, args []string) (loadtestArgs, error) {
	a := loadtestArgs{Options: loadtest.Options{Currency: cfg.Currency, KeyPrefix: cfg.KeyPrefix, Progress: os.Stderr, Log: os.Stderr}}
	opts := &a.Options
	fs := flag.NewFlagSet("seatflow loadtest", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: seatflow loadtest [flags]")
		fs.PrintDefaults()
	}
	var scenarios, dsn string
	var redisDB int
	fs.StringVar(&opts.Base, "base", "", "`URL` of a running server to test (default: start one with this binary's serve)")
	fs.IntVar(&opts.PID, "pid", 0, "process id of the -base server, to sample its RSS and CPU time per operation (default: neither)")
	fs.IntVar(&opts.Clients, "clients", 32, "concurrent clients of every phase")
	fs.DurationVar(&opts.Duration, "duration", 10*time.Second, "wall time of every ceiling and scenario (a flash sale ends when sold out)")
	fs.DurationVar(&opts.FlashMax, "flash-max", time.Minute, "longest the flash sale runs when it does not sell out first")
	fs.DurationVar(&opts.PreloadLead, "preload-lead", 16*time.Second, "how long before the flash sale (and the seat-map reads) the show's seat map is loaded, as the publish job loads maps ahead")
	fs.StringVar(&scenarios, "scenarios", strings.Join(loadtest.AllScenarios, ","), "comma-separated scenarios to run, of "+strings.Join(loadtest.KnownScenarios, ","))
	fs.StringVar(&opts.Out, "out", "", "results `folder` (default loadtest-results/<UTC timestamp>)")
	fs.StringVar(&dsn, "mysql-dsn", "", "MySQL DSN of the server's database, for fixtures, ceilings and audits (default: SEATFLOW_MYSQL_DSN with -base, else its database renamed seatflow_loadtest, which is dropped and created afresh)")
	fs.StringVar(&opts.RedisAddr, "redis-addr", cfg.RedisAddr, "Redis `address` of the server (several, comma-separated: a Redis Cluster)")
	fs.IntVar(&redisDB, "redis-db", -1, fmt.Sprintf("Redis DB of the server (default: SEATFLOW_REDIS_DB with -base, else %d, which is flushed first)", loadtestRedisDB))
	fs.IntVar(&opts.Rows, "rows", 100, "rows of the flash-sale hall")
	fs.IntVar(&opts.Cols, "cols", 200, "seats per row of the flash-sale hall")
	fs.IntVar(&opts.MySQLBatch, "mysql-batch", loadtest.DefaultMySQLBatch, "orders of one transaction of the mysql_batch ceiling (the group commit's batch size under load)")
	fs.IntVar(&opts.Buyers, "buyers", 2000, "buyers registered and logged in through the API before the timed part")
	fs.IntVar(&opts.Visitors, "visitors", 10000, "waitroom: visitors queueing for the show (accounts and sessions inserted in MySQL before the timed part)")
	fs.IntVar(&opts.AdmitPerMinute, "admit-per-minute", 600, "waitroom: pace of the show's waiting room, buyers a minute")
	fs.IntVar(&opts.VisitorConns, "visitor-conns", 0, "waitroom: most requests the visitors have in flight at once (and connections) (default 200, one per 100 visitors above 20,000)")
	fs.DurationVar(&opts.QueuePoll, "queue-poll", 0, "waitroom: mean time between one waiting visitor's reads of its place (each 0.5x to 1.5x of it) (default 5s, longer for a larger crowd: 2,000 reads a second or 15% of the saturated HTTP no-op's answers, whichever is more, at most 1m0s)")
	fs.IntVar(&a.Runs, "runs", 1, "how many times to run the whole set, one after the other (each in <out>/run-<k>); more than one also writes the goals of every run with their medians to <out>/goals.md")
	if err := fs.Parse(args); err != nil {
		return a, err
	}
	if fs.NArg() > 0 {
		return a, fmt.Errorf("loadtest: unexpected argument %q", fs.Arg(0))
	}
	if a.Runs < 1 {
		return a, fmt.Errorf("loadtest: -runs %d: want at least 1", a.Runs)
	}
	for _, s := range strings.Split(scenarios, ",") {
		if s = strings.TrimSpace(s); s != "" {
			opts.Scenarios = append(opts.Scenarios, s)
		}
	}
	if opts.Out == "" {
		opts.Out = "loadtest-results/" + time.Now().UTC().Format("20060102-150405")
	}
	opts.MySQLDSN, opts.RedisDB = dsn, redisDB
	if opts.Base != "" {
		if dsn == "" {
			opts.MySQLDSN = cfg.MySQLDSN
		}
		if redisDB < 0 {
			opts.RedisDB = cfg.RedisDB
		}
		return a, nil
	}
	if dsn == "" {
		c, err := mysql.ParseDSN(cfg.MySQLDSN)
		if err != nil {
			return a, fmt.Errorf("SEATFLOW_MYSQL_DSN: %w", err)
		}
		c.DBName = "seatflow_loadtest"
		opts.MySQLDSN = c.FormatDSN()
	}
	if redisDB < 0 {
		opts.RedisDB = loadtestRedisDB
	}
	exe, err := os.Executable()
	if err != nil {
		return a, fmt.Errorf("loadtest: cannot find this binary to start a server: %w", err)
	}
	opts.Executable = exe
	return a, nil
}

// loadtestRun runs the load test (-runs times) and prints its tables, and with several
// runs the goals over them (loadtest.WriteGoalsOverRuns, also in <out>/goals.md); the
// targets and goals are reported, not asserted: only a set-up failure or a failed audit
// makes it exit non-zero.
func loadtestRun(ctx context.Context, cfg web.Config, args []string) error {
	a, err := loadtestFlags(cfg, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	opts := a.Options
	opts.ProgressLive = isTerminal(os.Stderr)
	var goals [][]loadtest.Goal
	for k := 1; k <= a.Runs; k++ {
		if a.Runs > 1 {
			opts.Out = filepath.Join(a.Out, fmt.Sprintf("run-%d", k))
			fmt.Fprintf(os.Stderr, "run %d of %d: %s\n", k, a.Runs, opts.Out)
		}
		rep, err := loadtest.Run(ctx, opts)
		if rep != nil {
			fmt.Println()
			rep.WriteTables(os.Stdout)
		}
		if err != nil {
			return err
		}
		for _, t := range rep.Targets {
			if t.Name == "audits after every scenario" && t.Status == loadtest.StatusMiss {
				return fmt.Errorf("loadtest: an audit found drift: %s (see %s/report.md)", t.Got, opts.Out)
			}
		}
		goals = append(goals, rep.Goals)
	}
	if a.Runs == 1 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Goals over %d runs, judged on the median:\n\n", a.Runs)
	loadtest.WriteGoalsOverRuns(&b, goals)
	fmt.Print("\n" + b.String())
	return os.WriteFile(filepath.Join(a.Out, "goals.md"), []byte(b.String()), 0o644)
}
