package web

import (
	"strings"
	"testing"
)

// TestConfig_RedisClusterRules: one address is a single node; several (or
// SEATFLOW_REDIS_CLUSTER) a cluster, which needs database 0 and asynq's own node; asynq's
// address is one host:port.
func TestConfig_RedisClusterRules(t *testing.T) {
	cases := []struct {
		name      string
		addr      string
		cluster   bool
		db        int
		asynq     string
		isCluster bool
		separate  bool
		err       string // a part of the error; "" when valid
	}{
		{"single node", "127.0.0.1:6379", false, 3, "", false, false, ""},
		{"single node, asynq apart", "127.0.0.1:6379", false, 0, "127.0.0.1:6390", false, true, ""},
		{"cluster", "10.0.0.1:7001, 10.0.0.2:7002,10.0.0.3:7003", false, 0, "10.0.0.9:6379", true, true, ""},
		{"forced cluster, one seed", "10.0.0.1:7001", true, 0, "10.0.0.9:6379", true, true, ""},
		{"cluster without asynq's node", "10.0.0.1:7001,10.0.0.2:7002", false, 0, "", true, false, "SEATFLOW_ASYNQ_REDIS_ADDR is needed"},
		{"cluster with a database", "10.0.0.1:7001,10.0.0.2:7002", false, 2, "10.0.0.9:6379", true, true, "database 0 only"},
		{"forced cluster with a database", "10.0.0.1:7001", true, 1, "10.0.0.9:6379", true, true, "database 0 only"},
		{"address without a port", "redis", false, 0, "", false, false, "not host:port"},
		{"two asynq nodes", "127.0.0.1:6379", false, 0, "a:1,b:2", false, true, "not one host:port"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Config{RedisAddr: tc.addr, RedisCluster: tc.cluster, RedisDB: tc.db, AsynqRedisAddr: tc.asynq}
			err := c.validateRedis()
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("validateRedis: %v, want %q", err, tc.err)
			}
			if err != nil {
				return
			}
			conn, _ := c.Redis()
			if conn.IsCluster() != tc.isCluster {
				t.Errorf("cluster %v, want %v (%v)", conn.IsCluster(), tc.isCluster, conn.Addrs)
			}
			if _, separate := c.AsynqRedis(); separate != tc.separate {
				t.Errorf("asynq apart %v, want %v", separate, tc.separate)
			}
		})
	}
}
