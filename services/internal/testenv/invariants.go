package testenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/reconcile"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// Helpers shared by the invariant tests (invariant*_test.go). They only add to the
// test environment of testenv_test.go; none changes an existing helper.

var BulkSeq atomic.Int64

// BulkUsers inserts n customer accounts with multi-row INSERTs (no bcrypt: the hash is
// unusable, nobody logs in as them) and returns their ids in creation order.
func (e *TestEnv) BulkUsers(n int) []int64 {
	e.T.Helper()
	prefix := fmt.Sprintf("bulk-%d-%d-", time.Now().UnixNano(), BulkSeq.Add(1))
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
			args = append(args, fmt.Sprintf("%s%06d@test.example", prefix, done+i), e.Clock.Now())
		}
		e.Exec(b.String(), args...)
		done += chunk
	}
	var ids []int64
	if err := e.DB.Select(&ids, "SELECT id FROM users WHERE email LIKE ? ORDER BY email", prefix+"%"); err != nil {
		e.T.Fatal(err)
	}
	if len(ids) != n {
		e.T.Fatalf("bulkUsers: %d users created, want %d", len(ids), n)
	}
	return ids
}

// RowSpec is one row of a custom hall: seats is read left to right, one character per
// grid column: S standard, W wheelchair space, C companion seat, B blocked, '.' a gap
// (aisle). Zone is the zone code of every seat of the row.
type RowSpec struct {
	Zone  string
	Seats string
}

// MakeLayout creates a hall named name with the given rows (row 1 first, labelled A,
// B, ...; seat numbers count seats, not gaps) and returns its layout from the catalog.
func (e *TestEnv) MakeLayout(name string, rows ...RowSpec) *services.Hall {
	e.T.Helper()
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r.Seats))
	}
	hallID := e.Exec("INSERT INTO halls (cinema_id, name, rows_n, cols_n) VALUES ((SELECT MIN(id) FROM cinemas), ?, ?, ?)", name, len(rows), cols)
	zones := map[string]int64{}
	for _, r := range rows {
		if _, ok := zones[r.Zone]; !ok {
			zones[r.Zone] = e.Exec("INSERT INTO zones (hall_id, code, name) VALUES (?, ?, ?)", hallID, r.Zone, strings.ToUpper(r.Zone[:1])+r.Zone[1:])
		}
	}
	kinds := map[byte]string{'S': services.KindStandard, 'W': services.KindWheelchair, 'C': services.KindCompanion, 'B': services.KindBlocked}
	for ri, r := range rows {
		n := 0
		for ci := 0; ci < len(r.Seats); ci++ {
			kind, ok := kinds[r.Seats[ci]]
			if !ok {
				continue
			}
			n++
			e.Exec("INSERT INTO seats (hall_id, zone_id, row_no, col_no, label, kind) VALUES (?, ?, ?, ?, ?, ?)",
				hallID, zones[r.Zone], ri+1, ci+1, fmt.Sprintf("%c%d", 'A'+ri, n), kind)
		}
	}
	h, err := e.Catalog.Hall(context.Background(), hallID)
	if err != nil {
		e.T.Fatal(err)
	}
	return h
}

// OnSaleShow makes a show on sale now in hall; nth keeps (hall, starts_at) unique when
// one hall gets several shows.
func (e *TestEnv) OnSaleShow(hallID int64, nth int) *services.Show {
	now := e.Clock.Now()
	return e.MakeShow(hallID, services.ShowOnSale, now.Add(-time.Hour), now.Add(48*time.Hour+time.Duration(nth)*time.Hour))
}

// HallSeatIDs returns the ids of seats of any hall by label.
func HallSeatIDs(t *testing.T, h *services.Hall, labels ...string) []int64 {
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

// Sellable returns the ids of every sellable seat of the env's hall.
func (e *TestEnv) Sellable() []int64 {
	var out []int64
	for _, s := range e.Hall.Seats {
		if s.Sellable() {
			out = append(out, s.ID)
		}
	}
	return out
}

// SeatVal returns the raw Redis value of a seat of a show ("" when the field is missing).
func (e *TestEnv) SeatVal(showID, seatID int64) string {
	e.T.Helper()
	v, err := e.RDB.HGet(context.Background(), e.Seats.Keys(showID)[0], strconv.FormatInt(seatID, 10)).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		e.T.Fatal(err)
	}
	return v
}

// UserCount returns the Redis purchase-limit counter of a user for a show ("" when absent).
func (e *TestEnv) UserCount(showID, userID int64) string {
	e.T.Helper()
	v, _ := e.RDB.HGet(context.Background(), e.Seats.Keys(showID)[2], strconv.FormatInt(userID, 10)).Result()
	return v
}

// ZoneFree returns the Redis free counter of a zone of a show ("" when absent).
func (e *TestEnv) ZoneFree(showID int64, zone string) string {
	e.T.Helper()
	v, _ := e.RDB.HGet(context.Background(), e.Seats.Keys(showID)[1], zone).Result()
	return v
}

// HeldBy is the Redis value of a seat held by an order.
func HeldBy(o *services.Order) string {
	return "H|" + o.OrderNo + "|" + strconv.FormatInt(o.UserID, 10)
}

// SoldTo is the Redis value of a seat sold to an order.
func SoldTo(o *services.Order) string {
	return "S|" + o.OrderNo + "|" + strconv.FormatInt(o.UserID, 10)
}

// RedisState dumps every Redis key of the test DB except the rate limiter's buckets
// (which count attempts by design) as sorted text: each key with its type and full
// contents.
func (e *TestEnv) RedisState() string { return e.dumpRedis(false) }

// RedisStateNorm is redisState with per-user counters of 0 left out: a hold that was
// written and then compensated (released after a failed insert) leaves such a field,
// which means exactly what an absent one means.
func (e *TestEnv) RedisStateNorm() string { return e.dumpRedis(true) }

func (e *TestEnv) dumpRedis(dropZeroUsers bool) string {
	e.T.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	var keys []string
	err := store.ForEachMaster(ctx, e.RDB, func(ctx context.Context, node redis.UniversalClient) error {
		ks, err := node.Keys(ctx, "*").Result()
		mu.Lock()
		keys = append(keys, ks...)
		mu.Unlock()
		return err
	})
	if err != nil {
		e.T.Fatal(err)
	}
	var lines []string
	for _, k := range keys {
		// rate-limit buckets (the order limits' in the show's slot), and the epochs of the
		// Idempotency-Key markers (written once per show and Redis lifetime by the first
		// keyed request, whatever its outcome)
		if strings.HasPrefix(k, "rate:") || strings.HasPrefix(k, "sf:rl:") || strings.Contains(k, "}:rl:") || strings.HasSuffix(k, "}:idem-epoch") {
			continue
		}
		switch typ := e.RDB.Type(ctx, k).Val(); typ {
		case "hash":
			for f, v := range e.RDB.HGetAll(ctx, k).Val() {
				if dropZeroUsers && v == "0" && f != "_" && strings.HasSuffix(k, ":users") {
					continue
				}
				lines = append(lines, k+" "+f+"="+v)
			}
		case "string":
			lines = append(lines, k+" = "+e.RDB.Get(ctx, k).Val())
		default:
			lines = append(lines, k+" ("+typ+")")
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}

// StateDiff lists the lines of two dumps that differ: "-" only before, "+" only after.
func StateDiff(before, after string) string {
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

// DBState counts the rows an order attempt could write in MySQL.
func (e *TestEnv) DBState() string {
	e.T.Helper()
	var b strings.Builder
	for _, q := range []string{
		"SELECT COUNT(*) FROM orders",
		"SELECT COUNT(*) FROM order_seats",
		"SELECT COUNT(*) FROM order_seats WHERE live = 1",
		"SELECT COUNT(*) FROM orders WHERE idem_key IS NOT NULL",
		"SELECT COUNT(*) FROM payments",
		"SELECT COUNT(*) FROM orders WHERE status = 'pending'",
	} {
		var n int
		if err := e.DB.Get(&n, q); err != nil {
			e.T.Fatal(err)
		}
		fmt.Fprintf(&b, "%s = %d\n", q, n)
	}
	return b.String()
}

// State is the whole observable storage state: Redis (without rate-limit buckets) and
// the MySQL row counts.
func (e *TestEnv) State() string { return e.RedisState() + "--\n" + e.DBState() }

// OrderStatus reads an order's status straight from MySQL.
func (e *TestEnv) OrderStatus(orderNo string) string {
	e.T.Helper()
	var s string
	if err := e.DB.Get(&s, "SELECT status FROM orders WHERE order_no = ?", orderNo); err != nil {
		e.T.Fatal(err)
	}
	return s
}

// CountOrders counts the orders of the env's show in MySQL.
func (e *TestEnv) CountOrders() int {
	e.T.Helper()
	var n int
	if err := e.DB.Get(&n, "SELECT COUNT(*) FROM orders WHERE show_id = ?", e.Show.ID); err != nil {
		e.T.Fatal(err)
	}
	return n
}

// RedisCRC16 is the CRC16-CCITT (XMODEM) checksum Redis Cluster hashes keys with.
func RedisCRC16(s string) uint16 {
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

// ClusterSlot is the Redis Cluster hash slot of a key, honouring a {hash tag}.
func ClusterSlot(key string) int {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	return int(RedisCRC16(key) % 16384)
}

// QuietLogs discards the service log of the env (races that end in refunded late
// payments log a warning per round).
func (e *TestEnv) QuietLogs() {
	l := slog.New(slog.NewTextHandler(io.Discard, nil))
	e.Orders.SetLogger(l)
	e.Payments.SetLogger(l)
}

// FullWidth spells printable ASCII with full-width forms (U+FF01..U+FF5E); other
// characters are kept.
func FullWidth(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r > ' ' && r < 0x7f {
			r += 0xFF01 - '!'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (e *TestEnv) CountRows(table string) int {
	e.T.Helper()
	var n int
	if err := e.DB.Get(&n, "SELECT COUNT(*) FROM "+table); err != nil {
		e.T.Fatal(err)
	}
	return n
}

// Pay pays an order through the demo provider.
func (e *TestEnv) Pay(o *services.Order) {
	e.T.Helper()
	ctx := context.Background()
	p, _, err := e.Payments.Start(ctx, o.UserID, o.OrderNo, "demo")
	if err != nil {
		e.T.Fatal(err)
	}
	if _, err := e.Payments.DemoDecide(ctx, p.PaymentID, true); err != nil {
		e.T.Fatal(err)
	}
}

// FindingsOf returns the run's findings of kind.
func FindingsOf(run *reconcile.ReconcileRun, kind string) []seats.Finding {
	var out []seats.Finding
	for _, f := range run.Findings {
		if f.Kind == kind {
			out = append(out, f)
		}
	}
	return out
}

// NewReconciler builds a reconciler over the env with the default 60 s grace.
func NewReconciler(e *TestEnv, tasks reconcile.ExpiryTasks) *reconcile.Reconciler {
	return reconcile.NewReconciler(e.DB, e.Catalog, e.Seats, e.Orders, e.Clock, reconcile.ReconcileConfig{Tasks: tasks})
}

// AuditOf returns the audit entries of an entity, newest first.
func (e *TestEnv) AuditOf(entity, id string) []*audit.AuditEntry {
	e.T.Helper()
	got, err := audit.NewAudit(e.DB, e.Clock).List(context.Background(), audit.AuditFilter{Entity: entity, EntityID: id})
	if err != nil {
		e.T.Fatal(err)
	}
	return got
}

// OrphanHold holds seats (by label) of the env's show in Redis for userID under a new
// order number that never reaches MySQL, as a process that died between the hold and
// its commit leaves them, and returns that number.
func (e *TestEnv) OrphanHold(userID int64, labels ...string) string {
	e.T.Helper()
	no := services.NewOrderNo(e.Clock.Now())
	var refs []seats.SeatRef
	for _, id := range e.SeatIDs(labels...) {
		s, _ := e.Hall.Seat(id)
		refs = append(refs, seats.SeatRef{ID: id, Zone: s.ZoneCode})
	}
	out, err := e.Seats.Hold(context.Background(), e.Show.ID, no, userID, e.Show.PurchaseLimit, refs)
	if err != nil || !out.OK() {
		e.T.Fatalf("orphan hold: %+v %v", out, err)
	}
	return no
}
