package invariants

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"seatflow/lua"
	"seatflow/services"
	"seatflow/services/accounts"
	"seatflow/services/audit"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
	"seatflow/services/reconcile"
	"seatflow/services/seats"
	"seatflow/services/staff"
	"seatflow/services/store"
	"seatflow/services/waitingroom"
	"seatflow/services/waitlist"
)

// clusterMasters is how many masters the throwaway cluster has: with the slots split
// between three nodes, a script whose keys left its show's slot, or a SCAN of one node,
// fails the tests.
const clusterMasters = 3

// scriptCall is one EVAL, EVALSHA or FCALL as the client sent it.
type scriptCall struct {
	script string // the name in lua.Scripts(), else the SHA1 or function name
	keys   []string
}

// scriptRecorder is a go-redis hook that records every script call with its keys, and
// every CROSSSLOT error of any command.
type scriptRecorder struct {
	names map[string]string // sha1 -> name
	mu    sync.Mutex
	calls []scriptCall
	cross []string
}

func newScriptRecorder() *scriptRecorder {
	r := &scriptRecorder{names: map[string]string{}}
	for name, src := range lua.Scripts() {
		sum := sha1.Sum([]byte(src))
		r.names[hex.EncodeToString(sum[:])] = name
	}
	return r
}

func (r *scriptRecorder) record(cmd redis.Cmder) {
	args := cmd.Args()
	name := strings.ToLower(cmd.Name())
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := cmd.Err(); err != nil && strings.Contains(err.Error(), "CROSSSLOT") {
		r.cross = append(r.cross, name+": "+err.Error())
	}
	switch name {
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
	default:
		return
	}
	if len(args) < 3 {
		r.cross = append(r.cross, name+" without a key count")
		return
	}
	id := args[1].(string)
	if name == "eval" || name == "eval_ro" {
		sum := sha1.Sum([]byte(id))
		id = hex.EncodeToString(sum[:])
	}
	if n, ok := r.names[id]; ok {
		id = n
	}
	numKeys, _ := strconv.Atoi(toString(args[2]))
	var keys []string
	for _, k := range args[3 : 3+numKeys] {
		keys = append(keys, toString(k))
	}
	r.calls = append(r.calls, scriptCall{script: id, keys: keys})
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return ""
}

func (r *scriptRecorder) DialHook(next redis.DialHook) redis.DialHook { return next }

func (r *scriptRecorder) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		r.record(cmd)
		return err
	}
}

func (r *scriptRecorder) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, c := range cmds {
			r.record(c)
		}
		return err
	}
}

// TestInvariant9_ClusterScriptsStayInOneSlot drives every path of the code that runs a
// script (hold, best available, Idempotency-Key and its give-back, release, sell, expiry, house seats,
// reconciliation with its lease and repair, rate limits, waiting room, waiting list)
// against a throwaway Redis Cluster of three masters, recording each script call: the
// keys of every call map to one slot (CLUSTER KEYSLOT), every script of package lua is
// called, and no command met CROSSSLOT. A new script without a call here fails it.
func TestInvariant9_ClusterScriptsStayInOneSlot(t *testing.T) {
	rdb := testenv.NewClusterClient(t, testenv.StartRedisCluster(t, clusterMasters))
	rec := newScriptRecorder()
	rdb.AddHook(rec)
	e := testenv.NewTestEnvOnRedis(t, orders.Limits{UserPerMinute: 1000, UserBurst: 1000, ShowPerSecond: 1000, ShowBurst: 1000,
		LoginPerMinute: 100, LoginBurst: 100, LoginIPPerMinute: 100, LoginIPBurst: 100, RegisterPerMinute: 100, RegisterBurst: 100,
		ResetPerHour: 100, ResetBurst: 100, ResetIPPerHour: 100, ResetIPBurst: 100}, rdb)
	e.QuietLogs()
	ctx := context.Background()
	step := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}

	// hold (and the map's load), with an Idempotency-Key, then sell
	paid, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(1), ShowID: e.Show.ID, SeatIDs: e.SeatIDs("A1", "A2"), IdempotencyKey: "k-1"})
	step("create with a key", err)
	e.Pay(paid)
	// a keyed create failing after its hold gives its key's lock back (a committed one's
	// lock is left to expire)
	e.Orders.SetFailHook(func(stage string) error {
		if stage == "held" {
			return errors.New("the database failed after the hold")
		}
		return nil
	})
	if _, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(1), ShowID: e.Show.ID, SeatIDs: e.SeatIDs("B1"), IdempotencyKey: "k-2"}); services.ErrorCode(err) != services.CodeUnavailable {
		t.Fatalf("a create failing after its hold: %v, want UNAVAILABLE", err)
	}
	e.Orders.SetFailHook(nil)
	// an exchange of the paid order onto another seat
	_, err = e.Orders.Exchange(ctx, orders.ExchangeRequest{UserID: paid.UserID, OrderNo: paid.OrderNo, SeatIDs: e.SeatIDs("A1", "A3")})
	step("exchange", err)
	// best available, then release
	best, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(2), ShowID: e.Show.ID, Zone: "standard", Quantity: 2})
	step("best available", err)
	_, err = e.Orders.Cancel(ctx, best.UserID, best.OrderNo)
	step("cancel", err)
	// expiry
	late, err := e.Create(e.User(3), e.SeatIDs("C5")...)
	step("create", err)
	e.Clock.Advance(20 * time.Minute)
	_, err = e.Orders.Expire(ctx, late.OrderNo)
	step("expire", err)
	// house seats
	staffID := e.User(4)
	house := staff.NewShowSeats(e.DB, e.Orders, audit.NewAudit(e.DB, e.Clock), time.Minute)
	_, err = house.Block(ctx, staffID, e.Show.ID, e.SeatIDs("D3"), "press")
	step("block", err)
	_, err = house.Unblock(ctx, staffID, e.Show.ID, e.SeatIDs("D3"), "press")
	step("unblock", err)
	// reconciliation: lease, SCAN of every master, repair of an orphan hold
	e.OrphanHold(e.User(5), "E7")
	e.Clock.Advance(5 * time.Minute)
	run, err := testenv.NewReconciler(e, nil).Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerCron})
	step("reconcile", err)
	if run.Status != "done" {
		t.Errorf("reconciliation run: %s", run.Status)
	}
	if v := e.SeatVal(e.Show.ID, e.SeatIDs("E7")[0]); v != "F" {
		t.Errorf("the orphan hold is %q after reconciliation, want F", v)
	}
	// the instance registry: a beat, and the proof a run asks for before it releases a young hold
	instance := store.NewInstances(e.RDB, "sf", store.NewInFlight())
	_, err = instance.Beat(ctx)
	step("instance beat", err)
	_, err = instance.Prove(ctx, time.Second)
	step("instance proof", err)
	// rate limits other than the orders' (those ran with each create)
	step("sign-in limit", e.Limiter.AllowLogin(ctx, "a@example.com", "192.0.2.1"))
	step("register limit", e.Limiter.AllowRegister(ctx, "192.0.2.1"))

	// a waiting room: join, read, advance, stats, close
	roomShow := e.OnSaleShow(e.Hall.ID, 1)
	e.Exec("UPDATE shows SET waiting_room = 1, admit_per_minute = 60 WHERE id = ?", roomShow.ID)
	e.Catalog.ForgetShow(roomShow.ID)
	rooms := waitingroom.NewRooms(rdb, "sf", e.Catalog, e.Clock, waitingroom.NewTokens([]byte("k"), nil), nil)
	buyer := e.User(6)
	_, err = rooms.Join(ctx, roomShow.ID, buyer)
	step("room join", err)
	_, err = rooms.Read(ctx, roomShow.ID, buyer)
	step("room read", err)
	show, err := e.Catalog.CachedShow(ctx, roomShow.ID)
	step("room show", err)
	_, err = rooms.Advance(ctx, show)
	step("room advance", err)
	_, err = rooms.Stats(ctx, roomShow.ID)
	step("room stats", err)

	// a waiting list: a sold-out show, a place, a seat back, an offer through the gate
	h := e.MakeLayout("Cluster list hall", testenv.RowSpec{Zone: "standard", Seats: "SSSS"})
	listShow := e.OnSaleShow(h.ID, 0)
	full, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(7), ShowID: listShow.ID, SeatIDs: testenv.HallSeatIDs(t, h, "A1", "A2", "A3", "A4")})
	step("sell out", err)
	lists := waitlist.NewLists(e.DB, e.Orders, nil)
	_, err = lists.Join(ctx, e.User(8), listShow.ID, 2, "standard", "")
	step("list join", err)
	_, err = e.Orders.Cancel(ctx, full.UserID, full.OrderNo)
	step("seats back", err)
	offers, err := lists.Serve(ctx, listShow.ID)
	step("serve", err)
	if offers != 1 {
		t.Errorf("%d offers, want 1", offers)
	}

	// every call's keys in one slot, on the server's own reckoning
	rec.mu.Lock()
	calls, cross := slices.Clone(rec.calls), slices.Clone(rec.cross)
	rec.mu.Unlock()
	if len(cross) > 0 {
		t.Errorf("CROSSSLOT: %v", cross)
	}
	seen := map[string]int{}
	slotOf := map[string]int64{}
	for _, c := range calls {
		seen[c.script]++
		if len(c.keys) == 0 {
			t.Errorf("script %s called without keys", c.script)
			continue
		}
		for _, k := range c.keys {
			if _, ok := slotOf[k]; !ok {
				s, err := rdb.ClusterKeySlot(ctx, k).Result()
				step("CLUSTER KEYSLOT", err)
				slotOf[k] = s
			}
			if slotOf[k] != slotOf[c.keys[0]] {
				t.Errorf("script %s: key %s is in slot %d, %s in %d", c.script, k, slotOf[k], c.keys[0], slotOf[c.keys[0]])
			}
		}
	}
	for name := range lua.Scripts() {
		if seen[name] == 0 {
			t.Errorf("script %s was never called: add its path to this test", name)
		}
	}
	rateCalls := 0
	for _, c := range calls {
		if _, ours := lua.Scripts()[c.script]; !ours && strings.HasPrefix(c.keys[0], "rate:") {
			rateCalls++
		}
	}
	if rateCalls == 0 {
		t.Error("no rate-limit script call was recorded")
	}
	t.Logf("%d script calls over %d keys in %d slots: %v, rate limits %d", len(calls), len(slotOf), len(distinct(slotOf)), seen, rateCalls)
}

func distinct(m map[string]int64) map[int64]bool {
	out := map[int64]bool{}
	for _, v := range m {
		out[v] = true
	}
	return out
}

// TestInvariant9_EveryScriptIsKnown: every .lua file is part of a script of
// lua.Scripts() (so the cluster test above calls it), every Go file outside the tests
// makes its scripts from package lua (the load test's V1 baseline and its order-script
// floor aside: they write scratch keys only), and no script names a key that is not in
// KEYS (a key a script builds itself is invisible to the cluster client, which routes
// by KEYS).
func TestInvariant9_EveryScriptIsKnown(t *testing.T) {
	root := filepath.Join("..", "..")
	files, err := filepath.Glob(filepath.Join(root, "lua", "*.lua"))
	if err != nil || len(files) == 0 {
		t.Fatalf("lua files: %v %v", files, err)
	}
	// a redis.call whose key argument is a literal string or built with .. in place
	builtKey := regexp.MustCompile(`redis\.call\(\s*'[A-Z]+'\s*,\s*('|"|[A-Za-z_]+\s*\.\.)`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		body := string(b)
		in := false
		for _, src := range lua.Scripts() {
			in = in || strings.Contains(src, body)
		}
		if !in {
			t.Errorf("%s is in no script of lua.Scripts()", f)
		}
		for _, line := range strings.Split(body, "\n") {
			if builtKey.MatchString(line) && !strings.HasPrefix(strings.TrimSpace(line), "--") {
				t.Errorf("%s builds a key in Lua: %s", f, strings.TrimSpace(line))
			}
		}
	}
	newScript := regexp.MustCompile(`redis\.NewScript\(([^)]*)`)
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range newScript.FindAllStringSubmatch(string(b), -1) {
			if !strings.HasPrefix(m[1], "lua.") && !strings.HasSuffix(p, filepath.Join("loadtest", "baseline_v1.go")) &&
				!strings.HasSuffix(p, filepath.Join("loadtest", "order_floor.go")) {
				t.Errorf("%s makes a script that is not from package lua: %s", p, m[0])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCluster_LoadedShowsScansEveryMaster: reconciliation's list of loaded seat maps
// (SCAN) finds the maps of shows whose slots live on each of the three masters.
func TestCluster_LoadedShowsScansEveryMaster(t *testing.T) {
	addrs := testenv.StartRedisCluster(t, clusterMasters)
	rdb := testenv.NewClusterClient(t, addrs)
	ctx := context.Background()
	st := seats.NewSeatStore(rdb, nil, nil, "sf")
	nodeOf := map[string]bool{}
	var want []int64
	for id := int64(1); len(want) < 30; id++ {
		keys := st.Keys(id)
		if err := st.LoadScript().Run(ctx, rdb, keys, "0", "3600", "1", "1", "F", "1", "standard", "1").Err(); err != nil {
			t.Fatal(err)
		}
		want = append(want, id)
		slot, err := rdb.ClusterKeySlot(ctx, keys[0]).Result()
		if err != nil {
			t.Fatal(err)
		}
		nodeOf[addrs[min(int(slot)/(16384/clusterMasters), clusterMasters-1)]] = true
	}
	if len(nodeOf) != clusterMasters {
		t.Fatalf("the maps landed on %d masters, want %d", len(nodeOf), clusterMasters)
	}
	got, err := st.LoadedShows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("LoadedShows = %v, want %v", got, want)
	}
}

// TestCluster_PubSubReachesEveryInstance: two processes, each with its own cluster
// client. A hold made through one reaches a live viewer of the other (sharded pub/sub
// on the show's slot) and the other's OnChange while it follows the show without a
// viewer; the subscription ends with the last viewer. A session ended in one process
// is dropped from the other's cache (plain pub/sub, which a cluster broadcasts).
func TestCluster_PubSubReachesEveryInstance(t *testing.T) {
	addrs := testenv.StartRedisCluster(t, clusterMasters)
	a, b := testenv.NewClusterClient(t, addrs), testenv.NewClusterClient(t, addrs)
	e := testenv.NewTestEnvOnRedis(t, testenv.Unlimited, a)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))

	events := seats.NewSeatEvents(b, "sf", 10, quiet)
	var mu sync.Mutex
	heard := map[int64]int{}
	events.OnChange(func(c seats.SeatChange) {
		if !c.Reload {
			mu.Lock()
			heard[c.ShowID]++
			mu.Unlock()
		}
	})
	go events.Run(ctx)
	changes, stop, err := events.Watch(e.Show.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Create(e.User(1), e.SeatIDs("A1", "A2")...); err != nil {
		t.Fatal(err)
	}
	got := waitChange(t, changes, e.Show.ID)
	for _, id := range e.SeatIDs("A1", "A2") {
		if got.Seats[id] != services.StateHeld {
			t.Errorf("the viewer of the other process sees seat %d as %q", id, got.Seats[id])
		}
	}
	stop()
	if ids := events.Listening(); slices.Contains(ids, e.Show.ID) {
		t.Errorf("still subscribed to show %d after its last viewer left: %v", e.Show.ID, ids)
	}

	// a followed show without viewers: its changes reach OnChange
	other := e.OnSaleShow(e.Hall.ID, 1)
	events.Follow(other.ID)
	if !clusterEventually(func() bool { return slices.Contains(events.Listening(), other.ID) }) {
		t.Fatal("Follow did not subscribe")
	}
	time.Sleep(200 * time.Millisecond) // the subscription is confirmed
	if _, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(2), ShowID: other.ID, SeatIDs: e.SeatIDs("B1")}); err != nil {
		t.Fatal(err)
	}
	if !clusterEventually(func() bool { mu.Lock(); defer mu.Unlock(); return heard[other.ID] > 0 }) {
		t.Error("a change of a followed show never reached OnChange in the other process")
	}

	// sessions: logout in one process ends the session in the other's cache
	var procs []*accounts.Users
	for _, rdb := range []redis.UniversalClient{a, b} {
		c := accounts.NewSessionCache(rdb, "sfclsess", time.Hour, quiet)
		go c.Run(ctx)
		if !clusterEventually(c.Active) {
			t.Fatal("a session cache never subscribed")
		}
		procs = append(procs, accounts.NewUsers(e.DB, e.Clock, bcrypt.MinCost).WithSessions(accounts.SessionPolicy{}, c))
	}
	uid := e.User(3)
	tok, err := procs[0].NewSession(ctx, uid)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		if _, err := p.Authenticate(ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	if err := procs[0].Logout(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if !clusterEventually(func() bool { _, err := procs[1].Authenticate(ctx, tok); return err != nil }) {
		t.Error("the other process still answers a logged-out session from its cache")
	}
}

// waitChange returns the first change of show that is not a reload, failing the test
// after 5 s.
func waitChange(t *testing.T, ch <-chan seats.SeatChange, show int64) seats.SeatChange {
	t.Helper()
	end := time.After(5 * time.Second)
	for {
		select {
		case c := <-ch:
			if c.ShowID == show && !c.Reload {
				return c
			}
		case <-end:
			t.Fatal("no seat change reached the viewer of the other process")
			return seats.SeatChange{}
		}
	}
}

// clusterEventually polls cond for up to 5 s.
func clusterEventually(cond func() bool) bool {
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}
