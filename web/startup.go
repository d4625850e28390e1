package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"

	"seatflow/services/store"
)

// WaitForStores waits until MySQL answers (creating the database when it is missing)
// and Redis answers, retrying with exponential back-off (0.5 s growing to 5 s) for at
// most cfg.StartupTimeout. Every failed attempt is logged with the DSN's password
// hidden. A wrong password, a refused grant or an unreadable DSN is not retried.
// Errors: the last failure, naming the store and its redacted address.
func WaitForStores(ctx context.Context, cfg Config, log *slog.Logger) error {
	if _, err := mysql.ParseDSN(cfg.MySQLDSN); err != nil {
		return fmt.Errorf("SEATFLOW_MYSQL_DSN does not parse: %w", err)
	}
	dsn := store.RedactDSN(cfg.MySQLDSN)
	wait := func(what string, try func(context.Context) error) error {
		b := backoff.NewExponentialBackOff()
		b.InitialInterval, b.MaxInterval, b.MaxElapsedTime = 500*time.Millisecond, 5*time.Second, cfg.StartupTimeout
		attempt := 0
		return backoff.Retry(func() error {
			attempt++
			actx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			raw := try(actx)
			if raw == nil {
				return nil
			}
			err := errors.New(what + ": " + store.RedactSecret(raw.Error(), cfg.MySQLDSN))
			if permanent(raw) {
				return backoff.Permanent(err)
			}
			log.Warn("waiting for "+what, "attempt", attempt, "err", err)
			return err
		}, backoff.WithContext(b, ctx))
	}
	if err := wait("mysql at "+dsn, func(ctx context.Context) error { return store.EnsureDatabase(ctx, cfg.MySQLDSN) }); err != nil {
		return err
	}
	conn, err := cfg.Redis()
	if err != nil {
		return backoff.Permanent(fmt.Errorf("SEATFLOW_REDIS_ADDR: %w", err))
	}
	conn.MaxRetries = -1
	rdb, err := store.NewRedis(conn)
	if err != nil {
		return err
	}
	defer rdb.Close()
	what := "redis at " + cfg.RedisAddr
	if conn.IsCluster() {
		what = "redis cluster at " + cfg.RedisAddr
	}
	if err := wait(what, func(ctx context.Context) error { return redisReady(ctx, rdb) }); err != nil {
		return err
	}
	if opts, separate := cfg.AsynqRedis(); separate {
		opts.MaxRetries = -1
		q := redis.NewClient(opts)
		defer q.Close()
		return wait("asynq's redis at "+opts.Addr, func(ctx context.Context) error { return q.Ping(ctx).Err() })
	}
	return nil
}

// redisReady pings a single node; of a cluster it asks CLUSTER INFO and every master,
// so start-up waits until the cluster is formed (cluster_state:ok) and all its masters
// answer.
func redisReady(ctx context.Context, rdb redis.UniversalClient) error {
	cc, ok := rdb.(*redis.ClusterClient)
	if !ok {
		return rdb.Ping(ctx).Err()
	}
	info, err := cc.ClusterInfo(ctx).Result()
	if err != nil {
		return err
	}
	if !strings.Contains(info, "cluster_state:ok") {
		return errors.New("cluster_state is not ok")
	}
	cc.ReloadState(ctx)
	return cc.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error { return node.Ping(ctx).Err() })
}

// permanent reports whether waiting cannot help: a wrong password or a missing grant
// (MySQL 1044, 1045).
func permanent(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1044 || me.Number == 1045)
}

// startInstance enters this process in the registry of live instances with a first beat
// (logged when Redis does not answer; the heartbeat retries), before it serves anything.
func startInstance(ctx context.Context, rdb redis.UniversalClient, prefix string, log *slog.Logger) *store.Instances {
	in := store.NewInstances(rdb, prefix, store.CreatesInFlight)
	if _, err := in.Beat(ctx); err != nil {
		log.Warn("instance heartbeat: first beat failed", "err", err)
	}
	return in
}

// faultSeen starts a reconciliation run at once after a fault the heartbeat noticed (an
// instance died, the registry was lost with a Redis node's data, the cluster's topology
// changed), and once more after a lost registry lists every live instance again, so
// that holds of creates nobody is committing any more are released within seconds.
func (a *App) faultSeen(reason string) {
	a.Log.Info("fault noticed: reconciliation runs now", "reason", reason)
	a.scheduler.Nudge(reason)
	if reason == "registry lost" {
		time.AfterFunc(store.InstanceLapse+time.Second, func() { a.scheduler.Nudge(reason) })
	}
}
