package invariants

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/redis/go-redis/v9"

	"seatflow/lua"
	"seatflow/services"
	"seatflow/services/seats"
)

// Recording a history for the linearizability check (linearizable_test.go): every client
// operation with its invocation and response time, and, through a hook on the env's
// Redis client, every run of a seat script with its own round trip, its arguments and
// its reply. Times are nanoseconds on the monotonic clock since the history started.

// lzClientKey is the context key carrying the client that made a call, so the scripts
// it runs are drawn in its lane of the visualisation.
type lzClientKey struct{}

// lzRaw is one recorded step, before it is mapped onto the model (compileLz).
type lzRaw struct {
	kind       lzKind
	reconcile  bool // a reconciliation run: one lzReconcileExpire step per overdue order it met
	client     int  // -1: no client (a script run outside any client's call)
	call, ret  int64
	show       int64
	user       int64
	orderNo    string
	seatIDs    []int64
	zone       string
	qty        int
	drop       []string
	err        error
	order      *services.Order
	won        bool
	payStatus  string
	action     string
	hall       []services.Seat // init and hall edits: the hall's seats after
	db         *lzDBRead
	cache      *seats.CacheState
	states     map[int64]string
	findings   []seats.Finding
	script     string
	argv       []string
	reply      []string
	scriptFail string
}

// lzDBRead is one consistent MySQL snapshot of a show.
type lzDBRead struct {
	hall, house []int64
	live        map[int64]string // seat id -> order number
	status      map[string]string
}

// lzRecorder collects a history. With brokenHold set, its hook makes Redis run
// lzBrokenHold instead of lua/hold.lua.
type lzRecorder struct {
	start      time.Time
	kinds      map[string]string // script SHA-1 or source -> script name
	brokenHold bool
	broken     map[string][2]string // script name -> the broken hold's SHA-1 and source
	inflight   atomic.Int64         // seat scripts sent and not yet recorded
	mu         sync.Mutex
	raws       []*lzRaw
	closed     bool // the history ended: later steps are not recorded
}

// newLzRecorder starts a history now; it knows the seat scripts by source and SHA-1.
func newLzRecorder(brokenHold bool) *lzRecorder {
	r := &lzRecorder{start: time.Now(), kinds: map[string]string{}, brokenHold: brokenHold}
	for name, src := range map[string]string{"hold": lua.Hold, "order": lua.Order, "release": lua.Release, "sell": lua.Sell,
		"load": lua.Load, "repair": lua.Repair, "house": lua.House, "exchange": lua.Exchange} {
		r.kinds[src] = name
		r.kinds[redis.NewScript(src).Hash()] = name
	}
	if brokenHold {
		r.broken = map[string][2]string{}
		for name, src := range map[string]string{"hold": lua.Hold, "order": lua.Order} {
			b := lzBrokenHold(src)
			r.broken[name] = [2]string{redis.NewScript(b).Hash(), b}
		}
	}
	return r
}

// now is the time since the history started, on the monotonic clock (ns, at least 1:
// 0 is the shows' initial state).
func (r *lzRecorder) now() int64 { return int64(time.Since(r.start)) + 1 }

// add appends a step to the history, until it is closed.
func (r *lzRecorder) add(raw *lzRaw) {
	r.mu.Lock()
	if !r.closed {
		r.raws = append(r.raws, raw)
	}
	r.mu.Unlock()
}

// close ends the history and returns it. Work the services left running in the
// background (a hall refresh after a commit found a seat gone) may still be running a
// seat script: close waits (up to 10 s) until none is between its call and its
// record, so every script that may have run before the last read is in the history;
// scripts started later changed nothing any recorded step saw.
func (r *lzRecorder) close() []*lzRaw {
	for deadline := time.Now().Add(10 * time.Second); r.inflight.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	return append([]*lzRaw(nil), r.raws...)
}

// lzBrokenHold is src (lua.Hold, or lua.Order, which runs it as its function hold) with
// lua/hold.lua broken on purpose: it checks only the first seat of the batch and then
// writes every seat, so a batch whose first seat is free takes the others whoever holds
// them. The check must catch it (TestLinearizable_CatchesBrokenHold). The order script's
// own precheck is broken the same way, or it would refuse the batch first.
func lzBrokenHold(src string) string {
	const check = "if v ~= 'F' then taken[#taken + 1] = id end"
	const pre = "if owner == user then own = '1' else taken[#taken + 1] = id end"
	if !strings.Contains(src, check) || src == lua.Order && !strings.Contains(src, pre) {
		panic("lua/hold.lua or lua/order.lua changed: update lzBrokenHold")
	}
	src = strings.Replace(src, pre, "if owner == user then own = '1' elseif i == 0 then taken[#taken + 1] = id end", 1)
	return strings.Replace(src, check, "if v ~= 'F' and i == 0 then taken[#taken + 1] = id end", 1)
}

// DialHook is the hook's no-op for new connections.
func (r *lzRecorder) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessPipelineHook records the seat script runs of a pipeline (the seat store's
// scripts share pipelines when called at the same moment): each between the
// pipeline's call and its return, when it ran in Redis.
func (r *lzRecorder) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		scripts, found := make([]string, len(cmds)), false
		for i, cmd := range cmds {
			scripts[i] = r.prepare(cmd)
			found = found || scripts[i] != ""
		}
		if !found {
			return next(ctx, cmds)
		}
		r.inflight.Add(1)
		defer r.inflight.Add(-1)
		call := r.now()
		err := next(ctx, cmds)
		ret := r.now()
		for i, script := range scripts {
			if script != "" {
				r.record(ctx, cmds[i], script, cmds[i].Err(), call, ret)
			}
		}
		return err
	}
}

// ProcessHook records each seat script run (EVALSHA or EVAL of a script of package lua
// that writes seat state) and swaps the broken hold in when asked.
func (r *lzRecorder) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		script := r.prepare(cmd)
		if script == "" {
			return next(ctx, cmd)
		}
		r.inflight.Add(1)
		defer r.inflight.Add(-1)
		call := r.now()
		err := next(ctx, cmd)
		ret := r.now()
		r.record(ctx, cmd, script, err, call, ret)
		return err
	}
}

// prepare returns which seat script cmd runs ("" for another command) and swaps the
// broken hold in when asked.
func (r *lzRecorder) prepare(cmd redis.Cmder) string {
	name := cmd.Name()
	if name != "evalsha" && name != "eval" {
		return ""
	}
	args := cmd.Args()
	body, _ := args[1].(string)
	script := r.kinds[body]
	if script == "" {
		return ""
	}
	if b, ok := r.broken[script]; ok {
		if name == "evalsha" {
			args[1] = b[0]
		} else {
			args[1] = b[1]
		}
	}
	return script
}

// record adds the run of seat script cmd (prepare's name for it) between call and ret,
// answered err, to the history.
func (r *lzRecorder) record(ctx context.Context, cmd redis.Cmder, script string, err error, call, ret int64) {
	if err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
		return // nothing ran; go-redis sends the source next
	}
	args := cmd.Args()
	nkeys, _ := strconv.Atoi(fmt.Sprint(args[2]))
	raw := &lzRaw{kind: lzScript, client: -1, call: call, ret: ret, script: script,
		show: lzShowOfKey(fmt.Sprint(args[3]))}
	if c, ok := ctx.Value(lzClientKey{}).(int); ok {
		raw.client = c
	}
	for _, a := range args[3+nkeys:] {
		raw.argv = append(raw.argv, fmt.Sprint(a))
	}
	if err != nil {
		raw.scriptFail = err.Error()
	} else if v, ok := cmd.(*redis.Cmd).Val().([]interface{}); ok {
		for _, x := range v {
			raw.reply = append(raw.reply, fmt.Sprint(x))
		}
	}
	if script == "order" {
		// the order script's seat step is its hold (hold.lua's ARGV after the gate's,
		// its reply after the phase's four fields); the steps before it write no seat
		// state and are not recorded
		switch {
		case len(raw.reply) > 4 && raw.reply[0] == "HOLD":
			raw.reply = raw.reply[4:]
		case err != nil || len(raw.reply) > 0 && raw.reply[0] == "NOT_LOADED":
		default:
			return
		}
		raw.script, raw.argv = "hold", raw.argv[1:]
	}
	r.add(raw)
}

// lzExchangeOrderNo is the order number an exchange script run names (its hold ARGV's
// first, after the old seats), or "".
func lzExchangeOrderNo(raw *lzRaw) string {
	if raw.kind != lzScript || raw.script != "exchange" || len(raw.argv) < 2 {
		return ""
	}
	if i := 2 + 2*atoi(raw.argv[1]); i < len(raw.argv) {
		return raw.argv[i]
	}
	return ""
}

var showKeyRe = regexp.MustCompile(`\{show:(\d+)\}`)

// lzShowOfKey is the show id in a seat-map key (sf:{show:42}:seats), -1 for none.
func lzShowOfKey(k string) int64 {
	m := showKeyRe.FindStringSubmatch(k)
	if m == nil {
		return -1
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	return id
}

var orderStateRe = regexp.MustCompile(`order is (pending|paid|cancelled|expired|refunded)`)

// compileLz maps the recorded history onto the model: a world of seats (from the halls
// the history saw), orders and users, and one porcupine operation per step. Clients
// draw in lanes 0..clients-1, their scripts in lanes clients.., scripts outside any
// call and the barriers in the last two lanes.
func compileLz(raws []*lzRaw, w *lzWorld, clients int, shows map[int64][]services.Seat, halls [][]services.Seat) ([]porcupine.Operation, []string) {
	for _, h := range halls {
		for _, s := range h {
			w.seatOf(s)
		}
	}
	var problems []string
	lane := func(raw *lzRaw) int {
		switch {
		case raw.kind == lzScript && raw.client >= 0:
			return clients + raw.client
		case raw.kind == lzScript:
			return 2 * clients
		case raw.client < 0:
			return 2*clients + 1
		}
		return raw.client
	}
	var ops []porcupine.Operation
	for id, hall := range shows {
		in := &lzIn{kind: lzInit, show: id, order: -1}
		for _, s := range hall {
			in.seats = append(in.seats, w.seatOf(s))
		}
		ops = append(ops, porcupine.Operation{ClientId: 2*clients + 1, Input: in, Output: &lzOut{}, Call: 0, Return: 0})
	}
	// the seat scripts each client ran, by order number: they bound when an operation's
	// MySQL commit can have happened (tighten)
	scriptsOf := map[string][]*lzRaw{}
	for _, raw := range raws {
		if raw.kind == lzScript && len(raw.argv) > 0 && (raw.script == "hold" || raw.script == "release" || raw.script == "sell") {
			scriptsOf[raw.argv[0]] = append(scriptsOf[raw.argv[0]], raw)
		}
		if no := lzExchangeOrderNo(raw); no != "" {
			scriptsOf[no] = append(scriptsOf[no], raw)
		}
	}
	seatsOf := func(ids []int64) []int {
		out := make([]int, len(ids))
		for i, id := range ids {
			out[i] = w.seatID(id)
		}
		return out
	}
	for _, raw := range raws {
		in := &lzIn{kind: raw.kind, show: raw.show, order: -1, seats: seatsOf(raw.seatIDs), zone: raw.zone, qty: raw.qty,
			drop: raw.drop, script: raw.script, argv: raw.argv}
		out := &lzOut{order: -1, won: raw.won, payStatus: raw.payStatus, action: raw.action, reply: raw.reply}
		if raw.user != 0 {
			in.user = w.userOf(raw.user)
		}
		if raw.orderNo != "" {
			u := -1
			if raw.user != 0 {
				u = in.user
			}
			in.order = w.orderOf(raw.orderNo, u)
		}
		if raw.err != nil {
			out.code, out.msg = services.ErrorCode(raw.err), raw.err.Error()
			if out.code == "" {
				out.code = "ERROR"
			}
			if m := orderStateRe.FindStringSubmatch(out.msg); m != nil && out.code == services.CodeOrderState {
				out.status = lzStatusOf[m[1]]
			}
			switch out.code {
			case services.CodeInvalidRequest:
				// an exchange of another count of seats, of none or of a refunded one; a
				// refund of seats the order no longer has (the model decides both)
				if raw.kind != lzExchange && raw.kind != lzRefundSeats {
					problems = append(problems, fmt.Sprintf("%s: %v", lzKindNames[raw.kind], raw.err))
				}
			case services.CodeSeatTaken, services.CodeLimitExceeded, services.CodeSoldOut, services.CodeOrderState,
				services.CodeNoAdjacentSeats, services.CodeConflict, services.CodeSeatNotInShow, services.CodeNotFound:
			case services.CodeUnavailable:
				// a create of a seat a hall edit just put back, before its map refresh
				// (the model decides when that holds), or an exchange that was a deadlock
				// victim and could not give its cache step back; any other is a problem
				notLoaded := raw.kind == lzCreate && strings.Contains(out.msg, "seat map not loaded")
				deadlock := raw.kind == lzExchange && strings.Contains(out.msg, "Deadlock found")
				if !notLoaded && !deadlock {
					problems = append(problems, fmt.Sprintf("%s: %v", lzKindNames[raw.kind], raw.err))
				}
			default:
				problems = append(problems, fmt.Sprintf("%s: %v", lzKindNames[raw.kind], raw.err))
			}
		}
		if raw.order != nil {
			out.order = w.orderOf(raw.order.OrderNo, in.user)
			for _, s := range raw.order.Seats {
				out.seats = append(out.seats, w.seatID(s.SeatID))
			}
		}
		if raw.kind == lzEdit && raw.err == nil {
			for _, s := range raw.hall {
				out.seats = append(out.seats, w.seatOf(s))
			}
		}
		if raw.db != nil {
			out.dbHall, out.dbHouse = seatsOf(raw.db.hall), seatsOf(raw.db.house)
			out.dbLive, out.dbStatus = map[int]int{}, map[int]byte{}
			for s, no := range raw.db.live {
				out.dbLive[w.seatID(s)] = w.orderOf(no, -1)
			}
			for no, st := range raw.db.status {
				out.dbStatus[w.orderOf(no, -1)] = lzStatusOf[st]
			}
		}
		switch {
		case raw.kind == lzReadCache && raw.cache != nil:
			out.counters, out.cacheMissing = true, raw.cache.Seats == nil
			out.cacheSeats, out.cacheZones, out.cacheUsers = map[string]string{}, raw.cache.Zones, map[string]string{}
			for id, v := range raw.cache.Seats {
				out.cacheSeats[strconv.FormatInt(id, 10)] = v
			}
			for id, v := range raw.cache.Users {
				out.cacheUsers[strconv.FormatInt(id, 10)] = v
			}
		case raw.kind == lzReadCache:
			out.cacheSeats = map[string]string{}
			for id, v := range raw.states {
				out.cacheSeats[strconv.FormatInt(id, 10)] = v
			}
		case raw.kind == lzScript:
			if raw.scriptFail != "" {
				problems = append(problems, fmt.Sprintf("%s.lua: %s", raw.script, raw.scriptFail))
			}
			if raw.script == "hold" {
				if uid, err := strconv.ParseInt(raw.argv[1], 10, 64); err == nil {
					w.orderOf(raw.argv[0], w.userOf(uid))
				}
			}
		}
		op := porcupine.Operation{ClientId: lane(raw), Input: in, Output: out, Call: raw.call, Return: raw.ret}
		tighten(&op, raw, scriptsOf)
		if raw.kind == lzEdit && raw.err == nil {
			listed := &lzIn{kind: lzEditListed, show: raw.show, order: -1}
			ops = append(ops, porcupine.Operation{ClientId: op.ClientId, Input: listed, Output: out, Call: raw.call, Return: raw.ret})
		}
		if !raw.reconcile {
			ops = append(ops, op)
			continue
		}
		// a run expires each overdue order on its own: one step per order, each anywhere
		// inside the run
		for _, f := range raw.findings {
			if f.Kind != seats.FindingOverdueOrder {
				continue
			}
			rin := &lzIn{kind: lzReconcileExpire, show: f.ShowID, order: w.orderOf(f.OrderNo, -1)}
			ops = append(ops, porcupine.Operation{ClientId: op.ClientId, Input: rin, Output: &lzOut{order: -1, won: f.Fixed},
				Call: raw.call, Return: raw.ret})
		}
	}
	return ops, problems
}

// tighten narrows an operation's interval to where its MySQL commit can have happened,
// which makes the search cheaper and loses nothing: an order commits only after its hold
// script answered OK (the client sends the commit after the reply), and a transition
// that ends or pays an order commits before the client sends the release or sell script
// for it. Only scripts of the same client inside the operation's interval count.
func tighten(op *porcupine.Operation, raw *lzRaw, scriptsOf map[string][]*lzRaw) {
	mine := func(sc *lzRaw) bool { return sc.client == raw.client && sc.call >= raw.call && sc.ret <= raw.ret }
	switch {
	case raw.kind == lzCreate && raw.order != nil:
		for _, sc := range scriptsOf[raw.order.OrderNo] {
			if sc.script == "hold" && mine(sc) && len(sc.reply) > 0 && sc.reply[0] == "OK" && sc.ret > op.Call {
				op.Call = sc.ret
			}
		}
	case raw.kind == lzExchange && raw.err == nil:
		for _, sc := range scriptsOf[raw.orderNo] {
			if sc.script == "exchange" && mine(sc) && len(sc.reply) > 0 && sc.reply[0] == "OK" && sc.ret > op.Call {
				op.Call = sc.ret
			}
		}
	case raw.kind == lzCancel || raw.kind == lzExpire || raw.kind == lzRefund || raw.kind == lzPayApprove ||
		raw.kind == lzPayStart || raw.kind == lzRelease || raw.kind == lzRefundSeats:
		for _, sc := range scriptsOf[raw.orderNo] {
			if (sc.script == "release" || sc.script == "sell") && mine(sc) && sc.call < op.Return {
				op.Return = sc.call
			}
		}
	}
}

// lzExplain describes where a history stops being linearizable, for the failure message:
// in each partition that fails, the model's state after the longest linearizable prefix
// porcupine found and the first operations it could not place after it.
func lzExplain(model porcupine.Model, ops []porcupine.Operation, info porcupine.LinearizationInfo) string {
	var b strings.Builder
	parts := model.Partition(ops)
	partials := info.PartialLinearizationsOperations()
	for p, part := range parts {
		if p >= len(partials) {
			break
		}
		var longest []porcupine.Operation
		for _, l := range partials[p] {
			if len(l) > len(longest) {
				longest = l
			}
		}
		if len(longest) == len(part) {
			continue
		}
		state := model.Init()
		done := map[*lzIn]bool{}
		for _, op := range longest {
			_, state = model.Step(state, op.Input, op.Output)
			done[op.Input.(*lzIn)] = true
		}
		var rest []porcupine.Operation
		for _, op := range part {
			if !done[op.Input.(*lzIn)] {
				rest = append(rest, op)
			}
		}
		sortOps(rest)
		fmt.Fprintf(&b, "\npartition of show %d: %d of %d steps linearized; state then: %s\nfirst steps that do not fit:",
			part[0].Input.(*lzIn).show, len(longest), len(part), model.DescribeState(state))
		for i, op := range rest {
			if i == 8 {
				break
			}
			fmt.Fprintf(&b, "\n  [%.3f ms .. %.3f ms] client %d: %s", float64(op.Call)/1e6, float64(op.Return)/1e6, op.ClientId,
				model.DescribeOperation(op.Input, op.Output))
		}
	}
	return b.String()
}

// sortOps sorts steps by call time (stable).
func sortOps(ops []porcupine.Operation) {
	for i := 1; i < len(ops); i++ {
		for j := i; j > 0 && ops[j].Call < ops[j-1].Call; j-- {
			ops[j], ops[j-1] = ops[j-1], ops[j]
		}
	}
}

// lzDump writes every step of every partition as text, by call time, to path: the
// history next to its visualisation, for reading and grepping.
func lzDump(model porcupine.Model, ops []porcupine.Operation, path string) {
	var b strings.Builder
	for _, part := range model.Partition(ops) {
		sortOps(part)
		fmt.Fprintf(&b, "== show %d\n", part[0].Input.(*lzIn).show)
		for _, op := range part {
			fmt.Fprintf(&b, "[%.3f .. %.3f] c%d %s\n", float64(op.Call)/1e6, float64(op.Return)/1e6, op.ClientId, model.DescribeOperation(op.Input, op.Output))
		}
	}
	_ = os.WriteFile(path, []byte(b.String()), 0o644)
}
