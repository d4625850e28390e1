package loadtest

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"seatflow/lua"
	"seatflow/services"
)

// The ceilings of this machine, measured in the same run with the same clients and
// concurrency as the scenarios: what the raw building blocks do with nothing around them.

// Ceiling names as the report and the targets use them.
const (
	CeilingRedis      = "redis"
	CeilingMySQL      = "mysql"
	CeilingMySQLBatch = "mysql_batch"
	CeilingHTTP       = "http"
)

// DefaultMySQLBatch is the batch size of the mysql_batch ceiling: the orders a group
// commit holds at 32 clients ordering 2 seats each (the mean of
// seatflow_order_commit_batch_orders in the flash sale).
const DefaultMySQLBatch = 8

// ceilingKeys are the scratch keys of the raw hold script (one show's three hashes).
var ceilingKeys = []string{"loadtest:ceiling:{show:0}:seats", "loadtest:ceiling:{show:0}:zones", "loadtest:ceiling:{show:0}:users"}

// ceilingSeats is the size of the scratch seat map of the hold script ceiling.
const ceilingSeats = 20000

// runRedisCeiling measures raw EVALSHA of the hold script on a scratch seat map: each
// call holds the next seat (once every seat is held the script answers TAKEN, the same
// work) for a random user.
func (r *run) runRedisCeiling(ctx context.Context) (*Result, error) {
	rdb := r.rdb
	if err := rdb.Del(ctx, ceilingKeys...).Err(); err != nil {
		return nil, fmt.Errorf("redis ceiling: %w", err)
	}
	defer rdb.Del(context.WithoutCancel(ctx), ceilingKeys...)
	pipe := rdb.Pipeline()
	for i := 1; i <= ceilingSeats; i++ {
		pipe.HSet(ctx, ceilingKeys[0], strconv.Itoa(i), "F")
	}
	pipe.HSet(ctx, ceilingKeys[0], "_", "0")
	pipe.HSet(ctx, ceilingKeys[1], "_", "0", "z", strconv.Itoa(ceilingSeats))
	pipe.HSet(ctx, ceilingKeys[2], "_", "0")
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("redis ceiling map: %w", err)
	}
	// Script.Run: EVALSHA, loading the script on the node that answers NOSCRIPT (one
	// node of a cluster may not have it yet)
	hold := redis.NewScript(lua.Hold)
	if err := hold.Load(ctx, rdb).Err(); err != nil {
		return nil, fmt.Errorf("redis ceiling: %w", err)
	}
	var next atomic.Int64
	return r.measure(ctx, CeilingRedis, "raw EVALSHA of the hold script", "script calls", func(ctx context.Context, w int) step {
		k := next.Add(1)
		seat := strconv.FormatInt(k%ceilingSeats+1, 10)
		no := services.NewOrderNo(time.Now())
		err := hold.Run(ctx, rdb, ceilingKeys, no, strconv.FormatInt(k%1000000, 10), "4", seat, "z").Err()
		if err != nil {
			return step{o: OutError, code: "redis", detail: err.Error()}
		}
		return step{o: OutOK, code: "reply", detail: ""}
	})
}

// runMySQLCeiling measures a raw MariaDB transaction inserting one order (1 to 4 seats,
// cycling) on a scratch show; the rows are written as cancelled and released so they
// never count as sold.
func (r *run) runMySQLCeiling(ctx context.Context) (*Result, error) {
	show, err := r.fx.NewShow(ctx, r.big, 4)
	if err != nil {
		return nil, err
	}
	seats := r.big.Seats
	var next atomic.Int64
	res, err := r.measure(ctx, CeilingMySQL, "raw MariaDB transaction: one order and its seats", "transactions", func(ctx context.Context, w int) step {
		k := int(next.Add(1))
		n := k%4 + 1
		i := (k * 4) % (len(seats) - 4)
		now := time.Now().UTC()
		err := insertOrder(ctx, r.db, services.NewOrderNo(now), r.buyers[k%len(r.buyers)].ID, show, services.OrderCancelled, 6000,
			r.opts.Currency, now, seats[i:i+n], false)
		if err != nil {
			return step{o: OutError, code: "mysql", detail: err.Error()}
		}
		return step{o: OutOK, code: "commit", detail: ""}
	})
	return res, err
}

// runMySQLBatchCeiling measures a raw MariaDB transaction inserting a batch of
// Options.MySQLBatch orders of 2 seats each with the group commit's two multi-row
// INSERTs (orders.InsertOrders: the orders, then their seats) and nothing else, on a
// scratch show; rows are written cancelled and released. Its OK counts orders (each
// transaction adds the batch's size), so its rate and µs/op compare with a created
// order; its latencies are a transaction's.
func (r *run) runMySQLBatchCeiling(ctx context.Context) (*Result, error) {
	show, err := r.fx.NewShow(ctx, r.big, 4)
	if err != nil {
		return nil, err
	}
	seats, n := r.big.Seats, r.opts.MySQLBatch
	var next atomic.Int64
	title := fmt.Sprintf("raw MariaDB transaction: a batch of %d orders of 2 seats (two multi-row INSERTs)", n)
	res, err := r.measure(ctx, CeilingMySQLBatch, title, "orders", func(ctx context.Context, w int) step {
		k := int(next.Add(1))
		now := time.Now().UTC()
		list := make([]*services.Order, n)
		for j := range list {
			i := ((k*n + j) * 2) % (len(seats) - 2)
			o := &services.Order{OrderNo: services.NewOrderNo(now), UserID: r.buyers[(k*n+j)%len(r.buyers)].ID, ShowID: show,
				Status: services.OrderCancelled, TotalMinor: 6000, Currency: r.opts.Currency, CreatedAt: now, ExpiresAt: now.Add(15 * time.Minute)}
			for _, s := range seats[i : i+2] {
				o.Seats = append(o.Seats, services.OrderSeat{SeatID: s.ID, ZoneCode: s.Zone, PriceMinor: fixturePrices[s.Zone]})
			}
			list[j] = o
		}
		if err := insertBatch(ctx, r.db, list); err != nil {
			return step{o: OutError, code: "mysql", detail: err.Error()}
		}
		return step{o: OutOK, code: "commit", detail: ""}
	})
	if res != nil {
		perOrder(res, n)
	}
	return res, err
}

// perOrder turns a result counting transactions of n orders into one counting orders.
func perOrder(res *Result, n int) {
	res.OK *= int64(n)
	for i := range res.PerSecond {
		res.PerSecond[i] *= int64(n)
	}
	res.Notes = append(res.Notes, fmt.Sprintf("ok counts orders, %d per transaction; latencies are a transaction's", n))
}

// runHTTPCeiling measures GET /healthz, a no-op of the same server framework, with the
// scenarios' client: the HTTP ceiling of this machine.
func (r *run) runHTTPCeiling(ctx context.Context) (*Result, error) {
	return r.measure(ctx, CeilingHTTP, "HTTP no-op (GET /healthz)", "answers", func(ctx context.Context, w int) step {
		a, err := r.client.Do(ctx, "GET", "/healthz", "", "", nil, false)
		if err != nil {
			return step{o: OutError, code: "transport", detail: err.Error()}
		}
		if a.Status != 200 {
			return step{o: OutError, code: strconv.Itoa(a.Status), detail: "healthz"}
		}
		return step{o: OutOK, code: "200", detail: ""}
	})
}
