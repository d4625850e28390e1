package services

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Helpers shared by the invariant tests (invariant*_test.go). They only add to the
// test environment of testenv_test.go; none changes an existing helper.

var bulkSeq atomic.Int64

// bulkUsers inserts n customer accounts with multi-row INSERTs (no bcrypt: the hash is
// unusable, nobody logs in as them) and returns their ids in creation order.
func (e *testEnv) bulkUsers(n int) []int64 {
	e.t.Helper()
	prefix := fmt.Sprintf("bulk-%d-%d-", time.Now().UnixNano(), bulkSeq.Add(1))
	for done := 0; done < n; {
		chunk := min(1000, n-done)
		var b strings.Builder
		b.WriteString("INSERT INTO users (email, name, password_hash, role, created_at) VALUES ")
		args := make([]any, 0, 2*chunk)
		for i := 0; i < chunk; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(?, 'Bulk', '!unusable', 'customer', ?)")
			args = append(args, fmt.Sprintf("%s%06d@test.example", prefix, done+i), e.clock.Now())
		}
		e.exec(b.String(), args...)
		done += chunk
	}
	var ids []int64
	if err := e.db.Select(&ids, "SELECT id FROM users WHERE email LIKE ? ORDER BY email", prefix+"%"); err != nil {
		e.t.Fatal(err)
	}
	if len(ids) != n {
		e.t.Fatalf("bulkUsers: %d users created, want %d", len(ids), n)
	}
	return ids
}

// rowSpec is one row of a custom hall: seats is read left to right, one character per
// grid column: S standard, W wheelchair space, C companion seat, B blocked, '.' a gap
// (aisle). Zone is the zone code of every seat of the row.
type rowSpec struct {
	zone  string
	seats string
}

// makeLayout creates a hall named name with the given rows (row 1 first, labelled A,
// B, ...; seat numbers count seats, not gaps) and returns its layout from the catalog.
func (e *testEnv) makeLayout(name string, rows ...rowSpec) *Hall {
	e.t.Helper()
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r.seats))
	}
	hallID := e.exec("INSERT INTO halls (name, rows_n, cols_n) VALUES (?, ?, ?)", name, len(rows), cols)
	zones := map[string]int64{}
	for _, r := range rows {
		if _, ok := zones[r.zone]; !ok {
			zones[r.zone] = e.exec("INSERT INTO zones (hall_id, code, name) VALUES (?, ?, ?)", hallID, r.zone, strings.ToUpper(r.zone[:1])+r.zone[1:])
		}
	}
	kinds := map[byte]string{'S': KindStandard, 'W': KindWheelchair, 'C': KindCompanion, 'B': KindBlocked}
	for ri, r := range rows {
		n := 0
		for ci := 0; ci < len(r.seats); ci++ {
			kind, ok := kinds[r.seats[ci]]
			if !ok {
				continue
			}
			n++
			e.exec("INSERT INTO seats (hall_id, zone_id, row_no, col_no, label, kind) VALUES (?, ?, ?, ?, ?, ?)",
				hallID, zones[r.zone], ri+1, ci+1, fmt.Sprintf("%c%d", 'A'+ri, n), kind)
		}
	}
	h, err := e.catalog.Hall(context.Background(), hallID)
	if err != nil {
		e.t.Fatal(err)
	}
	return h
}

// onSaleShow makes a show on sale now in hall; nth keeps (hall, starts_at) unique when
// one hall gets several shows.
func (e *testEnv) onSaleShow(hallID int64, nth int) *Show {
	now := e.clock.Now()
	return e.makeShow(hallID, ShowOnSale, now.Add(-time.Hour), now.Add(48*time.Hour+time.Duration(nth)*time.Hour))
}

// hallSeatIDs returns the ids of seats of any hall by label.
func hallSeatIDs(t *testing.T, h *Hall, labels ...string) []int64 {
	t.Helper()
	out := make([]int64, 0, len(labels))
	for _, l := range labels {
		found := false
		for _, s := range h.Seats {
			if s.Label == l {
				out = append(out, s.ID)
				found = true
			}
		}
		if !found {
			t.Fatalf("hall %s has no seat %s", h.Name, l)
		}
	}
	return out
}

// sellable returns the ids of every sellable seat of the env's hall.
func (e *testEnv) sellable() []int64 {
	var out []int64
	for _, s := range e.hall.Seats {
		if s.Sellable() {
			out = append(out, s.ID)
		}
	}
	return out
}

// seatVal returns the raw Redis value of a seat of a show ("" when the field is missing).
func (e *testEnv) seatVal(showID, seatID int64) string {
	e.t.Helper()
	v, err := e.rdb.HGet(context.Background(), e.seats.Keys(showID)[0], strconv.FormatInt(seatID, 10)).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		e.t.Fatal(err)
	}
	return v
}

// userCount returns the Redis purchase-limit counter of a user for a show ("" when absent).
func (e *testEnv) userCount(showID, userID int64) string {
	e.t.Helper()
	v, _ := e.rdb.HGet(context.Background(), e.seats.Keys(showID)[2], strconv.FormatInt(userID, 10)).Result()
	return v
}

// zoneFree returns the Redis free counter of a zone of a show ("" when absent).
func (e *testEnv) zoneFree(showID int64, zone string) string {
	e.t.Helper()
	v, _ := e.rdb.HGet(context.Background(), e.seats.Keys(showID)[1], zone).Result()
	return v
}

// heldBy is the Redis value of a seat held by an order.
func heldBy(o *Order) string { return "H|" + o.OrderNo + "|" + strconv.FormatInt(o.UserID, 10) }

// soldTo is the Redis value of a seat sold to an order.
func soldTo(o *Order) string { return "S|" + o.OrderNo + "|" + strconv.FormatInt(o.UserID, 10) }

// redisState dumps every Redis key of the test DB except the rate limiter's buckets
// (which count attempts by design) as sorted text: each key with its type and full
// contents.
func (e *testEnv) redisState() string { return e.dumpRedis(false) }

// redisStateNorm is redisState with per-user counters of 0 left out: a hold that was
// written and then compensated (released after a failed insert) leaves such a field,
// which means exactly what an absent one means.
func (e *testEnv) redisStateNorm() string { return e.dumpRedis(true) }

func (e *testEnv) dumpRedis(dropZeroUsers bool) string {
	e.t.Helper()
	ctx := context.Background()
	keys, err := e.rdb.Keys(ctx, "*").Result()
	if err != nil {
		e.t.Fatal(err)
	}
	var lines []string
	for _, k := range keys {
		if strings.HasPrefix(k, "rate:") || strings.HasPrefix(k, "sf:rl:") {
			continue
		}
		switch typ := e.rdb.Type(ctx, k).Val(); typ {
		case "hash":
			for f, v := range e.rdb.HGetAll(ctx, k).Val() {
				if dropZeroUsers && v == "0" && f != "_" && strings.HasSuffix(k, ":users") {
					continue
				}
				lines = append(lines, k+" "+f+"="+v)
			}
		case "string":
			lines = append(lines, k+" = "+e.rdb.Get(ctx, k).Val())
		default:
			lines = append(lines, k+" ("+typ+")")
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}

// stateDiff lists the lines of two dumps that differ: "-" only before, "+" only after.
func stateDiff(before, after string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	b, a := in(before), in(after)
	var out []string
	for _, l := range strings.Split(before, "\n") {
		if !a[l] {
			out = append(out, "- "+l)
		}
	}
	for _, l := range strings.Split(after, "\n") {
		if !b[l] {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}

// dbState counts the rows an order attempt could write in MySQL.
func (e *testEnv) dbState() string {
	e.t.Helper()
	var b strings.Builder
	for _, q := range []string{
		"SELECT COUNT(*) FROM orders",
		"SELECT COUNT(*) FROM order_seats",
		"SELECT COUNT(*) FROM order_seats WHERE live = 1",
		"SELECT COUNT(*) FROM idempotency_keys",
		"SELECT COUNT(*) FROM payments",
		"SELECT COUNT(*) FROM orders WHERE status = 'pending'",
	} {
		var n int
		if err := e.db.Get(&n, q); err != nil {
			e.t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s = %d\n", q, n)
	}
	return b.String()
}

// state is the whole observable storage state: Redis (without rate-limit buckets) and
// the MySQL row counts.
func (e *testEnv) state() string { return e.redisState() + "--\n" + e.dbState() }

// orderStatus reads an order's status straight from MySQL.
func (e *testEnv) orderStatus(orderNo string) string {
	e.t.Helper()
	var s string
	if err := e.db.Get(&s, "SELECT status FROM orders WHERE order_no = ?", orderNo); err != nil {
		e.t.Fatal(err)
	}
	return s
}

// countOrders counts the orders of the env's show in MySQL.
func (e *testEnv) countOrders() int {
	e.t.Helper()
	var n int
	if err := e.db.Get(&n, "SELECT COUNT(*) FROM orders WHERE show_id = ?", e.show.ID); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// redisCRC16 is the CRC16-CCITT (XMODEM) checksum Redis Cluster hashes keys with.
func redisCRC16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for j := 0; j < 8; j++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// clusterSlot is the Redis Cluster hash slot of a key, honouring a {hash tag}.
func clusterSlot(key string) int {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	return int(redisCRC16(key) % 16384)
}

// quietLogs discards the service log of the env (races that end in refunded late
// payments log a warning per round).
func (e *testEnv) quietLogs() {
	l := slog.New(slog.NewTextHandler(io.Discard, nil))
	e.orders.SetLogger(l)
	e.payments.SetLogger(l)
}

// fullWidth spells printable ASCII with full-width forms (U+FF01..U+FF5E); other
// characters are kept.
func fullWidth(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r > ' ' && r < 0x7f {
			r += 0xFF01 - '!'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (e *testEnv) countRows(table string) int {
	e.t.Helper()
	var n int
	if err := e.db.Get(&n, "SELECT COUNT(*) FROM "+table); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// pay pays an order through the demo provider.
func (e *testEnv) pay(o *Order) {
	e.t.Helper()
	ctx := context.Background()
	p, _, err := e.payments.Start(ctx, o.UserID, o.OrderNo, "demo")
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.payments.DemoDecide(ctx, p.PaymentID, true); err != nil {
		e.t.Fatal(err)
	}
}

// findingsOf returns the run's findings of kind.
func findingsOf(run *ReconcileRun, kind string) []Finding {
	var out []Finding
	for _, f := range run.Findings {
		if f.Kind == kind {
			out = append(out, f)
		}
	}
	return out
}

// newReconciler builds a reconciler over the env with the default 60 s grace.
func newReconciler(e *testEnv, tasks ExpiryTasks) *Reconciler {
	return NewReconciler(e.db, e.catalog, e.seats, e.orders, e.clock, ReconcileConfig{Tasks: tasks})
}

// auditOf returns the audit entries of an entity, newest first.
func (e *testEnv) auditOf(entity, id string) []*AuditEntry {
	e.t.Helper()
	got, err := NewAudit(e.db, e.clock).List(context.Background(), AuditFilter{Entity: entity, EntityID: id})
	if err != nil {
		e.t.Fatal(err)
	}
	return got
}
