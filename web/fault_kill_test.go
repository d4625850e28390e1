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
	"testing"
	"time"

	"seatflow/services/reconcile"
	"seatflow/services/seats"
)

// faultChildEnv marks the process TestFaultChild runs in.
const faultChildEnv = "SEATFLOW_FAULT_CHILD"

// TestFaultChild is the seatflow process that TestFault_KilledBetweenHoldAndCommit
// kills: the same configuration as the parent's test app, with a create that stops for
// good between its INSERTs and its COMMIT. It prints "listening <addr>", then
// "at-insert" when a create reaches that point. Run by itself it does nothing.
func TestFaultChild(t *testing.T) {
	if os.Getenv(faultChildEnv) != "1" {
		t.Skip("the process TestFault_KilledBetweenHoldAndCommit starts and kills")
	}
	a, err := New(testConfig(), nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	a.Orders.SetFailHook(func(stage string) error {
		if stage == "insert" {
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
// it held a buyer's seats in Redis and before its MySQL transaction committed. The seats
// stay held in Redis with no order in MySQL and the buyer's and zone's counters are off;
// reconciliation leaves them alone within the grace period (the create could still be
// in flight) and, once the hold is older than the grace, frees the seats and fixes the
// counters; the cache then agrees with MySQL and another buyer books the seats.
func TestFault_KilledBetweenHoldAndCommit(t *testing.T) {
	a := newTestApp(t, nil)
	ctx := context.Background()
	show, seatList := a.onSaleShow(2)
	showID, _ := strconv.ParseInt(show, 10, 64)
	zone := ""
	for _, s := range a.seatMap(show) {
		if s.ID == seatList[0] {
			zone = s.Zone
		}
	}
	buyer, other := a.newUser(), a.newUser()
	keys := a.Seats.Keys(showID)
	zoneBefore := a.Redis.HGet(ctx, keys[1], zone).Val()

	child := exec.Command(os.Args[0], "-test.run=^TestFaultChild$", "-test.timeout=2m")
	child.Env = append(os.Environ(), faultChildEnv+"=1")
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

	body, _ := json.Marshal(map[string]any{"seat_ids": seatList})
	posted := make(chan string, 1)
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
	waitLine("at-insert")
	var orderNo string
	for _, id := range seatList {
		v := a.Redis.HGet(ctx, keys[0], id).Val()
		if !strings.HasPrefix(v, "H|") {
			t.Fatalf("seat %s is %q while the create waits at its insert, want held", id, v)
		}
		orderNo = strings.Split(v, "|")[1]
	}
	killedAt := time.Now()
	if err := child.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	<-exited
	if got := <-posted; strings.HasPrefix(got, "201") {
		t.Fatalf("the killed process answered %s", got)
	}

	// the drift the process left behind
	var n int
	if err := a.DB.Get(&n, "SELECT COUNT(*) FROM orders WHERE order_no = ?", orderNo); err != nil || n != 0 {
		t.Errorf("%d orders %s in MySQL (%v), want none", n, orderNo, err)
	}
	var userID string
	for _, id := range seatList {
		v := a.Redis.HGet(ctx, keys[0], id).Val()
		if parts := strings.Split(v, "|"); len(parts) != 3 || parts[1] != orderNo {
			t.Errorf("seat %s is %q after the kill, want still held by %s", id, v, orderNo)
		} else {
			userID = parts[2]
		}
	}
	if got := a.Redis.HGet(ctx, keys[2], userID).Val(); got != "2" {
		t.Errorf("the buyer's counter is %q, want 2 (the dead order's seats)", got)
	}
	before, _ := strconv.Atoi(zoneBefore)
	if got := a.Redis.HGet(ctx, keys[1], zone).Val(); got != strconv.Itoa(before-2) {
		t.Errorf("zone %s counts %q free, want %d", zone, got, before-2)
	}
	drift, err := a.Reconciler.Inspect(ctx, showID, 0)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, f := range drift {
		kinds[f.Kind]++
	}
	if kinds[seats.FindingHoldWithoutOrder] != 2 || kinds[seats.FindingUserCount] != 1 || kinds[seats.FindingZoneCount] != 1 {
		t.Errorf("drift after the kill: %v, want 2 hold_without_order, 1 user_count, 1 zone_count", kinds)
	}

	// within the grace period the hold may belong to a create still in flight
	if _, err := a.Reconciler.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerManual, ShowID: showID}); err != nil {
		t.Fatal(err)
	}
	if v := a.Redis.HGet(ctx, keys[0], seatList[0]).Val(); !strings.Contains(v, orderNo) {
		t.Errorf("a run within the grace period released the hold: %q", v)
	}

	a.clock.Set(a.Cfg.ReconcileGrace + 5*time.Second)
	runs, fixed := 0, 0
	for ; runs < 5; runs++ {
		run, err := a.Reconciler.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerManual, ShowID: showID})
		if err != nil {
			t.Fatal(err)
		}
		fixed += run.Fixed
		if fs, err := a.Reconciler.Inspect(ctx, showID, 0); err == nil && len(fs) == 0 {
			runs++
			break
		}
	}
	converged := time.Since(killedAt)
	for _, id := range seatList {
		if v := a.Redis.HGet(ctx, keys[0], id).Val(); v != "F" {
			t.Errorf("seat %s is %q after reconciliation, want free", id, v)
		}
	}
	if got := a.Redis.HGet(ctx, keys[2], userID).Val(); got != "0" {
		t.Errorf("the buyer's counter is %q after reconciliation, want 0", got)
	}
	if got := a.Redis.HGet(ctx, keys[1], zone).Val(); got != zoneBefore {
		t.Errorf("zone %s counts %q free after reconciliation, want %s", zone, got, zoneBefore)
	}
	a.checkShowClean(showID)

	r := a.do("POST", "/api/v1/shows/"+show+"/orders", other, map[string]any{"seat_ids": seatList}, nil)
	if r.status != 201 {
		t.Fatalf("another buyer after reconciliation: %d %s", r.status, r.body)
	}
	a.checkShowClean(showID)
	verdict := "clean"
	if t.Failed() {
		verdict = "FAILED"
	}
	t.Logf("converged in %s from the SIGKILL (clock moved %s, past the %s grace; %d runs, %d fixes); invariant check: %s",
		converged.Round(time.Millisecond), a.Cfg.ReconcileGrace+5*time.Second, a.Cfg.ReconcileGrace, runs, fixed, verdict)
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
