package loadtest

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// CeilingRedisOrderFloor names the ceiling of OrderFloor: the Redis commands of a
// created order alone, at the scenarios' concurrency.
const CeilingRedisOrderFloor = "redis_order_floor"

// OrderFloor is a measuring stick, never run by the product: the Redis commands of a
// created order of lua.Order with the same keys and arguments, and nothing else. See
// order_floor.lua; BenchmarkOrderScript_RedisTimePerCall runs it beside lua.Order.
//
//go:embed order_floor.lua
var OrderFloor string

// OrderFloorArgs are the keys and arguments of a created order of lua.Order, as the
// flash sale sends them, for the order numbered o of a show whose keys key names: 2
// seats side by side (o-th pair of a map filled from seat 1, rows of cols seats, in zone
// "standard"), an Idempotency-Key and both rate limits counted; odd o best-available's
// (the single-seat rule enforced on the pair's row window), even o chosen seats with the
// precheck. users and keys bound the buyers and Idempotency-Keys used (o cycles
// through them).
func OrderFloorArgs(key func(string) string, o, cols, users, keys int) ([]string, []any) {
	u := strconv.Itoa(1 + o%users)
	idem := "k" + strconv.Itoa(o%keys)
	ks := []string{key("seats"), key("zones"), key("users"), key("waitlist"), key("rl:user:" + u), key("rl:show"),
		key("idem:" + u + ":" + idem), key("idem-seen:" + u + ":" + idem), key("idem-epoch"), key("vouchers")}
	first := 1 + 2*o
	row := (first - 1) / cols
	pair := []any{strconv.Itoa(first), "standard", strconv.Itoa(first + 1), "standard"}
	no := fmt.Sprintf("ORDER%09d", o)
	if o%2 == 0 {
		return ks, append([]any{"ksp|1000000|1000000|60|1000000|1000000|1|token|15000|90000|||||", no, u, "100"}, pair...)
	}
	lo, hi := row*cols+1, (row+1)*cols
	window := fmt.Sprintf("%d-%d:standard/%d-%d:standard", max(first-2, lo), min(first+3, hi), lo, hi)
	return ks, append([]any{"ks|1000000|1000000|60|1000000|1000000|1|token|15000|90000|standard|2|||", no, u, "100|enforce|1|"},
		append(pair, window)...)
}

// runRedisOrderFloorCeiling measures OrderFloor on a scratch show of ceilingSeats free
// seats (rows of 200): each call writes the next pair (cycling), for one of 2,000
// buyers, with one of 1,000 Idempotency-Keys. Its Redis µs per call is what the flash
// sale's order script would cost Redis at the same load with no Lua of its own.
func (r *run) runRedisOrderFloorCeiling(ctx context.Context) (*Result, error) {
	const cols, users, keys = 200, 2000, 1000
	key := func(name string) string { return "loadtest:floor:{show:0}:" + name }
	var scratch []string
	seen := map[string]bool{}
	for o := range users { // every buyer and key the calls name (keys divides users)
		ks, _ := OrderFloorArgs(key, o, cols, users, keys)
		for _, k := range ks {
			if !seen[k] {
				seen[k] = true
				scratch = append(scratch, k)
			}
		}
	}
	clean := func(ctx context.Context) error {
		pipe := r.rdb.Pipeline()
		for _, k := range scratch {
			pipe.Del(ctx, k)
		}
		_, err := pipe.Exec(ctx)
		return err
	}
	if err := clean(ctx); err != nil {
		return nil, fmt.Errorf("redis order floor: %w", err)
	}
	defer clean(context.WithoutCancel(ctx))
	pipe := r.rdb.Pipeline()
	for i := 1; i <= ceilingSeats; i++ {
		pipe.HSet(ctx, key("seats"), strconv.Itoa(i), "F")
	}
	pipe.HSet(ctx, key("zones"), "standard", strconv.Itoa(ceilingSeats), "_", "0")
	pipe.HSet(ctx, key("users"), "_", "0")
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("redis order floor map: %w", err)
	}
	floor := redis.NewScript(OrderFloor)
	if err := floor.Load(ctx, r.rdb).Err(); err != nil {
		return nil, fmt.Errorf("redis order floor: %w", err)
	}
	var next atomic.Int64
	return r.measure(ctx, CeilingRedisOrderFloor, "the Redis commands of a created order alone (lua order script's, no Lua logic)", "script calls",
		func(ctx context.Context, w int) step {
			o := int(next.Add(1)-1) % (ceilingSeats / 2)
			ks, args := OrderFloorArgs(key, o, cols, users, keys)
			if err := floor.Run(ctx, r.rdb, ks, args...).Err(); err != nil {
				return step{o: OutError, code: "redis", detail: err.Error()}
			}
			return step{o: OutOK, code: "reply"}
		})
}
