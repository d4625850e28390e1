package loadtest

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// redisCommandTimes reads Redis's INFO commandstats: µs spent executing each command
// since its statistics were reset (network and the server's own work excluded; a
// command a script runs counts both under its name and in the script's EVALSHA). nil
// when rdb is not one node (a cluster's figures are per node) or the read fails.
func redisCommandTimes(ctx context.Context, rdb redis.UniversalClient) map[string]int64 {
	one, ok := rdb.(*redis.Client)
	if !ok {
		return nil
	}
	info, err := one.Info(ctx, "commandstats").Result()
	if err != nil {
		return nil
	}
	out := map[string]int64{}
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		for _, kv := range strings.Split(rest, ",") {
			if v, ok := strings.CutPrefix(kv, "usec="); ok {
				if us, err := strconv.ParseInt(v, 10, 64); err == nil {
					out[strings.TrimPrefix(name, "cmdstat_")] = us
				}
			}
		}
	}
	return out
}

// perOpCommands says, for the most costly commands between two redisCommandTimes
// readings, how many µs each cost per operation of ops (most first, at most n): e.g.
// "evalsha 2.1 µs, hgetall 0.9 µs"; "" when either reading is missing.
func perOpCommands(before, after map[string]int64, ops int64, n int) string {
	if before == nil || after == nil || ops <= 0 {
		return ""
	}
	type cost struct {
		name string
		us   int64
	}
	var all []cost
	for name, a := range after {
		if d := a - before[name]; d > 0 {
			all = append(all, cost{name, d})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		return all[i].us > all[j].us || all[i].us == all[j].us && all[i].name < all[j].name
	})
	parts := make([]string, 0, n)
	for i := 0; i < len(all) && i < n; i++ {
		parts = append(parts, fmt.Sprintf("%s %.2f µs", all[i].name, float64(all[i].us)/float64(ops)))
	}
	return strings.Join(parts, ", ")
}
