package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"seatflow/services/reconcile"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// faultChildEnv marks the process TestFaultChild runs in; faultOrdersEnv is how many
// creates its batch gathers.
const (
	faultChildEnv  = "SEATFLOW_FAULT_CHILD"
	faultOrdersEnv = "SEATFLOW_FAULT_ORDERS"
)

// faultConvergeBudget is how long after a fault the seat cache must agree with MySQL.
const faultConvergeBudget = 10 * time.Second

// TestFaultChild is the seatflow process that TestFault_KilledBetweenHoldAndCommit
// kills: the same configuration as the parent's test app, with creates that stop for
// good between their INSERTs and their COMMIT. The first SEATFLOW_FAULT_ORDERS creates
// wait after their Redis holds until all have held, and the group commit waits for
// creates still holding, so they reach the INSERTs as one batch (one transaction). It
// prints "listening <addr>", then "at-insert" when a transaction reaches that point.
// Run by itself it does nothing.
func TestFaultChild(t *testing.T) {
	if os.Getenv(faultChildEnv) != "1" {
		t.Skip("the process TestFault_KilledBetweenHoldAndCommit starts and kills")
	}
	n, _ := strconv.Atoi(os.Getenv(faultOrdersEnv))
	cfg := testConfig()
	cfg.CommitWait = time.Minute
	a, err := New(cfg, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var held atomic.Int32
	allHeld := make(chan struct{})
	a.Orders.SetFailHook(func(stage string) error {
		switch stage {
		case "held":
			if int(held.Add(1)) == n {
				close(allHeld)
			}
			<-allHeld
		case "insert":
			fmt.Println("at-insert")
			select {} // the process dies here
		}
		return nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("listening " + ln.Addr().String())
	if err := a.HTTP.Listener(ln); err != nil {
		t.Fatal(err)
	}
}

// TestFault_KilledBetweenHoldAndCommit: a seatflow process is killed (SIGKILL) after
// it held buyers' seats in Redis and before its MySQL transaction committed: one order,
// and a batch of three orders of three buyers in one group-commit transaction. The
// seats stay held in Redis with no order in MySQL and the buyers' and zones' counters
// are off; reconciliation leaves them alone while the process's heartbeat has not lapsed
// (the creates could still be in flight) and, once it lapsed, frees the seats and fixes
// the counters with the clock standing still, within faultConvergeBudget of the kill
// (before, the holds waited for the 60 s grace); the cache then agrees with MySQL and
// another buyer books the seats.
func TestFault_KilledBetweenHoldAndCommit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		orders int
	}{{"one order", 1}, {"a batch of three orders", 3}} {
		t.Run(tc.name, func(t *testing.T) { killBetweenHoldAndCommit(t, tc.orders) })
	}
}

// killBetweenHoldAndCommit is TestFault_KilledBetweenHoldAndCommit for n orders of two
// seats each, by n buyers, in one transaction of a child process.
func killBetweenHoldAndCommit(t *testing.T, n int) {
	a := newTestApp(t, nil)
	ctx := context.Background()
	show, seatList := a.onSaleShow(2 * n)
	showID, _ := strconv.ParseInt(show, 10, 64)
	zoneOf := map[string]string{}
	for _, s := range a.seatMap(show) {
		zoneOf[s.ID] = s.Zone
	}
	keys := a.Seats.Keys(showID)
	zonesBefore := map[string]int{}
	for _, id := range seatList {
		zonesBefore[zoneOf[id]], _ = strconv.Atoi(a.Redis.HGet(ctx, keys[1], zoneOf[id]).Val())
	}
	other := a.newUser()

	child := exec.Command(os.Args[0], "-test.run=^TestFaultChild$", "-test.timeout=2m")
	child.Env = append(os.Environ(), faultChildEnv+"=1", faultOrdersEnv+"="+strconv.Itoa(n))
	var stderr bytes.Buffer
	child.Stderr = &stderr
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = child.Wait(); close(exited) }()
	t.Cleanup(func() { _ = child.Process.Kill(); <-exited })
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	waitLine := func(prefix string) string {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the child process ended before printing %q: %s", prefix, stderr.String())
				}
				if strings.HasPrefix(l, prefix) {
					return l
				}
			case <-deadline:
				t.Fatalf("the child process never printed %q: %s", prefix, stderr.String())
			}
		}
	}
	childBase := "http://" + strings.TrimPrefix(waitLine("listening "), "listening ")

	posted := make(chan string, n)
	for i := 0; i < n; i++ {
		body, _ := json.Marshal(map[string]any{"seat_ids": seatList[2*i : 2*i+2]})
		buyer := a.newUser()
		go func() {
			req, _ := http.NewRequest("POST", childBase+"/api/v1/shows/"+show+"/orders", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+buyer)
			res, err := (&http.Client{Timeout: time.Minute}).Do(req)
			if err != nil {
				posted <- err.Error()
				return
			}
			res.Body.Close()
			posted <- res.Status
		}()
	}
	waitLine("at-insert")
	select { // the n orders are one transaction: no other reaches its insert
	case l := <-lines:
		t.Fatalf("the child printed %q after the first transaction reached its insert, want the %d orders in one", l, n)
	case <-time.After(500 * time.Millisecond):
	}
	orderOf := map[string]string{} // seat -> order number
	users := map[string]bool{}
	for _, id := range seatList {
		v := a.Redis.HGet(ctx, keys[0], id).Val()
		parts := strings.Split(v, "|")
		if len(parts) != 3 || parts[0] != "H" {
			t.Fatalf("seat %s is %q while the creates wait at their insert, want held", id, v)
		}
		orderOf[id], users[parts[2]] = parts[1], true
	}
	killedAt := time.Now()
	if err := child.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	<-exited
	for i := 0; i < n; i++ {
		if got := <-posted; strings.HasPrefix(got, "201") {
			t.Fatalf("the killed process answered %s", got)
		}
	}

	// the drift the process left behind
	for _, id := range seatList {
		var c int
		if err := a.DB.Get(&c, "SELECT COUNT(*) FROM orders WHERE order_no = ?", orderOf[id]); err != nil || c != 0 {
			t.Errorf("%d orders %s in MySQL (%v), want none", c, orderOf[id], err)
		}
	}
	if len(users) != n {
		t.Fatalf("%d buyers hold the seats, want %d", len(users), n)
	}
	for u := range users {
		if got := a.Redis.HGet(ctx, keys[2], u).Val(); got != "2" {
			t.Errorf("buyer %s's counter is %q, want 2 (the dead order's seats)", u, got)
		}
	}
	for z, before := range zonesBefore {
		held := 0
		for _, id := range seatList {
			if zoneOf[id] == z {
				held++
			}
		}
		if got := a.Redis.HGet(ctx, keys[1], z).Val(); got != strconv.Itoa(before-held) {
			t.Errorf("zone %s counts %q free, want %d", z, got, before-held)
		}
	}
	drift, err := a.Reconciler.Inspect(ctx, showID, 0)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, f := range drift {
		kinds[f.Kind]++
	}
	if kinds[seats.FindingHoldWithoutOrder] != 2*n || kinds[seats.FindingUserCount] != n || kinds[seats.FindingZoneCount] != len(zonesBefore) {
		t.Errorf("drift after the kill: %v, want %d hold_without_order, %d user_count, %d zone_count", kinds, 2*n, n, len(zonesBefore))
	}

	// while the killed process's heartbeat has not lapsed, its holds may belong to creates
	// still in flight: a run leaves them alone
	if _, err := a.Reconciler.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerManual, ShowID: showID}); err != nil {
		t.Fatal(err)
	}
	if v := a.Redis.HGet(ctx, keys[0], seatList[0]).Val(); !strings.Contains(v, orderOf[seatList[0]]) && time.Since(killedAt) < store.InstanceLapse {
		t.Errorf("a run while the killed process still counted as alive released the hold: %q", v)
	}

	// once its heartbeat lapsed, runs release its holds: the clock stands still, the
	// holds stay younger than the grace, and the cache agrees within faultConvergeBudget
	runs, fixed := 0, 0
	for {
		run, err := a.Reconciler.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerManual, ShowID: showID})
		if err != nil {
			t.Fatal(err)
		}
		runs++
		fixed += run.Fixed
		if fs, err := a.Reconciler.Inspect(ctx, showID, 0); err == nil && len(fs) == 0 {
			break
		}
		if time.Since(killedAt) > faultConvergeBudget {
			t.Fatalf("the seat cache still differs from MySQL %s after the SIGKILL (%d runs; grace %s)",
				time.Since(killedAt).Round(time.Millisecond), runs, a.Cfg.ReconcileGrace)
		}
		time.Sleep(200 * time.Millisecond)
	}
	converged := time.Since(killedAt)
	for _, id := range seatList {
		if v := a.Redis.HGet(ctx, keys[0], id).Val(); v != "F" {
			t.Errorf("seat %s is %q after reconciliation, want free", id, v)
		}
	}
	for u := range users {
		if got := a.Redis.HGet(ctx, keys[2], u).Val(); got != "0" {
			t.Errorf("buyer %s's counter is %q after reconciliation, want 0", u, got)
		}
	}
	for z, before := range zonesBefore {
		if got := a.Redis.HGet(ctx, keys[1], z).Val(); got != strconv.Itoa(before) {
			t.Errorf("zone %s counts %q free after reconciliation, want %d", z, got, before)
		}
	}
	a.checkShowClean(showID)

	r := a.do("POST", "/api/v1/shows/"+show+"/orders", other, map[string]any{"seat_ids": seatList[:2]}, nil)
	if r.status != 201 {
		t.Fatalf("another buyer after reconciliation: %d %s", r.status, r.body)
	}
	a.checkShowClean(showID)
	verdict := "clean"
	if t.Failed() {
		verdict = "FAILED"
	}
	t.Logf("%d orders: converged in %s from the SIGKILL (clock standing still, the %s grace not waited for; %d runs, %d fixes); invariant check: %s",
		n, converged.Round(time.Millisecond), a.Cfg.ReconcileGrace, runs, fixed, verdict)
}

// checkShowClean fails the test unless the show's seat cache agrees with MySQL
// (reconciliation's comparison at grace 0) and no seat is in two live orders.
func (a *testApp) checkShowClean(showID int64) {
	a.t.Helper()
	fs, err := a.Reconciler.Inspect(context.Background(), showID, 0)
	if err != nil {
		a.t.Fatal(err)
	}
	for _, f := range fs {
		a.t.Errorf("drift: %s at seat %d (order %q): %s", f.Kind, f.SeatID, f.OrderNo, f.Detail)
	}
	var dup int
	if err := a.DB.Get(&dup, `SELECT COUNT(*) FROM (SELECT seat_id FROM order_seats os JOIN orders o ON o.id = os.order_id
		WHERE os.show_id = ? AND o.status IN ('pending','paid') GROUP BY seat_id HAVING COUNT(*) > 1) d`, showID); err != nil {
		a.t.Fatal(err)
	}
	if dup != 0 {
		a.t.Errorf("invariant 1: %d seats in more than one live order", dup)
	}
}
