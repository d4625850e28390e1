package invariants

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/catalog"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
	"seatflow/services/reconcile"
	"seatflow/services/staff"
)

// The linearizability check of the seat store: clients run concurrent operations
// against the real stores (create with chosen seats and best-available, pay, cancel,
// expire, refund, house seats, manual release, hall edits, reconciliation runs, a Redis
// flush, and reads of the seat cache and of MySQL), the history records each operation's
// invocation and response on the monotonic clock, and porcupine checks it against the
// sequential model of one show in linearizable_model_test.go, one partition per show. A
// history is played in phases; between two phases nothing runs and the test clock moves
// 16 minutes, so orders of the phase before are past their deadline and, one phase
// later, past the payment grace: payments, cancels, expiry and reconciliation race over
// the same orders. At the end the clock moves once more, reconciliation runs until the
// stores agree, both stores are read once more, and CheckInvariants must hold.

// lzConfig is the shape of one history.
type lzConfig struct {
	name    string
	clients int
	users   int    // buyers, shared by the clients (purchase limit 4 each)
	layout  string // each show's hall; hall edits drop and restore its last seat
	perOp   int    // operations per client per phase
	phases  int
	flushes int // Redis flushes (FLUSHDB), spread over the phases after the first
	// noEdits leaves hall edits out (the broken-hold test compares holds, nothing else)
	noEdits bool
	// timeout bounds the checker (porcupine answers Unknown after it); a history that
	// cannot be decided in time fails.
	timeout time.Duration
}

// lzHistory is what one recorded history gave.
type lzHistory struct {
	result   porcupine.CheckResult
	ops      int // client operations
	steps    int // model steps: operations, seat-script runs, reconcile expiries, barriers
	scripts  int
	seats    []int // per show, at the start
	checking time.Duration
	visual   string   // the visualisation's file, for a history that is not linearizable
	problems []string // answers no operation should give (a 500, a failed script)
	// exchanged counts the exchanges that moved an order: a history without any would
	// check nothing of them
	exchanged int
}

// TestLinearizable_SeatStore checks small histories of every operation on the seat
// store for linearizability, each about 300 operations by 8 or 12 clients over two shows
// (10 and 5 seats, or 6 and 3) in three phases with one Redis flush, buyers also
// exchanging their orders' seats (at least one exchange must go through; up to three more
// histories are played until one does): a seat belongs to at
// most one live order, a batch is taken whole or not at all, nobody exceeds the purchase
// limit, an order only moves pending -> paid | cancelled | expired and paid -> refunded,
// nothing commits on a seat that left the hall, every refusal had its reason when it was
// given (a seat removed by a hall edit is SEAT_NOT_IN_SHOW, never UNAVAILABLE), every seat
// script answered what it should have, and every read saw a state the model was in
// (DESIGN.md invariants 1-5, 8 and 12; refunds of some seats free just those). Porcupine's HTML visualisation of a failing
// history is kept under $SEATFLOW_ARTIFACTS (or the temporary directory) and its path
// printed, with the whole history as text next to it (.html.txt).
func TestLinearizable_SeatStore(t *testing.T) {
	exchanged := 0
	configs := []lzConfig{
		{name: "8 clients 10 seats", clients: 8, users: 5, layout: "SSSSS\nSSSSS", perOp: 12, phases: 3, flushes: 1, timeout: time.Minute},
		{name: "12 clients 6 seats", clients: 12, users: 4, layout: "SSS\nSSS", perOp: 9, phases: 3, flushes: 1, timeout: time.Minute},
	}
	// random traffic moves no order in about one pair of histories in seventy (the
	// exchanges picked ended orders, or lost their seats): up to three more are played
	// until one does, so the exchanges are always checked
	for i := 0; i < len(configs)+3 && (i < len(configs) || exchanged == 0); i++ {
		c := configs[i%len(configs)]
		if i >= len(configs) {
			c.name += " again"
		}
		t.Run(c.name, func(t *testing.T) {
			h := runLinearizability(t, c, false)
			exchanged += h.exchanged
			lzExpectOk(t, h)
		})
	}
	if exchanged == 0 {
		t.Errorf("no exchange moved an order in any history: the check saw none")
	}
}

// lzExpectOk fails t unless the history was found linearizable.
func lzExpectOk(t *testing.T, h lzHistory) {
	t.Helper()
	switch h.result {
	case porcupine.Ok:
	case porcupine.Unknown:
		t.Errorf("the checker could not decide within its timeout")
	default:
		t.Errorf("the history is not linearizable; visualisation: %s (the history as text: %s.txt)", h.visual, h.visual)
	}
}

// TestLinearizable_SeatStoreLarge is TestLinearizable_SeatStore with larger histories
// (about 5,200 and 3,250 operations by 16 clients over shows of 10 and 20 seats, four
// phases, four Redis flushes each). Only with SEATFLOW_SOAK=1 (make soak).
func TestLinearizable_SeatStoreLarge(t *testing.T) {
	if os.Getenv("SEATFLOW_SOAK") != "1" {
		t.Skip("the large histories run with SEATFLOW_SOAK=1 (make soak)")
	}
	for _, c := range []lzConfig{
		{name: "16 clients 10 seats", clients: 16, users: 8, layout: "SSSSS\nSSSSS", perOp: 80, phases: 4, flushes: 4, timeout: 10 * time.Minute},
		{name: "16 clients 20 seats", clients: 16, users: 10, layout: "SSSSS\nSSSSS\nSSSSS\nSSSSS", perOp: 50, phases: 4, flushes: 4, timeout: 10 * time.Minute},
	} {
		t.Run(c.name, func(t *testing.T) {
			lzExpectOk(t, runLinearizability(t, c, false))
		})
	}
}

// TestLinearizable_CatchesBrokenHold proves that the check can fail: with a hold script
// that checks only the first seat of a batch and then writes every seat (lzBrokenHold,
// swapped in by the recording Redis hook), a history must be reported not linearizable,
// while the same kind of history with the real hold is linearizable. Hall edits and
// flushes are left out, so nothing but the hold differs. Random traffic breaks a batch
// in nearly every history (a later seat of a batch taken while its first is free, or the
// first taken with others); one history in twenty or so never does, so up to five are
// tried.
func TestLinearizable_CatchesBrokenHold(t *testing.T) {
	c := lzConfig{name: "hold check", clients: 8, users: 4, layout: "SSSSS\nSSSSS", perOp: 12, phases: 2, noEdits: true, timeout: time.Minute}
	t.Run("real hold", func(t *testing.T) {
		lzExpectOk(t, runLinearizability(t, c, false))
	})
	t.Run("broken hold", func(t *testing.T) {
		for try := 1; try <= 5; try++ {
			h := runLinearizability(t, c, true)
			if h.result == porcupine.Illegal {
				t.Logf("history %d with the broken hold: not linearizable, as it must be; visualisation: %s", try, h.visual)
				return
			}
		}
		t.Errorf("five histories with a hold that checks only the first seat were all called linearizable")
	})
}

// lzShowRig is one show of a history, in a hall of its own.
type lzShowRig struct {
	show     *services.Show
	hallID   int64
	hallName string
	full     string // the layout at the start
	cut      string // the layout without the last seat
	drop     string // the label the cut layout drops
	edit     sync.Mutex
	isCut    bool
	universe []int64 // every seat id the hall ever had (under lzRun.mu)
	house    []int64 // seats blocked by the history (under lzRun.mu)
}

// lzOrder is an order a client created, for the operations on orders.
type lzOrder struct {
	no    string
	user  int64
	show  int64
	seats []int64
}

// lzRun plays one history.
type lzRun struct {
	t       *testing.T
	e       *testenv.TestEnv
	cfg     lzConfig
	rec     *lzRecorder
	staffID int64
	users   []int64
	so      *staff.StaffOrders
	ss      *staff.ShowSeats
	cw      *catalog.CatalogWriter
	rc      *reconcile.Reconciler
	shows   []*lzShowRig
	mu      sync.Mutex
	halls   [][]services.Seat
	orders  []lzOrder
	pays    map[string]lzOrder // payment id -> order, started and not yet approved
}

var lzHallSeq int

// runLinearizability records one history of cfg (with the broken hold when broken) and
// checks it; it logs the history's size and the checking time.
func runLinearizability(t *testing.T, cfg lzConfig, broken bool) lzHistory {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.QuietLogs()
	ctx := context.Background()
	users := e.BulkUsers(cfg.users + 1)
	r := &lzRun{t: t, e: e, cfg: cfg, staffID: users[0], users: users[1:], pays: map[string]lzOrder{}}
	a := audit.NewAudit(e.DB, e.Clock)
	r.so = staff.NewStaffOrders(e.DB, e.Orders, e.Payments, e.Shows, a)
	r.ss = staff.NewShowSeats(e.DB, e.Orders, a, 0)
	r.cw = e.CatalogWriter(e.Shows)
	r.rc = testenv.NewReconciler(e, nil)
	initial := map[int64][]services.Seat{}
	for i := 0; i < 2; i++ {
		layout := cfg.layout
		if i == 1 { // the second show's hall is smaller: one row less
			layout = cfg.layout[:strings.LastIndexByte(cfg.layout, '\n')]
		}
		lzHallSeq++
		name := fmt.Sprintf("Linearizable %d", lzHallSeq)
		h, err := r.cw.CreateHall(ctx, r.staffID, catalog.HallInput{Name: name, Layout: layout})
		if err != nil {
			t.Fatal(err)
		}
		last := h.Seats[len(h.Seats)-1]
		sh := &lzShowRig{show: e.OnSaleShow(h.ID, i), hallID: h.ID, hallName: name, full: layout,
			cut: layout[:len(layout)-1], drop: last.Label}
		for _, s := range h.Seats {
			sh.universe = append(sh.universe, s.ID)
		}
		r.halls = append(r.halls, h.Seats)
		initial[sh.show.ID] = h.Seats
		r.shows = append(r.shows, sh)
	}
	for _, sh := range r.shows {
		if n := e.RDB.Exists(ctx, e.Seats.Keys(sh.show.ID)...).Val(); n != 0 {
			t.Fatalf("show %d has a seat map before the history starts", sh.show.ID)
		}
	}
	r.rec = newLzRecorder(broken)
	e.RDB.AddHook(r.rec)

	seed := uint64(time.Now().UnixNano())
	flushAt := map[[2]int]int{} // phase, client -> the op index of a flush
	for f := 0; f < cfg.flushes && cfg.phases > 1; f++ {
		flushAt[[2]int{1 + f%(cfg.phases-1), f % cfg.clients}] = cfg.perOp/2 + f/(cfg.phases-1)
	}
	for p := 0; p < cfg.phases; p++ {
		if p > 0 {
			r.advance()
		}
		var wg sync.WaitGroup
		for c := 0; c < cfg.clients; c++ {
			wg.Add(1)
			go func(c int) {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(seed, uint64(p*1000+c)))
				cctx := context.WithValue(ctx, lzClientKey{}, c)
				at, flush := flushAt[[2]int{p, c}]
				for i := 0; i < cfg.perOp; i++ {
					if flush && i == at {
						r.flush(cctx, c)
						continue
					}
					r.step(cctx, rng, c)
				}
			}(c)
		}
		wg.Wait()
	}
	r.converge(ctx)
	raws := r.rec.close()

	w := newLzWorld(r.shows[0].show.PurchaseLimit)
	for _, u := range r.users {
		w.userOf(u)
	}
	ops, problems := compileLz(raws, w, cfg.clients, initial, r.halls)
	model := lzModel(w)
	start := time.Now()
	res := porcupine.CheckOperationsTimeout(model, ops, cfg.timeout)
	h := lzHistory{result: res, steps: len(ops), checking: time.Since(start), problems: problems}
	var slowest *lzRaw
	for _, raw := range raws {
		if raw.kind == lzExchange && raw.err == nil {
			h.exchanged++
		}
		if raw.kind == lzScript {
			h.scripts++
		} else if raw.kind != lzAdvance {
			h.ops++
			if slowest == nil || raw.ret-raw.call > slowest.ret-slowest.call {
				slowest = raw
			}
		}
	}
	if slowest != nil {
		t.Logf("slowest operation: %s, %v", lzRawName(slowest), time.Duration(slowest.ret-slowest.call).Round(time.Millisecond))
	}
	for _, sh := range r.shows {
		h.seats = append(h.seats, len(initial[sh.show.ID]))
	}
	holdName := "real hold"
	if broken {
		holdName = "broken hold"
	}
	t.Logf("%s, %s, seed %d: %d operations by %d clients on 2 shows of %v seats (%d seat-script runs, %d model steps, %d exchanges made); checked in %v: %s",
		cfg.name, holdName, seed, h.ops, cfg.clients, h.seats, h.scripts, h.steps, h.exchanged, h.checking.Round(time.Millisecond), res)
	for _, p := range problems {
		t.Logf("unexpected answer: %s", p)
	}
	if res == porcupine.Illegal {
		_, info := porcupine.CheckOperationsVerbose(model, ops, cfg.timeout)
		h.visual = lzVisualize(t, model, info, broken)
		if h.visual != "" {
			lzDump(model, ops, h.visual+".txt")
		}
		t.Logf("where the history stops being linearizable:%s", lzExplain(model, ops, info))
	}
	if !broken {
		for _, sh := range r.shows {
			e.CheckInvariantsOf(sh.show)
		}
	}
	return h
}

// lzVisualize writes porcupine's visualisation of a history and returns its path: under
// $SEATFLOW_ARTIFACTS, else the temporary directory, so it outlives the test; the
// expected failure of the broken hold goes to the test's own directory unless
// $SEATFLOW_ARTIFACTS is set.
func lzVisualize(t *testing.T, model porcupine.Model, info porcupine.LinearizationInfo, expected bool) string {
	dir := os.Getenv("SEATFLOW_ARTIFACTS")
	switch {
	case dir != "":
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Errorf("artifacts directory: %v", err)
			return ""
		}
	case expected:
		dir = t.TempDir()
	default:
		dir = os.TempDir()
	}
	name := regexp.MustCompile(`[^A-Za-z0-9_.-]+`).ReplaceAllString(t.Name(), "_")
	path := filepath.Join(dir, fmt.Sprintf("seatflow-linearizability-%s-%d.html", name, time.Now().UnixNano()))
	if err := porcupine.VisualizePath(model, info, path); err != nil {
		t.Errorf("write the visualisation: %v", err)
		return ""
	}
	return path
}

// step runs one operation chosen at random by weight.
func (r *lzRun) step(ctx context.Context, rng *rand.Rand, c int) {
	type choice struct {
		weight int
		do     func()
	}
	edits := 3
	if r.cfg.noEdits {
		edits = 0
	}
	menu := []choice{
		{22, func() { r.create(ctx, rng, c, false) }},
		{8, func() { r.create(ctx, rng, c, true) }},
		{10, func() { r.pay(ctx, rng, c) }},
		{3, func() { r.approveLate(ctx, rng, c) }},
		{8, func() { r.cancel(ctx, rng, c) }},
		{4, func() { r.expire(ctx, rng, c) }},
		{5, func() { r.refund(ctx, rng, c) }},
		{4, func() { r.refundSeats(ctx, rng, c) }},
		{3, func() { r.release(ctx, rng, c) }},
		{4, func() { r.block(ctx, rng, c) }},
		{3, func() { r.unblock(ctx, rng, c) }},
		{edits, func() { r.editHall(ctx, rng, c) }},
		{2, func() { r.reconcile(ctx, c) }},
		{16, func() { r.exchange(ctx, rng, c) }},
		{12, func() { r.readCache(ctx, r.shows[rng.IntN(len(r.shows))], c, rng.IntN(2) == 0) }},
		{10, func() { r.readDB(ctx, r.shows[rng.IntN(len(r.shows))], c) }},
	}
	total := 0
	for _, m := range menu {
		total += m.weight
	}
	k := rng.IntN(total)
	for _, m := range menu {
		if k < m.weight {
			m.do()
			return
		}
		k -= m.weight
	}
}

// lzRawName names a recorded operation for the log.
func lzRawName(raw *lzRaw) string {
	if raw.reconcile {
		return "reconciliation run"
	}
	return raw.kind.String()
}

// record times one operation: call before do, return after it.
func (r *lzRun) record(client int, raw *lzRaw, do func()) {
	raw.client = client
	raw.call = r.rec.now()
	do()
	raw.ret = r.rec.now()
	r.rec.add(raw)
}

// pickSeats returns 1 to 3 distinct seats the show's hall has or had.
func (r *lzRun) pickSeats(rng *rand.Rand, sh *lzShowRig) []int64 {
	r.mu.Lock()
	all := append([]int64(nil), sh.universe...)
	r.mu.Unlock()
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	return all[:min(len(all), 1+rng.IntN(3))]
}

// pickOrder returns an order some client created, or false.
func (r *lzRun) pickOrder(rng *rand.Rand) (lzOrder, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.orders) == 0 {
		return lzOrder{}, false
	}
	// mostly recent orders: those are the live ones
	n := len(r.orders)
	i := n - 1 - rng.IntN(min(n, 12))
	if rng.IntN(4) == 0 {
		i = rng.IntN(n)
	}
	return r.orders[i], true
}

// create orders 1 to 3 seats of a show for a random buyer: chosen seats (some may have
// left the hall) or, with best, that many side by side in the standard zone.
func (r *lzRun) create(ctx context.Context, rng *rand.Rand, c int, best bool) {
	sh := r.shows[rng.IntN(len(r.shows))]
	req := orders.CreateOrderRequest{UserID: r.users[rng.IntN(len(r.users))], ShowID: sh.show.ID}
	raw := &lzRaw{kind: lzCreate, show: sh.show.ID, user: req.UserID}
	if best {
		req.Zone, req.Quantity = catalog.ZoneStandard, 1+rng.IntN(3)
		raw.zone, raw.qty = req.Zone, req.Quantity
	} else {
		req.SeatIDs = r.pickSeats(rng, sh)
		raw.seatIDs = req.SeatIDs
	}
	r.record(c, raw, func() { raw.order, raw.err = r.e.Orders.Create(ctx, req) })
	if raw.order != nil {
		o := lzOrder{no: raw.order.OrderNo, user: req.UserID, show: sh.show.ID}
		for _, s := range raw.order.Seats {
			o.seats = append(o.seats, s.SeatID)
		}
		r.mu.Lock()
		r.orders = append(r.orders, o)
		r.mu.Unlock()
	}
}

// pay starts paying an order and mostly approves it at once; the other payments are
// approved later, maybe after the clock moved (a late webhook).
func (r *lzRun) pay(ctx context.Context, rng *rand.Rand, c int) {
	o, ok := r.pickOrder(rng)
	if !ok {
		r.create(ctx, rng, c, false)
		return
	}
	raw := &lzRaw{kind: lzPayStart, show: o.show, user: o.user, orderNo: o.no}
	var p *orders.Payment
	r.record(c, raw, func() { p, _, raw.err = r.e.Payments.Start(ctx, o.user, o.no, "demo") })
	if p == nil {
		return
	}
	if rng.IntN(10) < 3 {
		r.mu.Lock()
		r.pays[p.PaymentID] = o
		r.mu.Unlock()
		return
	}
	r.approve(ctx, c, p.PaymentID, o)
}

// approveLate delivers the approval of a payment started earlier (else pays afresh).
func (r *lzRun) approveLate(ctx context.Context, rng *rand.Rand, c int) {
	r.mu.Lock()
	ids := make([]string, 0, len(r.pays))
	for id := range r.pays {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var id string
	var o lzOrder
	if len(ids) > 0 {
		id = ids[rng.IntN(len(ids))]
		o = r.pays[id]
		delete(r.pays, id)
	}
	r.mu.Unlock()
	if id == "" {
		r.pay(ctx, rng, c)
		return
	}
	r.approve(ctx, c, id, o)
}

// approve delivers the provider's approval and reads the payment's status after it.
func (r *lzRun) approve(ctx context.Context, c int, paymentID string, o lzOrder) {
	raw := &lzRaw{kind: lzPayApprove, show: o.show, user: o.user, orderNo: o.no}
	r.record(c, raw, func() {
		if _, raw.err = r.e.Payments.DemoDecide(ctx, paymentID, true); raw.err != nil {
			return
		}
		var p *orders.Payment
		if p, raw.err = r.e.Payments.Payment(ctx, paymentID); p != nil {
			raw.payStatus = p.Status
		}
	})
}

// cancel has the buyer cancel an order, whatever its state.
func (r *lzRun) cancel(ctx context.Context, rng *rand.Rand, c int) {
	o, ok := r.pickOrder(rng)
	if !ok {
		return
	}
	raw := &lzRaw{kind: lzCancel, show: o.show, user: o.user, orderNo: o.no}
	r.record(c, raw, func() { _, raw.err = r.e.Orders.Cancel(ctx, o.user, o.no) })
}

// exchange has the buyer move an order onto as many seats of its show (some may be its
// own already, some may have left the hall), whatever its state; a success is
// remembered as the order's seats.
func (r *lzRun) exchange(ctx context.Context, rng *rand.Rand, c int) {
	o, ok := r.pickOrder(rng)
	if !ok || len(o.seats) == 0 {
		return
	}
	var sh *lzShowRig
	for _, s := range r.shows {
		if s.show.ID == o.show {
			sh = s
		}
	}
	r.mu.Lock()
	all := append([]int64(nil), sh.universe...)
	r.mu.Unlock()
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	want := all[:min(len(all), len(o.seats))]
	if rng.IntN(3) > 0 { // mostly: keep all but one of its seats, move that one
		want = append([]int64(nil), o.seats[1:]...)
		for _, id := range all {
			if !slices.Contains(o.seats, id) {
				want = append(want, id)
				break
			}
		}
	}
	raw := &lzRaw{kind: lzExchange, show: o.show, user: o.user, orderNo: o.no, seatIDs: want}
	r.record(c, raw, func() {
		raw.order, raw.err = r.e.Orders.Exchange(ctx, orders.ExchangeRequest{UserID: o.user, OrderNo: o.no, SeatIDs: want})
	})
	if raw.order == nil {
		return
	}
	r.mu.Lock()
	for i := range r.orders {
		if r.orders[i].no == o.no {
			r.orders[i].seats = append([]int64(nil), want...)
		}
	}
	r.mu.Unlock()
}

// expire runs an order's expiry as the expiry task does, whether or not it is due.
func (r *lzRun) expire(ctx context.Context, rng *rand.Rand, c int) {
	o, ok := r.pickOrder(rng)
	if !ok {
		return
	}
	raw := &lzRaw{kind: lzExpire, show: o.show, user: o.user, orderNo: o.no}
	r.record(c, raw, func() { raw.won, raw.err = r.e.Orders.Expire(ctx, o.no) })
}

// refund has staff refund an order, whatever its state.
func (r *lzRun) refund(ctx context.Context, rng *rand.Rand, c int) {
	o, ok := r.pickOrder(rng)
	if !ok {
		return
	}
	raw := &lzRaw{kind: lzRefund, show: o.show, user: o.user, orderNo: o.no}
	r.record(c, raw, func() { _, raw.err = r.so.Refund(ctx, r.staffID, o.no, "") })
}

// refundSeats has staff refund some seats of an order (one, or all but one), whatever
// its state.
func (r *lzRun) refundSeats(ctx context.Context, rng *rand.Rand, c int) {
	o, ok := r.pickOrder(rng)
	if !ok {
		return
	}
	ids := []int64{o.seats[rng.IntN(len(o.seats))]}
	if len(o.seats) > 2 && rng.IntN(2) == 0 {
		ids = o.seats[1:]
	}
	raw := &lzRaw{kind: lzRefundSeats, show: o.show, user: o.user, orderNo: o.no, seatIDs: ids}
	r.record(c, raw, func() { _, raw.err = r.so.RefundSeats(ctx, r.staffID, o.no, "", ids) })
}

// release has staff free one seat of an order (ShowSeats.Release).
func (r *lzRun) release(ctx context.Context, rng *rand.Rand, c int) {
	o, ok := r.pickOrder(rng)
	if !ok {
		return
	}
	seat := o.seats[rng.IntN(len(o.seats))]
	raw := &lzRaw{kind: lzRelease, show: o.show, user: o.user, orderNo: o.no, seatIDs: []int64{seat}}
	r.record(c, raw, func() {
		var res *staff.SeatRelease
		if res, raw.err = r.ss.Release(ctx, r.staffID, o.show, seat, o.no, "stuck seat"); res != nil {
			raw.action = res.Action
		}
	})
}

// block makes 1 or 2 seats of a show house seats.
func (r *lzRun) block(ctx context.Context, rng *rand.Rand, c int) {
	sh := r.shows[rng.IntN(len(r.shows))]
	ids := r.pickSeats(rng, sh)
	if k := 1 + rng.IntN(2); k < len(ids) {
		ids = ids[:k]
	}
	raw := &lzRaw{kind: lzBlock, show: sh.show.ID, seatIDs: ids}
	r.record(c, raw, func() { _, raw.err = r.ss.Block(ctx, r.staffID, sh.show.ID, ids, "press") })
	if raw.err == nil {
		r.mu.Lock()
		sh.house = append(sh.house, ids...)
		r.mu.Unlock()
	}
}

// unblock frees a seat the history blocked (or, now and then, any seat).
func (r *lzRun) unblock(ctx context.Context, rng *rand.Rand, c int) {
	sh := r.shows[rng.IntN(len(r.shows))]
	r.mu.Lock()
	var ids []int64
	if len(sh.house) > 0 && rng.IntN(5) > 0 {
		k := rng.IntN(len(sh.house))
		ids = []int64{sh.house[k]}
		sh.house = append(sh.house[:k], sh.house[k+1:]...)
	}
	r.mu.Unlock()
	if ids == nil {
		ids = r.pickSeats(rng, sh)[:1]
	}
	raw := &lzRaw{kind: lzUnblock, show: sh.show.ID, seatIDs: ids}
	r.record(c, raw, func() { _, raw.err = r.ss.Unblock(ctx, r.staffID, sh.show.ID, ids, "released") })
}

// editHall drops the hall's last seat or brings it back (one edit of a hall at a time,
// so the hall it answers is the edit's own result).
func (r *lzRun) editHall(ctx context.Context, rng *rand.Rand, c int) {
	sh := r.shows[rng.IntN(len(r.shows))]
	sh.edit.Lock()
	defer sh.edit.Unlock()
	layout, drop := sh.cut, []string{sh.drop}
	if sh.isCut {
		layout, drop = sh.full, nil
	}
	raw := &lzRaw{kind: lzEdit, show: sh.show.ID, drop: drop}
	var h *catalog.HallLayout
	r.record(c, raw, func() {
		if h, raw.err = r.cw.UpdateHall(ctx, r.staffID, sh.hallID, catalog.HallInput{Name: sh.hallName, Layout: layout}); h != nil {
			raw.hall = h.Seats
		}
	})
	if raw.err != nil {
		return
	}
	sh.isCut = !sh.isCut
	r.mu.Lock()
	defer r.mu.Unlock()
	r.halls = append(r.halls, h.Seats)
	for _, s := range h.Seats {
		known := false
		for _, id := range sh.universe {
			known = known || id == s.ID
		}
		if !known {
			sh.universe = append(sh.universe, s.ID)
		}
	}
}

// reconcile runs reconciliation (60 s grace, as in production) for every show.
func (r *lzRun) reconcile(ctx context.Context, c int) {
	raw := &lzRaw{kind: lzReconcileExpire, reconcile: true}
	r.record(c, raw, func() {
		run, err := r.rc.Run(ctx, reconcile.ReconcileOptions{Trigger: reconcile.TriggerManual, Wait: 20 * time.Second})
		if run != nil {
			raw.findings = run.Findings
		}
		if err != nil && !errors.Is(err, reconcile.ErrLeaseLost) {
			r.t.Logf("reconciliation run: %v", err)
		}
	})
}

// flush empties the test Redis database (FLUSHDB): every seat map, counter, fence and
// lease is gone.
func (r *lzRun) flush(ctx context.Context, c int) {
	raw := &lzRaw{kind: lzFlush}
	r.record(c, raw, func() { raw.err = r.e.RDB.FlushDB(ctx).Err() })
}

// readCache reads the show's seat cache: the seat map as buyers get it (SeatStore.States,
// which loads a missing map) or all three hashes in one MULTI (SeatStore.ReadCache).
func (r *lzRun) readCache(ctx context.Context, sh *lzShowRig, c int, states bool) {
	raw := &lzRaw{kind: lzReadCache, show: sh.show.ID}
	r.record(c, raw, func() {
		if states {
			raw.states, raw.err = r.e.Seats.States(ctx, sh.show.ID)
			return
		}
		raw.cache, raw.err = r.e.Seats.ReadCache(ctx, sh.show.ID)
		if raw.err == nil && raw.cache.WrongType {
			raw.err = errors.New("a key of the seat map is not a hash")
		}
	})
}

// readDB reads the show's truth from MySQL in one consistent snapshot (REPEATABLE READ,
// the read view made by the first SELECT): the hall's seats, the house seats, the live
// seats with their orders and the status of each of the show's orders.
func (r *lzRun) readDB(ctx context.Context, sh *lzShowRig, c int) {
	raw := &lzRaw{kind: lzReadDB, show: sh.show.ID}
	r.record(c, raw, func() { raw.db, raw.err = r.snapshot(ctx, sh) })
}

// snapshot is readDB's transaction.
func (r *lzRun) snapshot(ctx context.Context, sh *lzShowRig) (*lzDBRead, error) {
	tx, err := r.e.DB.BeginTxx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	d := &lzDBRead{live: map[int64]string{}, status: map[string]string{}}
	if err := tx.SelectContext(ctx, &d.hall, "SELECT id FROM seats WHERE hall_id = ?", sh.hallID); err != nil {
		return nil, err
	}
	if err := tx.SelectContext(ctx, &d.house, "SELECT seat_id FROM show_house_seats WHERE show_id = ?", sh.show.ID); err != nil {
		return nil, err
	}
	var live []struct {
		SeatID  int64  `db:"seat_id"`
		OrderNo string `db:"order_no"`
	}
	if err := tx.SelectContext(ctx, &live, `SELECT os.seat_id, o.order_no FROM order_seats os JOIN orders o ON o.id = os.order_id
		WHERE os.show_id = ? AND os.live = 1`, sh.show.ID); err != nil {
		return nil, err
	}
	for _, l := range live {
		d.live[l.SeatID] = l.OrderNo
	}
	var st []struct {
		OrderNo string `db:"order_no"`
		Status  string `db:"status"`
	}
	if err := tx.SelectContext(ctx, &st, "SELECT order_no, status FROM orders WHERE show_id = ?", sh.show.ID); err != nil {
		return nil, err
	}
	for _, s := range st {
		d.status[s.OrderNo] = s.Status
	}
	return d, tx.Commit()
}

// advance moves the test clock one epoch (16 minutes) while nothing runs.
func (r *lzRun) advance() {
	raw := &lzRaw{kind: lzAdvance}
	r.record(-1, raw, func() { r.e.Clock.Advance(lzEpochMinutes * time.Minute) })
}

// converge ends a history the way production settles: the clock moves past every
// deadline and the grace, reconciliation (with the seat-sync retries) runs until it
// finds nothing for either show, and both stores are read once more.
func (r *lzRun) converge(ctx context.Context) {
	r.advance()
	for round := 0; round < 6; round++ {
		if _, err := r.e.Orders.RetrySeatSyncs(ctx, 1000); err != nil {
			r.t.Logf("seat syncs: %v", err)
		}
		r.reconcile(ctx, -1)
		clean := true
		for _, sh := range r.shows {
			fs, err := r.rc.Inspect(ctx, sh.show.ID, 0)
			clean = clean && err == nil && len(fs) == 0
		}
		if clean {
			break
		}
	}
	for _, sh := range r.shows {
		r.readCache(ctx, sh, -1, false)
		r.readDB(ctx, sh, -1)
	}
}

// String names a step kind (for logs).
func (k lzKind) String() string {
	if int(k) < len(lzKindNames) {
		return lzKindNames[k]
	}
	return strconv.Itoa(int(k))
}
