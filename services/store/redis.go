package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisConn says how to reach seatflow's Redis: one node, or a Redis Cluster.
type RedisConn struct {
	// Addrs are the host:port addresses of SEATFLOW_REDIS_ADDR (ParseRedisAddrs): one
	// node, or a cluster's seed nodes.
	Addrs    []string
	Password string
	// DB is the database number of a single node; a cluster has database 0 only.
	DB int
	// Cluster forces the cluster client with a single seed address
	// (SEATFLOW_REDIS_CLUSTER).
	Cluster bool
	// PoolSize is the connection pool of each node (0: go-redis's default).
	PoolSize int
	// DialTimeout, ReadTimeout and WriteTimeout are go-redis's (0: its defaults).
	DialTimeout, ReadTimeout, WriteTimeout time.Duration
	// MaxRetries is go-redis's (0: its default; -1: no retries).
	MaxRetries int
}

// ParseRedisAddrs splits a comma-separated list of host:port addresses, dropping blanks
// and spaces. Errors: no address, or an address without a port.
func ParseRedisAddrs(s string) ([]string, error) {
	var out []string
	for _, a := range strings.Split(s, ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if i := strings.LastIndex(a, ":"); i <= 0 || i == len(a)-1 {
			return nil, fmt.Errorf("redis address %q is not host:port", a)
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, errors.New("no redis address")
	}
	return out, nil
}

// IsCluster reports whether c names a Redis Cluster: several seed addresses, or Cluster
// set.
func (c RedisConn) IsCluster() bool { return c.Cluster || len(c.Addrs) > 1 }

// Validate returns why c cannot work: no address, or a database other than 0 on a
// cluster (a cluster has database 0 only).
func (c RedisConn) Validate() error {
	if len(c.Addrs) == 0 {
		return errors.New("no redis address")
	}
	if c.IsCluster() && c.DB != 0 {
		return fmt.Errorf("a Redis Cluster has database 0 only, but database %d is asked for", c.DB)
	}
	return nil
}

// NewRedis returns the client c names: go-redis's ClusterClient for a cluster (it
// follows MOVED and ASK, and loads a script on each node Script.Run meets), else a
// single-node Client. Errors: those of Validate.
func NewRedis(c RedisConn) (redis.UniversalClient, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return redis.NewUniversalClient(&redis.UniversalOptions{
		Addrs: c.Addrs, Password: c.Password, DB: c.DB, IsClusterMode: c.IsCluster(),
		PoolSize: c.PoolSize, DialTimeout: c.DialTimeout, ReadTimeout: c.ReadTimeout,
		WriteTimeout: c.WriteTimeout, MaxRetries: c.MaxRetries,
	}), nil
}

// ForEachMaster runs f on every master of a cluster client, at the same time, or once
// on rdb itself when it is a single node. Commands that see one node's keys only (SCAN,
// INFO, KEYS) go through it. Errors: the first of f's.
func ForEachMaster(ctx context.Context, rdb redis.UniversalClient, f func(ctx context.Context, node redis.UniversalClient) error) error {
	if cc, ok := rdb.(*redis.ClusterClient); ok {
		return cc.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error { return f(ctx, node) })
	}
	return f(ctx, rdb)
}

// IsClusterClient reports whether rdb is a cluster client.
func IsClusterClient(rdb redis.UniversalClient) bool {
	_, ok := rdb.(*redis.ClusterClient)
	return ok
}
