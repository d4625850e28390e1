package seats_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"seatflow/lua"
	"seatflow/services/internal/testenv"
	"seatflow/web/loadtest"
)

// orderScriptRows x orderScriptCols is the show of BenchmarkOrderScript_RedisTimePerCall
// (one zone), and orderScriptBuyers the buyers who share it (the load test's flash sale
// has 2,000).
const (
	orderScriptRows   = 50
	orderScriptCols   = 200
	orderScriptSeats  = orderScriptRows * orderScriptCols
	orderScriptBuyers = 2000
)

// BenchmarkOrderScript_RedisTimePerCall measures lua.Order's own cost in Redis for a
// created order, with one client calling it after another on a private Redis (no other
// client, no I/O contention): a show of 50 rows of 200 free seats in one zone, 2 seats
// an order, 2,000 buyers, each order with an Idempotency-Key and both rate limits
// counted, as the flash sale sends them: every other order is best-available's (the
// single-seat rule enforced on its row's window, as seats.RuleArgs gives it), the others
// chosen seats with the precheck and no rule. It reports Redis's time per call in µs
// (INFO commandstats: EVALSHA's usec over its calls), the part of it its Redis commands
// took (their usec), a script that makes the same commands and nothing else
// (loadtest.OrderFloor), and one that returns at once with the same keys and arguments.
// BENCHMARKS.md "Where the order script's Redis time goes" reads it.
func BenchmarkOrderScript_RedisTimePerCall(b *testing.B) {
	e, _ := testenv.NewPrivateRedisEnv(b)
	ctx := context.Background()
	const showID = 900001
	key := func(name string) string { return e.Seats.ShowKey(showID, name) }
	load := func() {
		b.StopTimer()
		defer b.StartTimer()
		e.RDB.FlushDB(ctx)
		free := make(map[string]any, orderScriptSeats)
		for i := 1; i <= orderScriptSeats; i++ {
			free[strconv.Itoa(i)] = "F"
		}
		e.RDB.HSet(ctx, key("seats"), free)
		e.RDB.HSet(ctx, key("zones"), "standard", orderScriptSeats, "_", "1")
		e.RDB.HSet(ctx, key("users"), "_", "1700000000")
		e.RDB.HSet(ctx, key("vouchers"), "_", "1")
	}
	call := func(sc *redis.Script, o int) ([]any, error) {
		// pairs fill the map from seat 1, each row from its left end: no order strands a seat
		keys, args := loadtest.OrderFloorArgs(key, o%(orderScriptSeats/2), orderScriptCols, orderScriptBuyers, 1<<30)
		return sc.Run(ctx, e.RDB, keys, args...).Slice()
	}
	measure := func(sc *redis.Script, n int) (script, commands float64) {
		load()
		if err := sc.Load(ctx, e.RDB).Err(); err != nil {
			b.Fatal(err)
		}
		e.RDB.ConfigResetStat(ctx)
		for o := range n {
			if o > 0 && o%(orderScriptSeats/2) == 0 {
				load() // every seat is held: a fresh show (outside the timer)
			}
			r, err := call(sc, o)
			if err != nil {
				b.Fatal(err)
			}
			if hold, _ := r[4].(string); r[0] != "HOLD" || hold != "OK" {
				b.Fatalf("order %d: %v, want a hold", o, r)
			}
		}
		b.StopTimer()
		defer b.StartTimer()
		for _, line := range strings.Split(e.RDB.Info(ctx, "commandstats").Val(), "\n") {
			name, stats, ok := strings.Cut(strings.TrimSpace(line), ":")
			if !ok || !strings.HasPrefix(name, "cmdstat_") || strings.HasPrefix(name, "cmdstat_config") {
				continue
			}
			var usec float64
			for _, kv := range strings.Split(stats, ",") {
				if v, ok := strings.CutPrefix(kv, "usec="); ok {
					usec, _ = strconv.ParseFloat(v, 64)
				}
			}
			if name == "cmdstat_evalsha" {
				script += usec
			} else {
				commands += usec
			}
		}
		return script / float64(n), commands / float64(n)
	}
	// the same keys and arguments, a script that answers at once as a created order
	empty := redis.NewScript("return {'HOLD', '', '0', '0', 'OK', '1'}")
	b.ResetTimer()
	script, commands := measure(redis.NewScript(lua.Order), b.N)
	floor, _ := measure(redis.NewScript(loadtest.OrderFloor), b.N)
	base, _ := measure(empty, b.N)
	b.ReportMetric(script, "redis_µs/order")
	b.ReportMetric(commands, "commands_µs/order")
	b.ReportMetric(floor, "commands_only_script_µs/call")
	b.ReportMetric(base, "empty_script_µs/call")
}
