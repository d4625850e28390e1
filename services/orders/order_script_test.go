package orders_test

import (
	"bufio"
	"context"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// monitor opens a connection of its own to addr, sends MONITOR and returns the lines
// Redis feeds it (closed with the test).
func monitor(t *testing.T, addr string) <-chan string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	rd := bufio.NewReader(conn)
	if _, err := conn.Write([]byte("MONITOR\r\n")); err != nil {
		t.Fatal(err)
	}
	if l, err := rd.ReadString('\n'); err != nil || !strings.HasPrefix(l, "+OK") {
		t.Fatalf("MONITOR: %q %v", l, err)
	}
	lines := make(chan string, 10000)
	go func() {
		for {
			l, err := rd.ReadString('\n')
			if err != nil {
				return
			}
			lines <- strings.TrimSpace(l)
		}
	}()
	return lines
}

// scriptCommands returns the commands (name and arguments, as MONITOR quotes them) that
// the script call whose line contains mark ran inside Redis: the "lua" lines following
// it (a script runs alone, so no other client's command comes between).
func scriptCommands(t *testing.T, lines <-chan string, mark string) []string {
	t.Helper()
	var out []string
	seen := false
	for {
		select {
		case l := <-lines:
			switch {
			case !seen && strings.Contains(l, mark) && strings.Contains(strings.ToLower(l), `"evalsha"`):
				seen = true
			case seen && strings.Contains(l, " lua] "):
				_, cmd, _ := strings.Cut(l, " lua] ")
				out = append(out, cmd)
			case seen:
				return out
			}
		case <-time.After(2 * time.Second):
			if !seen {
				t.Fatalf("no script call with %q seen", mark)
			}
			return out
		}
	}
}

// TestOrderScript_ReadsNothingTwice watches (MONITOR) what lua/order.lua runs inside
// Redis for a created order with an Idempotency-Key on one chosen seat, with rate limits
// that count: the key's epoch, marker and lock in one MGET; the seat, its zone and the
// buyer's count with the users hash's marker read once each and handed to the hold; one
// TIME for both limits; no EXISTS of a key whose fields are read anyway. 17 commands
// (before, 26: the hold read the seat, zone and counts again, and three EXISTS, a second
// TIME and the lock's EXISTS came on top). No key and field is read twice without a
// write to it in between.
func TestOrderScript_ReadsNothingTwice(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	c, ok := e.RDB.(*redis.Client)
	if !ok {
		t.Skip("MONITOR needs a single Redis")
	}
	if _, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(1), ShowID: e.Show.ID, SeatIDs: e.SeatIDs("A1"), IdempotencyKey: "warm-up"}); err != nil {
		t.Fatal(err)
	}
	lines := monitor(t, c.Options().Addr)
	if _, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(2), ShowID: e.Show.ID, SeatIDs: e.SeatIDs("B5"), IdempotencyKey: "watched-key"}); err != nil {
		t.Fatal(err)
	}
	cmds := scriptCommands(t, lines, "watched-key")
	t.Logf("%d commands: %s", len(cmds), commandNames(cmds))
	want := "MGET HGET HGET HMGET TIME GET SET GET SET HGET HSET HINCRBY HINCRBY HGETALL SPUBLISH SET SET"
	if got := commandNames(cmds); got != want {
		t.Errorf("the order script ran\n  %s\nwant\n  %s", got, want)
	}
	// a read of a key and field again before anything wrote it is a read too many
	read := map[string]bool{}
	for _, cmd := range cmds {
		f := strings.Fields(cmd)
		name := strings.Trim(f[0], `"`)
		switch name {
		case "HGET", "HMGET", "HEXISTS":
			for _, field := range f[2:] {
				k := f[1] + " " + field
				if read[k] {
					t.Errorf("%s read twice: %s", k, cmd)
				}
				read[k] = true
			}
		case "GET", "EXISTS", "MGET":
			for _, key := range f[1:] {
				if read[key] {
					t.Errorf("%s read twice: %s", key, cmd)
				}
				read[key] = true
			}
		case "HSET", "HINCRBY", "SET", "DEL":
			for k := range read {
				if strings.HasPrefix(k, f[1]) {
					delete(read, k)
				}
			}
		}
	}
}

// TestIdempotencyKey_WaitingReplayAnsweredOnceCommitted: a replay sent while the key's
// first request is still in flight waits on the key's lock (LOCKED, polled every 20 ms);
// once the first order commits its lock is left to expire (15 s), so each poll asks
// MySQL, and the replay gets the first order at its next poll instead of when the lock
// expires. Counted in order-script calls after the first create returned: at most 3
// (a poll in flight, the next one; without the MySQL check about 750 until the lock's
// TTL).
func TestIdempotencyKey_WaitingReplayAnsweredOnceCommitted(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	if _, err := e.Create(e.User(9), e.SeatIDs("A1")...); err != nil { // load the map
		t.Fatal(err)
	}
	held, release := make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	e.Orders.SetFailHook(func(stage string) error {
		if stage == "held" && first.CompareAndSwap(false, true) {
			close(held)
			<-release
		}
		return nil
	})
	req := orders.CreateOrderRequest{UserID: e.User(1), ShowID: e.Show.ID, SeatIDs: e.SeatIDs("C4", "C5"), IdempotencyKey: "slow-first"}
	type answer struct {
		order *services.Order
		err   error
	}
	firstDone, replayDone := make(chan answer, 1), make(chan answer, 1)
	go func() {
		o, err := e.Orders.Create(ctx, req)
		firstDone <- answer{o, err}
	}()
	<-held
	rt := &roundTrips{by: map[string]int{}}
	e.RDB.AddHook(rt)
	go func() {
		o, err := e.Orders.Create(ctx, req)
		replayDone <- answer{o, err}
	}()
	for { // the replay is waiting on the lock: it polled twice
		rt.mu.Lock()
		polls := rt.evals
		rt.mu.Unlock()
		if polls >= 3 {
			break
		}
		select {
		case a := <-replayDone:
			t.Fatalf("the replay answered %+v %v before the first request committed", a.order, a.err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	close(release)
	a := <-firstDone
	if a.err != nil {
		t.Fatal(a.err)
	}
	rt.mu.Lock()
	rt.evals = 0
	rt.mu.Unlock()
	b := <-replayDone
	rt.mu.Lock()
	after := rt.evals
	rt.mu.Unlock()
	t.Logf("the replay made %d order-script calls after the first order committed", after)
	if b.err != nil || b.order.OrderNo != a.order.OrderNo {
		t.Fatalf("the replay answered %+v %v, want order %s", b.order, b.err, a.order.OrderNo)
	}
	if after > 3 {
		t.Errorf("the replay polled the lock %d times after the first order committed, want at most 3", after)
	}
	e.CheckInvariants()
}

// TestOrderScript_TakenRefusalReadsOnlyTheSeats: a keyed order for a seat another buyer
// holds is refused by the order script after reading the key's values and the seat
// alone: the zones' counts and the buyer's count are read only by an order that gets
// past the precheck.
func TestOrderScript_TakenRefusalReadsOnlyTheSeats(t *testing.T) {
	ctx := context.Background()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	c, ok := e.RDB.(*redis.Client)
	if !ok {
		t.Skip("MONITOR needs a single Redis")
	}
	if _, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(1), ShowID: e.Show.ID, SeatIDs: e.SeatIDs("A1"), IdempotencyKey: "first"}); err != nil {
		t.Fatal(err)
	}
	lines := monitor(t, c.Options().Addr)
	_, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(2), ShowID: e.Show.ID, SeatIDs: e.SeatIDs("A1"), IdempotencyKey: "refused-key"})
	if services.ErrorCode(err) != services.CodeSeatTaken {
		t.Fatalf("got %v, want SEAT_TAKEN", err)
	}
	if got := commandNames(scriptCommands(t, lines, "refused-key")); got != "MGET HGET" {
		t.Errorf("the refused order's script ran %s, want MGET HGET (the key's values, the seat)", got)
	}
}

// commandNames are the names of MONITOR's commands (scriptCommands), space-separated.
func commandNames(cmds []string) string {
	names := make([]string, len(cmds))
	for i, cmd := range cmds {
		names[i] = strings.Trim(strings.Fields(cmd)[0], `"`)
	}
	return strings.Join(names, " ")
}
