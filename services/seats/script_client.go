package seats

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// scriptCaller runs the seat scripts of runOn (hold, order, sell, exchange). Their calls
// go through rdb's autopipeliner: the calls made at the same moment leave as one
// pipeline, one batch in flight at a time, in the order they were made. A lone call
// still goes at once; in a storm of refusals one write and one read of the socket carry
// many calls, where each used to pay its own (those system calls were the larger part
// of a refusal's server and Redis CPU, BENCHMARKS.md). Each script still runs alone
// and atomically in Redis (a pipeline is not a transaction), and each call gets its
// own reply or error. A Redis Cluster client calls directly: `make cluster-bench` (3
// instances at 0.15 CPU each) measured fewer created orders and refusals and more Redis
// CPU per created order with the autopipeliner than without (BENCHMARKS.md).
type scriptCaller struct {
	rdb redis.UniversalClient
	ap  *redis.AutoPipeliner // the deferred face, whose futures wait on a context
}

// newScriptCaller returns the caller of rdb's seat scripts: through its autopipeliner
// on one node, directly on a cluster (or a client without one, a Ring).
func newScriptCaller(rdb redis.UniversalClient) scriptCaller {
	if _, cluster := rdb.(*redis.ClusterClient); cluster {
		return scriptCaller{rdb: rdb}
	}
	ap, err := rdb.AsyncAutoPipeline()
	if err != nil {
		return scriptCaller{rdb: rdb}
	}
	return scriptCaller{rdb: rdb, ap: ap}
}

// run runs sc on keys with args (EVALSHA) and waits for its reply until ctx ends; then
// the reply is ctx's error, and the script may still run once Redis reads it, as a
// direct call whose reply was lost. NOSCRIPT (Redis lost its scripts): Script.Run on rdb,
// which sends the source.
func (c scriptCaller) run(ctx context.Context, sc *redis.Script, keys []string, args []any) *redis.Cmd {
	if c.ap == nil {
		return sc.Run(ctx, c.rdb, keys, args...)
	}
	cmdArgs := make([]any, 0, 3+len(keys)+len(args))
	cmdArgs = append(cmdArgs, "evalsha", sc.Hash(), len(keys))
	for _, k := range keys {
		cmdArgs = append(cmdArgs, k)
	}
	cmd := redis.NewCmd(ctx, append(cmdArgs, args...)...)
	cmd.SetFirstKeyPos(3) // as go-redis's own EVALSHA: its first key names the slot
	if err := c.ap.Submit(ctx, cmd).WaitContext(ctx); err != nil && ctx.Err() != nil {
		abandoned := redis.NewCmd(ctx)
		abandoned.SetErr(ctx.Err())
		return abandoned
	}
	if redis.HasErrorPrefix(cmd.Err(), "NOSCRIPT") {
		return sc.Run(ctx, c.rdb, keys, args...)
	}
	return cmd
}
