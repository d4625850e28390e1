package loadtest

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// auditRedisDB is the Redis DB of the audit test (flushed first): the package's one,
// which the smoke test uses too; the web browser tests own DB 10.
const auditRedisDB = smokeRedisDB

// newAuditRun returns a run over a fresh database seatflow_loadtest_audit<suffix> with
// the migrations applied and Redis DB auditRedisDB of SEATFLOW_TEST_REDIS_ADDR, flushed.
func newAuditRun(t *testing.T) *run {
	t.Helper()
	ctx := context.Background()
	base := os.Getenv("SEATFLOW_TEST_MYSQL_DSN_BASE")
	if base == "" {
		base = "root@tcp(127.0.0.1:3306)/"
	}
	dsn := base + "seatflow_loadtest_audit" + os.Getenv("SEATFLOW_TEST_SUFFIX")
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	name := cfg.DBName
	cfg.DBName = ""
	admin, err := store.OpenDB(cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec("DROP DATABASE IF EXISTS `" + name + "`"); err != nil {
		t.Skipf("no MariaDB: %v", err)
	}
	if err := store.EnsureDatabase(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	db, err := store.OpenDB(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := store.Migrate(ctx, db, services.Cinema{Name: "seatflow", TimeZone: "UTC", Currency: "CNY"}); err != nil {
		t.Fatal(err)
	}
	addr := os.Getenv("SEATFLOW_TEST_REDIS_ADDR")
	if addr == "" {
		addr = "127.0.0.1:6379"
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr, DB: auditRedisDB})
	t.Cleanup(func() { rdb.Close() })
	if err := rdb.FlushDB(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	r := &run{opts: Options{Currency: "CNY", KeyPrefix: "lt"}, db: db, rdb: rdb, catalog: catalog.NewCatalog(db)}
	r.store = seats.NewSeatStore(rdb, db, r.catalog, "lt")
	return r
}

// line returns the count of the audit line whose check starts with prefix.
func line(t *testing.T, lines []AuditLine, prefix string) int64 {
	t.Helper()
	for _, l := range lines {
		if strings.HasPrefix(l.Check, prefix) {
			return l.Count
		}
	}
	t.Fatalf("no audit line %q in %+v", prefix, lines)
	return 0
}

func TestAudit_FindsEveryKindOfDrift(t *testing.T) {
	r := newAuditRun(t)
	ctx := context.Background()
	var err error
	if r.fx, err = NewFixtures(ctx, r.db, "audit", "CNY"); err != nil {
		t.Fatal(err)
	}
	hall, err := r.fx.NewHall(ctx, "audit", 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	var buyers []Buyer
	for i := 0; i < 3; i++ {
		res, err := r.db.Exec(`INSERT INTO users (email, name, password_hash, role, created_at) VALUES (?, 'b', 'x', 'customer', ?)`,
			"audit"+strconv.Itoa(i)+"@loadtest.example", time.Now().UTC())
		if err != nil {
			t.Fatal(err)
		}
		id, _ := res.LastInsertId()
		buyers = append(buyers, Buyer{ID: id})
	}
	show, err := r.fx.NewShow(ctx, hall, 4)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.fx.SellSeats(ctx, show, hall.Seats[:8], buyers[:2], 4); err != nil {
		t.Fatal(err)
	}
	if err := r.store.Load(ctx, show); err != nil {
		t.Fatal(err)
	}
	seatsKey := r.store.Keys(show)[0]
	free, sold := strconv.FormatInt(hall.Seats[10].ID, 10), strconv.FormatInt(hall.Seats[0].ID, 10)
	soldValue, err := r.rdb.HGet(ctx, seatsKey, sold).Result()
	if err != nil {
		t.Fatal(err)
	}

	t.Run("clean show: every line 0", func(t *testing.T) {
		for _, l := range r.audit(ctx, show, 8, 2, 0) {
			if l.Failed() {
				t.Errorf("%s = %d", l.Check, l.Count)
			}
		}
	})
	cases := []struct {
		name           string
		seats, orders  int64
		tamper, repair func() error
		check          string
	}{
		{"a hold in Redis without an order", 8, 2,
			func() error {
				return r.rdb.HSet(ctx, seatsKey, free, seats.EncodeSeat(false, "0000000010000AA", buyers[2].ID)).Err()
			},
			func() error { return r.rdb.HSet(ctx, seatsKey, free, "F").Err() }, "holds without orders"},
		{"a sold seat free in Redis", 8, 2,
			func() error { return r.rdb.HSet(ctx, seatsKey, sold, "F").Err() },
			func() error { return r.rdb.HSet(ctx, seatsKey, sold, soldValue).Err() }, "seats where MySQL and Redis differ"},
		{"a buyer over the purchase limit", 9, 3,
			func() error {
				now := time.Now().UTC()
				return insertOrder(ctx, r.db, services.NewOrderNo(now), buyers[0].ID, show, services.OrderPaid, 1, "CNY", now, hall.Seats[9:10], true)
			},
			func() error {
				_, err := r.db.Exec(`UPDATE order_seats SET live = NULL WHERE show_id = ? AND seat_id = ?`, show, hall.Seats[9].ID)
				if err == nil {
					_, err = r.db.Exec(`UPDATE orders o SET status = 'cancelled' WHERE show_id = ? AND NOT EXISTS
						(SELECT 1 FROM order_seats os WHERE os.order_id = o.id AND os.live = 1)`, show)
				}
				return err
			}, "users over the purchase limit"},
		{"fewer seats sold than the clients saw created", 9, 2, nil, nil, "seats sold in MySQL"},
		{"more orders seen than MySQL has", 8, 3, nil, nil, "live orders in MySQL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.tamper != nil {
				if err := c.tamper(); err != nil {
					t.Fatal(err)
				}
				defer func() {
					if err := c.repair(); err != nil {
						t.Fatal(err)
					}
				}()
			}
			if n := line(t, r.audit(ctx, show, c.seats, c.orders, 0), c.check); n == 0 {
				t.Fatalf("%q is 0", c.check)
			}
		})
	}
}
