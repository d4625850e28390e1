package main

import (
	"strings"
	"testing"
	"time"

	"seatflow/web"
)

func TestLoadtestFlags(t *testing.T) {
	cfg := web.Config{MySQLDSN: "app:pw@tcp(db:3306)/seatflow", RedisAddr: "r:6379", RedisDB: 2, KeyPrefix: "sf", Currency: "EUR"}
	cases := []struct {
		name  string
		args  []string
		runs  int
		check func(t *testing.T, dsn, redisAddr string, redisDB int, exe, out string, scenarios []string, d time.Duration, clients int)
	}{
		{"own server: its own database and Redis DB", nil, 1, func(t *testing.T, dsn, addr string, db int, exe, out string, sc []string, d time.Duration, clients int) {
			if !strings.HasSuffix(dsn, "/seatflow_loadtest") || !strings.HasPrefix(dsn, "app:pw@tcp(db:3306)") {
				t.Errorf("dsn %q: want the configured server with the database seatflow_loadtest", dsn)
			}
			if addr != "r:6379" || db != loadtestRedisDB || exe == "" {
				t.Errorf("redis %s db %d, executable %q", addr, db, exe)
			}
			if !strings.HasPrefix(out, "loadtest-results/") || strings.Join(sc, ",") != "flash,flash-mixed,soldout,hotseats,seatmap,seatmap-400,v1" || d != 10*time.Second || clients != 32 {
				t.Errorf("out %q, scenarios %v, duration %v, clients %d", out, sc, d, clients)
			}
		}},
		{"-base: the server's own stores, no binary started", []string{"-base", "http://x:8080", "-scenarios", "flash, v1", "-duration", "3s", "-clients", "16", "-runs", "3"}, 3,
			func(t *testing.T, dsn, addr string, db int, exe, out string, sc []string, d time.Duration, clients int) {
				if dsn != cfg.MySQLDSN || db != 2 || exe != "" {
					t.Errorf("dsn %q db %d executable %q", dsn, db, exe)
				}
				if strings.Join(sc, ",") != "flash,v1" || d != 3*time.Second || clients != 16 {
					t.Errorf("scenarios %v, duration %v, clients %d", sc, d, clients)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := loadtestFlags(cfg, c.args)
			if err != nil {
				t.Fatal(err)
			}
			if o.Currency != "EUR" || o.KeyPrefix != "sf" {
				t.Errorf("currency %q prefix %q: want the server's", o.Currency, o.KeyPrefix)
			}
			c.check(t, o.MySQLDSN, o.RedisAddr, o.RedisDB, o.Executable, o.Out, o.Scenarios, o.Duration, o.Clients)
			if o.Runs != c.runs {
				t.Errorf("runs %d, want %d", o.Runs, c.runs)
			}
		})
	}
	t.Run("-runs below 1 is an error", func(t *testing.T) {
		if _, err := loadtestFlags(cfg, []string{"-runs", "0"}); err == nil {
			t.Fatal("want an error")
		}
	})
	t.Run("a stray argument is an error", func(t *testing.T) {
		if _, err := loadtestFlags(cfg, []string{"flash"}); err == nil {
			t.Fatal("want an error")
		}
	})
}
