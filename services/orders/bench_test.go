package orders_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// The benchmark of DESIGN.md "Testing": order creation throughput as a ratio against
// the raw ceilings of Redis and MariaDB, measured on the same machine in the same run
// with the same concurrency. Run it with `make bench`.

// benchWorkers is the number of concurrent callers in every phase.
const benchWorkers = 64

// benchPhase returns the wall time of one phase: 3 s, or SEATFLOW_BENCH_SECONDS.
func benchPhase(b *testing.B) time.Duration {
	s := os.Getenv("SEATFLOW_BENCH_SECONDS")
	if s == "" {
		return 3 * time.Second
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) {
		b.Fatalf("SEATFLOW_BENCH_SECONDS=%q: want a positive number of seconds", s)
	}
	return time.Duration(f * float64(time.Second))
}

// benchRun calls op from workers goroutines until d has passed or op says stop (false).
// It returns how many ops succeeded and the wall time until the last one returned.
// The first error stops every worker and is returned.
func benchRun(workers int, d time.Duration, op func(w int) (bool, error)) (int64, time.Duration, error) {
	var (
		n        atomic.Int64
		stop     atomic.Bool
		firstErr error
		errOnce  sync.Once
		wg       sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(d)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() && time.Now().Before(deadline) {
				more, err := op(w)
				if err != nil {
					errOnce.Do(func() { firstErr = err })
					stop.Store(true)
					return
				}
				if !more {
					return
				}
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	return n.Load(), time.Since(start), firstErr
}

// benchResult is what one measurement found.
type benchResult struct {
	redisPerSec, mysqlPerSec, ordersPerSec float64
	orders                                 int64
	elapsed                                time.Duration
	p50, p99                               time.Duration
	bytesPerOrder, allocsPerOrder          float64
	unavailable                            int64
	ranOut                                 bool
	shows                                  int
}

// benchMeasured keeps the measurement when the framework calls the benchmark again
// with a larger b.N: it measures fixed wall times, once per process.
var benchMeasured *benchResult

func BenchmarkCreateOrderAgainstCeilings(b *testing.B) {
	if benchMeasured == nil {
		benchMeasured = measureAgainstCeilings(b)
	}
	r := benchMeasured
	b.ReportMetric(0, "ns/op") // one fixed-time measurement, not a per-iteration time
	b.ReportMetric(r.redisPerSec, "redis_eval/s")
	b.ReportMetric(r.mysqlPerSec, "mysql_tx/s")
	b.ReportMetric(r.ordersPerSec, "orders/s")
	b.ReportMetric(r.ordersPerSec/r.mysqlPerSec, "orders_vs_mysql")
	b.ReportMetric(r.ordersPerSec/r.redisPerSec, "orders_vs_redis")
	b.ReportMetric(float64(r.p50)/float64(time.Millisecond), "p50_ms")
	b.ReportMetric(float64(r.p99)/float64(time.Millisecond), "p99_ms")
	b.ReportMetric(r.bytesPerOrder, "B/order")
	b.ReportMetric(r.allocsPerOrder, "allocs/order")
}

func measureAgainstCeilings(b *testing.B) *benchResult {
	phase := benchPhase(b)
	e := testenv.NewTestEnv(b, testenv.Unlimited)
	e.QuietLogs()
	ctx := context.Background()
	r := &benchResult{}

	// 1. Redis ceiling: EVALSHA of a script that returns 1, on one key.
	sha, err := e.RDB.ScriptLoad(ctx, "return 1").Result()
	if err != nil {
		b.Fatalf("redis script load: %v", err)
	}
	key := []string{"bench:ceiling"}
	runtime.GC()
	n, el, err := benchRun(benchWorkers, phase, func(int) (bool, error) {
		v, err := e.RDB.EvalSha(ctx, sha, key).Int64()
		if err == nil && v != 1 {
			err = fmt.Errorf("script returned %d", v)
		}
		return true, err
	})
	if err != nil {
		b.Fatalf("redis ceiling: %v", err)
	}
	r.redisPerSec = float64(n) / el.Seconds()

	// 2. MySQL ceiling: one transaction per op inserting one row, committed.
	e.Exec(`CREATE TABLE IF NOT EXISTS bench_ceiling (
		id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
		worker INT NOT NULL,
		created_at DATETIME(6) NOT NULL
	) ENGINE=InnoDB`)
	b.Cleanup(func() { e.DB.Exec("DROP TABLE IF EXISTS bench_ceiling") })
	runtime.GC()
	n, el, err = benchRun(benchWorkers, phase, func(w int) (bool, error) {
		tx, err := e.DB.BeginTx(ctx, nil)
		if err != nil {
			return false, err
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO bench_ceiling (worker, created_at) VALUES (?, ?)", w, time.Now().UTC()); err != nil {
			tx.Rollback()
			return false, err
		}
		return true, tx.Commit()
	})
	if err != nil {
		b.Fatalf("mysql ceiling: %v", err)
	}
	r.mysqlPerSec = float64(n) / el.Seconds()

	// 3. seatflow: 1-seat orders through Orders.Create, every order a distinct seat.
	// Enough shows on the env's hall that seats should outlast the phase (at least 20;
	// twice what the MySQL ceiling could commit), each seat map loaded before the clock
	// starts (a flash sale meets warm maps).
	seats := e.Sellable()
	nShows := max(20, int(math.Ceil(2*r.mysqlPerSec*phase.Seconds()/float64(len(seats)))))
	nShows = min(nShows, 2000)
	shows := []*services.Show{e.Show}
	for i := 1; i < nShows; i++ {
		shows = append(shows, e.OnSaleShow(e.Hall.ID, i))
	}
	for _, s := range shows {
		if err := e.Seats.Load(ctx, s.ID); err != nil {
			b.Fatalf("load seat map of show %d: %v", s.ID, err)
		}
		if _, err := e.Catalog.CachedShow(ctx, s.ID); err != nil {
			b.Fatal(err)
		}
	}
	r.shows = len(shows)
	total := len(shows) * len(seats)
	// Order k takes seat k/nShows of show k%nShows for user k/4: a user's (up to) 4
	// orders go to 4 different shows, within any purchase limit.
	users := e.BulkUsers((total + 3) / 4)
	lat := make([][]time.Duration, benchWorkers)
	for w := range lat {
		lat[w] = make([]time.Duration, 0, total/benchWorkers+1)
	}
	var next, unavailableN atomic.Int64
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n, el, err = benchRun(benchWorkers, phase, func(w int) (bool, error) {
		k := int(next.Add(1) - 1)
		if k >= total {
			return false, nil // every seat is sold
		}
		req := orders.CreateOrderRequest{UserID: users[k/4], ShowID: shows[k%nShows].ID, SeatIDs: []int64{seats[k/nShows]}}
		t0 := time.Now()
		_, err := e.Orders.Create(ctx, req)
		d := time.Since(t0)
		if err != nil {
			if services.ErrorCode(err) == services.CodeUnavailable { // overload, not a wrong answer
				unavailableN.Add(1)
				return true, nil
			}
			return false, fmt.Errorf("order %d (show %d, seat %d, user %d): %w", k, req.ShowID, req.SeatIDs[0], req.UserID, err)
		}
		lat[w] = append(lat[w], d)
		return true, nil
	})
	runtime.ReadMemStats(&after)
	if err != nil {
		b.Errorf("seatflow: %v", err)
	}
	r.unavailable = unavailableN.Load()
	r.orders = n - r.unavailable
	r.elapsed = el
	r.ranOut = next.Load() >= int64(total)
	if r.orders == 0 {
		b.Fatalf("no order was created in %v", el)
	}
	r.ordersPerSec = float64(r.orders) / el.Seconds()
	r.bytesPerOrder = float64(after.TotalAlloc-before.TotalAlloc) / float64(r.orders)
	r.allocsPerOrder = float64(after.Mallocs-before.Mallocs) / float64(r.orders)
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	r.p50 = all[(len(all)-1)*50/100]
	r.p99 = all[(len(all)-1)*99/100]

	// Nothing double-sold under load: both stores agree for every show, and MySQL holds
	// exactly the orders that were created.
	var inDB int64
	if err := e.DB.Get(&inDB, "SELECT COUNT(*) FROM orders WHERE status = 'pending'"); err != nil {
		b.Fatal(err)
	}
	if inDB != r.orders && r.unavailable == 0 { // an UNAVAILABLE commit may have landed
		b.Errorf("%d pending orders in MySQL, %d created", inDB, r.orders)
	}
	for _, s := range shows {
		e.Show = s
		e.CheckInvariants()
	}
	e.Show = shows[0]

	note := ""
	if r.ranOut {
		note = fmt.Sprintf(" (all %d seats of %d shows sold after %.1f s)", total, len(shows), el.Seconds())
	}
	if r.unavailable > 0 {
		note += fmt.Sprintf(" (%d creates UNAVAILABLE)", r.unavailable)
	}
	b.Logf("orders %.0f/s = %.2fx of MySQL commit ceiling (%.0f/s), %.3fx of Redis EVAL ceiling (%.0f/s); p50 %.1f ms, p99 %.1f ms; %.1f KiB/order, %.0f allocs/order; %d workers, %v per phase, %d orders on %d shows%s",
		r.ordersPerSec, r.ordersPerSec/r.mysqlPerSec, r.mysqlPerSec, r.ordersPerSec/r.redisPerSec, r.redisPerSec,
		float64(r.p50)/float64(time.Millisecond), float64(r.p99)/float64(time.Millisecond),
		r.bytesPerOrder/1024, r.allocsPerOrder, benchWorkers, phase, r.orders, len(shows), note)
	return r
}
