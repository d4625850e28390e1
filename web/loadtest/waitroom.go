package loadtest

import (
	"bytes"
	"container/heap"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"seatflow/services/catalog"
	"seatflow/services/store"
	"seatflow/services/waitingroom"
)

// The waitroom scenario: a crowd of visitors (Options.Visitors, 10,000 by default)
// queues in the waiting room of a show of the big hall whose pace (Options.AdmitPerMinute)
// is far below what the order path can take. As at a real on-sale, the crowd gathers
// before the sale opens: the visitors arrive (join) over the first quarter of the run
// (at most 5 s), or longer for a crowd larger than waitRoomJoinsPerSecond can join in
// that (arrivalWindow), and the sale opens when the arrivals end (the room then draws
// their places at random). Each visitor reads its place every QueuePoll (drawn from 0.5x
// to 1.5x of it, so the reads spread out; by default longer for a larger crowd,
// defaultPoll); a visitor that reads "admitted" creates one
// order at once (best-available, 1 or 2 seats) with its Admission-Token: every order
// is made while the crowd waits. The run goes on at least roomReaction after the opening.
// The visitors share a bounded pool of VisitorConns connections: each connection's
// goroutine owns a slice of the visitors and serves them in the order they are due, so
// no more than VisitorConns requests are ever in flight. Meanwhile a few orders are sent
// without a valid token (none, forged, another buyer's), each of which must be refused
// NOT_ADMITTED, and the room's own counters are sampled from Redis to measure the pace.
// After the run, MySQL must hold no order of the show by a buyer who was not admitted.

// Defaults of the waitroom scenario (Options).
const (
	defaultVisitors       = 10000
	defaultAdmitPerMinute = 600
	defaultVisitorConns   = 200
	defaultQueuePoll      = 5 * time.Second
)

// waitRoomJoinsPerSecond and waitRoomReadsPerSecond are the joins and queue reads a
// second the scenario asks of the machine by default, whatever the crowd: a crowd of
// 10,000 arrives over 10 s and reads every 5 s (the page's poll, static/js/queue.js); a
// larger one arrives over longer and reads less often than the page would, so a 2-core
// machine that also runs the load client serves it on time and the run measures the
// read, not a backlog. The reads a second are waitRoomReadsPerSecond or
// waitRoomReadShare of the saturated HTTP no-op measured in the same run, whichever is
// more: a read costs the server up to twice the no-op, so the crowd takes about a third
// of what the machine's HTTP can serve and the load client the rest. A join costs far
// more than a read (its session is read from MySQL the first time, its place written
// there before it answers). waitRoomVisitorsPerConn is how many visitors share a
// connection by default.
const (
	waitRoomJoinsPerSecond  = 1000
	waitRoomReadsPerSecond  = 2000
	waitRoomReadShare       = 0.15
	waitRoomVisitorsPerConn = 100
	// maxQueuePoll is the longest mean poll: its longest wait (1.5x) stays well within the
	// 120 s after which a silent waiting place is given up (API.md).
	maxQueuePoll = 60 * time.Second
)

// defaultPoll is the mean time between a waiting visitor's reads for a crowd of
// visitors when the saturated HTTP no-op answered noopPerSecond (0: not measured):
// defaultQueuePoll, or longer so that the crowd reads at most waitRoomReadsPerSecond a
// second or waitRoomReadShare of noopPerSecond, whichever is more, up to maxQueuePoll
// (5 s for 10,000; 50 s for 100,000 beside a no-op of 13,000/s, 24 s beside 28,000/s).
func defaultPoll(visitors int, noopPerSecond float64) time.Duration {
	reads := max(waitRoomReadsPerSecond, noopPerSecond*waitRoomReadShare)
	d := time.Duration(float64(visitors) / reads * float64(time.Second))
	return min(max(d, defaultQueuePoll), maxQueuePoll).Round(time.Second)
}

// defaultConns is the visitors' connections by default for a crowd of visitors:
// defaultVisitorConns, or one per waitRoomVisitorsPerConn visitors when that is more
// (1,000 for 100,000), so that joins waiting for their place in MySQL (a batch's
// commit, up to a few hundred ms on a busy machine) do not hold back the arrivals.
func defaultConns(visitors int) int {
	return max(defaultVisitorConns, visitors/waitRoomVisitorsPerConn)
}

// arrivalWindow is how long the crowd of visitors takes to arrive in a run of duration:
// the first quarter of the run, at most waitRoomArrivalMax, or as long as
// waitRoomJoinsPerSecond takes to join them all when that is longer (10 s for 10,000,
// 100 s for 100,000).
func arrivalWindow(duration time.Duration, visitors int) time.Duration {
	return max(min(duration/4, waitRoomArrivalMax), time.Duration(visitors)*time.Second/waitRoomJoinsPerSecond)
}

const (
	// waitRoomRefusals is how many orders the scenario sends without a valid token.
	waitRoomRefusals = 30
	// waitRoomArrivalMax bounds the arrival window of a crowd that can join in it (a
	// quarter of the run, arrivalWindow).
	waitRoomArrivalMax = 5 * time.Second
	// roomReaction is the longest the room may take to let its first buyers know they are
	// admitted after the opening: the server's show cache learns the sale is open
	// (catalog.ShowCacheTTL), a tick admits (waitingroom.TickEvery), the instance's
	// snapshot that waiting reads answer from is renewed (waitingroom.SnapshotEvery), and
	// a visitor's next read (at most a poll later, counted apart). The run goes on at least
	// this long after the opening, or a short run measures nobody admitted.
	roomReaction = catalog.ShowCacheTTL + waitingroom.TickEvery + waitingroom.SnapshotEvery + 500*time.Millisecond
	// roomSampleEvery is how often the room's counters are read from Redis.
	roomSampleEvery = 200 * time.Millisecond
	// roomPurchaseLimit is the purchase limit of the waiting room's show.
	roomPurchaseLimit = 4
	// ScenarioWaitRoomQueue names the waitroom scenario's second row: the queue reads of
	// the steady crowd.
	ScenarioWaitRoomQueue = ScenarioWaitRoom + "-queue"
)

// RoomFigures is what the waitroom scenario found besides its orders' latencies.
type RoomFigures struct {
	Visitors int
	Pace     int // configured, buyers a minute
	// MeasuredPace is admissions a minute while someone was waiting (PaceWindow long);
	// 0: nobody waited long enough to measure it.
	MeasuredPace float64
	PaceWindow   time.Duration
	// Admitted is what the room itself admitted during the run; AdmittedSeen the
	// visitors who read their admission (each then sent one order).
	Admitted, AdmittedSeen, Abandoned int64
	// Joined is the visitors whose join was answered 200; JoinErrors the joins answered
	// otherwise or not at all (each is tried again at the visitor's next turn). A visitor
	// whose turn did not come before the run ended (a slow server) is in neither.
	Joined, JoinErrors int64
	Closed             string // why the room closed during the run ("": it did not)
	// Refusals is how many orders were sent without a valid token, RefusedNotAdmitted
	// how many of them were answered 403 NOT_ADMITTED, RefusalCodes the other answers.
	Refusals, RefusedNotAdmitted int
	RefusalCodes                 []string
	// OrdersInMySQL are the show's orders in MySQL after the run (any status);
	// OrdersUnadmitted those of buyers the room did not admit or who never read an
	// admission.
	OrdersInMySQL, OrdersUnadmitted int64
	// Reads is the queue reads of the steady crowd (after the arrivals), a row of its own.
	Reads *Result
	// PacedNoop is the HTTP no-op sent at the reads' pace over as many connections
	// (pacedNoop), measured before the crowd came: what a read's transport costs.
	PacedNoop *Result
	// BytesPerVisitorMinute is what a waiting visitor receives a minute: the mean bytes
	// of a read's answer (status line, headers, body) times the reads a minute of its poll.
	BytesPerVisitorMinute float64
}

// visitor is one member of the crowd: a customer with a session, and where it is.
type visitor struct {
	Buyer
	due      time.Time // when its next request is due
	place    string    // its place token (sent back as Queue-Place, as a browser sends the cookie)
	joined   bool
	admitted bool // read its admission (and then ordered)
}

// queueAnswer is the part of GET/POST .../queue the visitors read.
type queueAnswer struct {
	Status         string `json:"status"`
	AdmissionToken string `json:"admission_token"`
}

// waitingStatus is how a waiting entry's answer says so; placeField starts its place token.
var (
	waitingStatus = []byte(`"status":"` + waitingroom.StatusWaiting + `"`)
	placeField    = []byte(`"place_token":"`)
)

// placeOf returns the place token of an answer's body ("" when none).
func placeOf(body []byte) string {
	i := bytes.Index(body, placeField)
	if i < 0 {
		return ""
	}
	rest := body[i+len(placeField):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}

// crowd drives the visitors of one waiting room.
type crowd struct {
	r                 *run
	cl                *Client
	show              int64
	queuePath, orders string
	v                 []visitor
	poll              time.Duration
	start, steady     time.Time
	deadline          time.Time
	// joins, reads during the arrivals, reads of the steady crowd, orders of admitted
	// buyers
	joins, early, reads, buys *Recorder
	lag                       Histogram // how late each request started after it was due
	// the created orders' latencies split at the end of the arrivals
	openingOrders, laterOrders Histogram
	joined, admitted           atomic.Int64
	readBytes                  atomic.Int64 // bytes of the steady crowd's read answers (status line, headers, body)
	orderedSeats, created      atomic.Int64
	expired, closed            atomic.Int64
	lastAdmission              atomic.Pointer[admission]
	keys                       atomic.Int64
	waiting                    atomic.Int64 // the room's, from the sampler
	roomAdmitted               atomic.Int64 // the room's total, from the sampler
	drawn                      atomic.Bool  // the room made the opening's draw (its shuffled mark), from the sampler
}

// admission is an admitted visitor's token, for a refusal that sends another buyer's.
type admission struct {
	user  int64
	token string
}

// roomSample is the room's counters at one moment.
type roomSample struct {
	at                         time.Time
	waiting, admitted, dropped int64
	closed                     string
}

// waitRoom runs the waitroom scenario (see the top of this file).
func (r *run) waitRoom(ctx context.Context) (*Result, error) {
	o := r.opts
	if o.QueuePoll == 0 {
		o.QueuePoll = defaultPoll(o.Visitors, r.noopRate)
	}
	logf := func(format string, a ...any) { fmt.Fprintf(o.Log, format+"\n", a...) }
	show, err := r.fx.NewRoomShow(ctx, r.big, roomPurchaseLimit, o.AdmitPerMinute)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	if err := r.warm(ctx, show); err != nil {
		return nil, err
	}
	visitors, err := r.fx.NewVisitors(ctx, show, o.Visitors)
	if err != nil {
		return nil, err
	}
	logf("waitroom: show %d (waiting room on, %d a minute), %d visitors and their sessions inserted in MySQL in %s",
		show, o.AdmitPerMinute, len(visitors), time.Since(t0).Round(time.Millisecond))
	// the HTTP no-op sent as the crowd will read, before the crowd comes
	conns := min(o.VisitorConns, len(visitors))
	paced, err := r.pacedNoop(ctx, conns, float64(len(visitors))/o.QueuePoll.Seconds(), min(o.Duration, pacedNoopFor))
	if err != nil {
		return nil, err
	}
	logf("HTTP no-op at the crowd's pace: %d answers over %d connections in %s", paced.OK, conns, paced.Elapsed.Round(time.Millisecond))
	// the sale opens when the arrivals end; the servers' show caches (catalog.ShowCacheTTL,
	// 1 s) must know that before the first visitor arrives
	arrive := arrivalWindow(o.Duration, o.Visitors)
	rest := max(o.PreloadLead-time.Since(t0), 1500*time.Millisecond) // the seat map was loaded at t0
	opensAt := time.Now().Add(rest + arrive).Truncate(time.Second).Add(time.Second)
	if err := r.fx.SetSaleOpens(ctx, show, opensAt); err != nil {
		return nil, err
	}
	logf("seat map of show %d loaded; the crowd arrives in %s, the sale opens at %s", show, rest.Round(time.Millisecond), opensAt.Format(time.TimeOnly))
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(time.Until(opensAt.Add(-arrive))):
	}
	c := &crowd{r: r, cl: NewClient(r.opts.Base, conns+1), show: show, poll: o.QueuePoll,
		queuePath: "/api/v1/shows/" + strconv.FormatInt(show, 10) + "/queue",
		orders:    "/api/v1/shows/" + strconv.FormatInt(show, 10) + "/orders"}
	defer c.cl.Close()
	c.v = make([]visitor, len(visitors))
	for i, b := range visitors {
		c.v[i].Buyer = b
	}
	keys := waitingroom.NewRooms(r.rdb, o.KeyPrefix, nil, nil, nil, nil).Keys(show) // meta, queue, pre, ent, seen, adm

	c.start = time.Now()
	c.steady, c.deadline = opensAt, opensAt.Add(max(o.Duration-arrive, roomReaction+o.QueuePoll))
	secs := int(c.deadline.Sub(c.start)/time.Second) + 60
	c.joins, c.early = NewRecorder(c.start, secs), NewRecorder(c.start, secs)
	c.reads, c.buys = NewRecorder(c.steady, secs), NewRecorder(c.start, secs)
	if r.rss != nil {
		r.rss.phase.Store(0)
	}
	cpu0 := r.cpu.snapshot()
	cpuSteady := make(chan map[string]int64, 1)
	steadyTimer := time.AfterFunc(time.Until(c.steady), func() { cpuSteady <- r.cpu.snapshot() })
	defer steadyTimer.Stop()
	joinedAt := make(chan crowdJoined, 1)
	go func() { joinedAt <- c.awaitJoined(ctx) }()

	first, err := c.readRoom(ctx, keys) // before anyone joins
	if err != nil {
		return nil, fmt.Errorf("waiting room counters: %w", err)
	}
	sctx, stopSampler := context.WithCancel(ctx)
	samplesDone := make(chan []roomSample, 1)
	go func() { samplesDone <- c.sample(sctx, keys, first) }()

	var wg sync.WaitGroup
	seed := uint64(time.Now().UnixNano())
	for w := 0; w < conns; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.serve(ctx, w, conns, rand.New(rand.NewPCG(seed, uint64(w))))
		}()
	}
	refusals := make(chan refusalTally, 1)
	go func() { refusals <- c.refuse(ctx) }()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	c.progress(done)
	elapsed := time.Since(c.start)
	cpuEnd, cmdsEnd := r.cpu.snapshot(), redisCommandTimes(ctx, r.rdb)
	ref := <-refusals
	stopSampler()
	samples := <-samplesDone
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var cpuA map[string]int64
	select {
	case cpuA = <-cpuSteady:
	default: // the run ended within the arrivals
		cpuA = cpuEnd
	}

	res := newResult(ScenarioWaitRoom, fmt.Sprintf("%d visitors in the waiting room of a %d-seat show admitting %d a minute: orders of admitted buyers (best-available, 1-2 seats)",
		len(c.v), len(r.big.Seats), o.AdmitPerMinute), "created orders of admitted buyers", conns, elapsed, c.buys)
	reads := newResult(ScenarioWaitRoomQueue, fmt.Sprintf("GET .../queue of the waiting crowd after its %s of arrivals (each visitor every %s, 0.5x-1.5x)",
		arrive.Round(time.Millisecond), o.QueuePoll), "queue reads", conns, max(elapsed-arrive, 0), c.reads)
	okReads, _, _ := c.reads.Counts()
	readCPU, inWindow, from := cpuSince(cpuA, cpuEnd), okReads, "the opening (not every visitor had joined by the end)"
	if j := <-joinedAt; j.ok && j.cpu != nil {
		readCPU, inWindow = cpuSince(j.cpu, cpuEnd), okReads-j.reads
		from = fmt.Sprintf("%.1f s after the opening, when every visitor had joined and the room had made its draw (%d reads then on)", j.at.Sub(c.steady).Seconds(), inWindow)
		if d := cpuSince(cpuA, j.cpu)[ProcRedis]; d > 0 {
			reads.Notes = append(reads.Notes, fmt.Sprintf("Redis's CPU from the opening to then (the draw that queued %d visitors, and %.1f s of the room): %.1f ms", len(c.v), j.at.Sub(c.steady).Seconds(), float64(d)/float64(time.Millisecond)))
		}
		if cmds := perOpCommands(j.cmds, cmdsEnd, inWindow, 6); cmds != "" {
			reads.Notes = append(reads.Notes, "Redis's time executing commands per read from then on (INFO commandstats; a script's commands also count in its EVALSHA): "+cmds)
		}
	}
	reads.CPU = perReads(readCPU, okReads, inWindow)
	if r.rss != nil {
		res.RSSMaxKB = r.rss.phase.Load()
		reads.RSSMaxKB = res.RSSMaxKB
	}
	fig := &RoomFigures{Visitors: len(c.v), Pace: o.AdmitPerMinute, AdmittedSeen: c.admitted.Load(), Joined: c.joined.Load(),
		Refusals: ref.sent, RefusedNotAdmitted: ref.refused, RefusalCodes: ref.codes, Reads: reads, PacedNoop: paced}
	fig.MeasuredPace, fig.PaceWindow = measuredPace(samples)
	if okReads, _, _ := c.reads.Counts(); okReads > 0 {
		fig.BytesPerVisitorMinute = float64(c.readBytes.Load()) / float64(okReads) * float64(time.Minute) / float64(o.QueuePoll)
	}
	if n := len(samples); n > 0 {
		fig.Admitted = samples[n-1].admitted - samples[0].admitted
		fig.Abandoned = samples[n-1].dropped - samples[0].dropped
		fig.Closed = samples[n-1].closed
	}
	res.Room = fig

	// the outcome in MySQL: every order of the show is an admitted visitor's
	unadmittedRoom, unseen, err := r.roomOrders(ctx, show, keys[3], c.v, fig)
	res.audit = r.audit(ctx, show, 0, c.created.Load(), c.orderedSeats.Load())
	if err != nil {
		res.audit = append(res.audit, auditError(err)...)
	} else {
		res.audit = append(res.audit,
			AuditLine{Check: "orders of buyers the room did not admit (its entries in Redis)", Count: unadmittedRoom, MustBeZero: true},
			AuditLine{Check: "orders of visitors who never read their admission", Count: unseen, MustBeZero: true})
	}

	jok, _, jerr := c.joins.Counts()
	eok, _, _ := c.early.Counts()
	fig.JoinErrors = jerr
	res.Notes = append(res.Notes,
		fmt.Sprintf("%d of %d visitors joined over the first %s (%d join errors; join p50 %s, p99 %s), %d reads during the arrivals; %d connections at most",
			jok, len(c.v), arrive.Round(time.Millisecond), jerr, fmtMS(c.joins.Lat.Percentile(50)), fmtMS(c.joins.Lat.Percentile(99)), eok, conns),
		fmt.Sprintf("the room admitted %d during the run (%d read their admission and ordered: %d orders created, %d seats), gave up %d silent places; closed: %s",
			fig.Admitted, fig.AdmittedSeen, c.created.Load(), c.orderedSeats.Load(), fig.Abandoned, orNone(fig.Closed)),
		fmt.Sprintf("created orders sent during the arrivals (none: the sale opens when they end): %d, p50 %s, p99 %s; after them: %d, p50 %s, p99 %s",
			c.openingOrders.Count(), fmtMS(c.openingOrders.Percentile(50)), fmtMS(c.openingOrders.Percentile(99)),
			c.laterOrders.Count(), fmtMS(c.laterOrders.Percentile(50)), fmtMS(c.laterOrders.Percentile(99))),
		"admission pace: "+fig.paceText(),
		fmt.Sprintf("a waiting visitor receives %.0f bytes a minute (a read's answer with its headers, every %s)", fig.BytesPerVisitorMinute, o.QueuePoll),
		fmt.Sprintf("orders without a valid admission token: %d of %d refused 403 NOT_ADMITTED (no token, a forged one, another buyer's)%s",
			ref.refused, ref.sent, otherAnswers(ref.codes)),
		fmt.Sprintf("requests started late by p50 %s, p99 %s, max %s after they were due (the visitors' pool kept up when these are small)",
			fmtMS(c.lag.Percentile(50)), fmtMS(c.lag.Percentile(99)), fmtMS(c.lag.Max())))
	if n := c.expired.Load() + c.closed.Load(); n > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d visitors read expired, %d closed", c.expired.Load(), c.closed.Load()))
	}
	if _, first := c.joins.Codes(); first != "" {
		res.Notes = append(res.Notes, "first error of the joins: "+truncate(first, 300))
	}
	if _, first := c.reads.Codes(); first != "" {
		res.Notes = append(res.Notes, "first error of the reads: "+truncate(first, 300))
	}
	if us, ok := arrivalCPU(cpu0, cpuA, jok+eok); ok {
		res.Notes = append(res.Notes, "server CPU per queue request during the arrivals (joins and reads): "+us)
	}
	reads.Notes = append(reads.Notes, "CPU per read is all the CPU time from "+from+" to the end (the admitted buyers' orders and the room's ticks included) divided by the reads in that time: an upper bound of a read's own cost")
	return res, nil
}

// crowdJoined is when every visitor had joined (after the opening): the processes' CPU
// times then and the reads counted so far; ok false when that did not happen by the
// deadline.
type crowdJoined struct {
	at    time.Time
	cpu   map[string]int64
	cmds  map[string]int64 // Redis's command times then (redisCommandTimes)
	reads int64
	ok    bool
}

// awaitJoined waits for the opening, then until every visitor has joined and the room
// made the opening's draw (checked every 50 ms), and snapshots then: a join still served
// after the opening (a late arrival on a busy machine) is not a read, nor is the draw
// (one call that queues everyone who joined before the opening: a join's cost, made by
// whichever call comes first after the opening), and neither counts in a read's CPU time.
func (c *crowd) awaitJoined(ctx context.Context) crowdJoined {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		if now := time.Now(); !now.Before(c.steady) && c.joined.Load() >= int64(len(c.v)) && c.drawn.Load() {
			reads, _, _ := c.reads.Counts()
			return crowdJoined{at: now, cpu: c.r.cpu.snapshot(), cmds: redisCommandTimes(ctx, c.r.rdb), reads: reads, ok: true}
		}
		if !time.Now().Before(c.deadline) {
			return crowdJoined{}
		}
		select {
		case <-ctx.Done():
			return crowdJoined{}
		case <-t.C:
		}
	}
}

// perReads scales the CPU times of a window in which inWindow reads were answered to
// all reads (so that Result.CPUPerOp, which divides by all reads, gives the window's
// CPU time per read); nothing when the window had no read.
func perReads(cpu map[string]time.Duration, all, inWindow int64) map[string]time.Duration {
	out := map[string]time.Duration{}
	if inWindow <= 0 || all <= 0 {
		return out
	}
	for p, d := range cpu {
		out[p] = time.Duration(float64(d) * float64(all) / float64(inWindow))
	}
	return out
}

// serve runs the visitors w, w+n, w+2n, ... in the order they are due until the
// deadline: at most one request of them is in flight. A request due before the deadline
// but not started by then (the server fell behind) is not sent: the run ends on time.
func (c *crowd) serve(ctx context.Context, w, n int, rng *rand.Rand) {
	arrive := c.steady.Sub(c.start)
	h := &dueHeap{v: c.v}
	for i := w; i < len(c.v); i += n {
		c.v[i].due = c.start.Add(time.Duration(rng.Int64N(int64(arrive) + 1)))
		h.idx = append(h.idx, int32(i))
	}
	heap.Init(h)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for h.Len() > 0 && ctx.Err() == nil && time.Now().Before(c.deadline) {
		v := &c.v[h.idx[0]]
		if !v.due.Before(c.deadline) {
			return
		}
		if d := time.Until(v.due); d > 0 {
			timer.Reset(d)
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
		}
		c.lag.Record(time.Since(v.due))
		if c.step(ctx, v, rng) {
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
	}
}

// step sends a visitor's next request: join, else read its place; an admitted visitor
// then orders. It returns false when the visitor is done (ordered, expired, closed).
func (c *crowd) step(ctx context.Context, v *visitor, rng *rand.Rand) bool {
	method, rec := "GET", c.reads
	switch {
	case !v.joined:
		method, rec = "POST", c.joins
	case time.Now().Before(c.steady):
		rec = c.early
	}
	t0 := time.Now()
	a, err := c.cl.DoHeader(ctx, method, c.queuePath, v.Token, "", "Queue-Place", v.place, nil, true)
	end := time.Now()
	if err == nil && rec == c.reads {
		c.readBytes.Add(int64(a.Wire))
	}
	v.due = end.Add(nextWait(c.poll, v.joined, rng)) // a failed join is tried again soon
	if err != nil {
		if ctx.Err() == nil {
			rec.Observe(OutError, end.Sub(t0), end, "transport", err.Error())
		}
		return true // tried again at its next turn
	}
	var q queueAnswer
	switch {
	case a.Status == 200 && bytes.Contains(a.Body, waitingStatus):
		q.Status = waitingroom.StatusWaiting // most answers: not worth the load client's JSON decoding
		if p := placeOf(a.Body); p != "" && p != v.place {
			v.place = p
		}
	case a.Status != 200 || json.Unmarshal(a.Body, &q) != nil:
		rec.Observe(OutError, end.Sub(t0), end, answerCode(a), string(a.Body))
		return true
	}
	rec.Observe(OutOK, end.Sub(t0), end, q.Status, "")
	if !v.joined {
		v.joined = true
		c.joined.Add(1)
		v.due = end.Add(nextWait(c.poll, true, rng))
	}
	switch q.Status {
	case waitingroom.StatusWaiting:
		return true
	case waitingroom.StatusAdmitted:
		c.order(ctx, v, q.AdmissionToken, rng)
		return false
	case waitingroom.StatusExpired:
		c.expired.Add(1)
	default:
		c.closed.Add(1)
	}
	return false
}

// waitRoomJoinRetry is the mean wait before a visitor tries a failed join again: a
// browser tries again soon, where a waiting visitor's reads wait a poll (50 s for a
// large crowd, which would leave the crowd joining long after the opening).
const waitRoomJoinRetry = time.Second

// nextWait is how long a visitor waits before its next request: a poll (0.5x to 1.5x of
// it) once it has joined, else waitRoomJoinRetry (as drawn, at most the poll).
func nextWait(poll time.Duration, joined bool, rng *rand.Rand) time.Duration {
	if !joined {
		poll = min(poll, waitRoomJoinRetry)
	}
	return time.Duration(float64(poll) * (0.5 + rng.Float64()))
}

// order sends the one order of an admitted visitor: best-available, 1 or 2 seats.
func (c *crowd) order(ctx context.Context, v *visitor, token string, rng *rand.Rand) {
	v.admitted = true
	c.admitted.Add(1)
	c.lastAdmission.Store(&admission{user: v.ID, token: token})
	zone := zoneStandard
	if rng.IntN(3) == 0 {
		zone = zonePremium
	}
	q := 1 + rng.IntN(2)
	key := "lt-wr-" + strconv.FormatInt(c.keys.Add(1), 36) + "-" + strconv.FormatInt(c.show, 10)
	t0 := time.Now()
	a, err := c.cl.DoAdmitted(ctx, "POST", c.orders, v.Token, key, token, orderBody(nil, zone, q), false)
	end := time.Now()
	switch {
	case err != nil:
		c.buys.Observe(OutError, end.Sub(t0), end, "transport", err.Error())
	case a.Status == 201:
		if t0.Before(c.steady) {
			c.openingOrders.Record(end.Sub(t0))
		} else {
			c.laterOrders.Record(end.Sub(t0))
		}
		c.created.Add(1)
		c.orderedSeats.Add(int64(q))
		c.buys.Observe(OutOK, end.Sub(t0), end, "201", "")
	case a.Code == "SOLD_OUT" || a.Code == "NO_ADJACENT_SEATS" || a.Code == "LIMIT_EXCEEDED" || a.Code == "RATE_LIMITED":
		c.buys.Observe(OutRejected, end.Sub(t0), end, a.Code, "")
	default: // NOT_ADMITTED here is an admitted buyer refused
		c.buys.Observe(OutError, end.Sub(t0), end, answerCode(a), string(a.Body))
	}
}

// refusalTally is what the orders without a valid token got.
type refusalTally struct {
	sent, refused int
	codes         []string // answers other than 403 NOT_ADMITTED
}

// refuse sends waitRoomRefusals orders without a valid admission token, spread over the
// run after the opening (before it the answer is NOT_ON_SALE), from the last visitors: no token, a forged one (right form, wrong signature), and
// another admitted buyer's (a forged one for another buyer until someone is admitted).
func (c *crowd) refuse(ctx context.Context) refusalTally {
	var t refusalTally
	span := c.deadline.Sub(c.steady)
	for k := 0; k < waitRoomRefusals; k++ {
		at := c.steady.Add(span * time.Duration(k+1) / time.Duration(waitRoomRefusals+1))
		select {
		case <-ctx.Done():
			return t
		case <-time.After(time.Until(at)):
		}
		v := &c.v[len(c.v)-1-k%len(c.v)]
		exp := time.Now().Add(5 * time.Minute).Unix()
		token := ""
		switch k % 3 {
		case 1:
			token = fmt.Sprintf("%d.%d.%d.%s", c.show, v.ID, exp, "Zm9yZ2VkLXNpZ25hdHVyZS1vZi10aGUtbG9hZC10ZXN0")
		case 2:
			if a := c.lastAdmission.Load(); a != nil && a.user != v.ID {
				token = a.token
			} else {
				token = fmt.Sprintf("%d.%d.%d.%s", c.show, v.ID+1, exp, "Zm9yZ2VkLXNpZ25hdHVyZS1vZi10aGUtbG9hZC10ZXN0")
			}
		}
		key := "lt-wr-refused-" + strconv.Itoa(k) + "-" + strconv.FormatInt(c.show, 10)
		a, err := c.cl.DoAdmitted(ctx, "POST", c.orders, v.Token, key, token, orderBody(nil, zoneStandard, 1), false)
		t.sent++
		switch {
		case err != nil:
			t.codes = append(t.codes, "transport")
		case a.Status == 403 && a.Code == "NOT_ADMITTED":
			t.refused++
		default:
			t.codes = append(t.codes, answerCode(a))
		}
	}
	return t
}

// readRoom reads the room's counters: waiting (ZCARD of the queue), the totals admitted
// and given up, and why it closed. keys are the room's (Rooms.Keys).
func (c *crowd) readRoom(ctx context.Context, keys []string) (roomSample, error) {
	pipe := c.r.rdb.Pipeline()
	q := pipe.ZCard(ctx, keys[1])
	m := pipe.HMGet(ctx, keys[0], "admitted", "abandoned", "closed", "shuffled", "drawing")
	if _, err := pipe.Exec(ctx); err != nil {
		return roomSample{}, err
	}
	s := roomSample{at: time.Now(), waiting: q.Val()}
	vals := m.Val()
	num := func(x any) int64 { n, _ := strconv.ParseInt(fmt.Sprint(x), 10, 64); return n }
	s.admitted, s.dropped = num(vals[0]), num(vals[1])
	if str, ok := vals[2].(string); ok {
		s.closed = str
	}
	c.waiting.Store(s.waiting)
	c.roomAdmitted.Store(s.admitted)
	if vals[3] != nil && vals[4] == nil { // the opening's draw has begun and ended (it takes several calls)
		c.drawn.Store(true)
	}
	return s, nil
}

// sample reads the room's counters every roomSampleEvery after first until ctx ends,
// and once more then; failed reads are skipped.
func (c *crowd) sample(ctx context.Context, keys []string, first roomSample) []roomSample {
	out := []roomSample{first}
	read := func(ctx context.Context) {
		if s, err := c.readRoom(ctx, keys); err == nil {
			out = append(out, s)
		}
	}
	t := time.NewTicker(roomSampleEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			read(context.WithoutCancel(ctx))
			return out
		case <-t.C:
			read(ctx)
		}
	}
}

// measuredPace is the room's admissions a minute from the first to the last sample
// in which someone was waiting (the pace, not the crowd, limited admission then), and
// that window; 0 when it is shorter than a second.
func measuredPace(s []roomSample) (float64, time.Duration) {
	first, last := -1, -1
	for i, x := range s {
		if x.waiting > 0 && x.closed == "" {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return 0, 0
	}
	d := s[last].at.Sub(s[first].at)
	if d < time.Second {
		return 0, d
	}
	return float64(s[last].admitted-s[first].admitted) / d.Minutes(), d
}

// paceText describes the measured pace against the configured one.
func (f *RoomFigures) paceText() string {
	if f.MeasuredPace == 0 {
		return fmt.Sprintf("not measured (nobody waited a whole second; configured %d a minute)", f.Pace)
	}
	return fmt.Sprintf("%.0f a minute vs %d configured (%.2fx), over the %.1f s someone was waiting", f.MeasuredPace, f.Pace,
		Ratio(f.MeasuredPace, float64(f.Pace)), f.PaceWindow.Seconds())
}

// roomOrders reads the show's orders in MySQL (any status) into fig and counts those of
// buyers the room did not admit (their entry in the room's ent hash is not admitted)
// and those of visitors who never read an admission.
func (r *run) roomOrders(ctx context.Context, show int64, entKey string, vs []visitor, fig *RoomFigures) (notAdmitted, unseen int64, err error) {
	rows, err := store.LoadTestShowOrdersByUser(ctx, r.db, show)
	if err != nil {
		return 0, 0, err
	}
	seen := make(map[int64]bool, len(vs))
	for _, v := range vs {
		seen[v.ID] = v.admitted
	}
	users := make([]string, len(rows))
	for i, row := range rows {
		users[i] = strconv.FormatInt(row.User, 10)
		fig.OrdersInMySQL += row.N
	}
	if len(users) == 0 {
		return 0, 0, nil
	}
	ents, err := r.rdb.HMGet(ctx, entKey, users...).Result()
	if err != nil {
		return 0, 0, err
	}
	for i, e := range ents {
		s, _ := e.(string)
		room := strings.HasPrefix(s, "a|") // waitingroom.lua: a(dmitted)|seq|until|...
		if !room {
			notAdmitted += rows[i].N
		}
		if !seen[rows[i].User] {
			unseen += rows[i].N
		}
		if !room || !seen[rows[i].User] {
			fig.OrdersUnadmitted += rows[i].N
		}
	}
	return notAdmitted, unseen, nil
}

// progress prints the crowd's progress line every second (when live) until done, and
// its last line.
func (c *crowd) progress(done <-chan struct{}) {
	o := c.r.opts
	line := func() string {
		jok, _, jerr := c.joins.Counts()
		rok, _, rerr := c.reads.Counts()
		eok, _, eerr := c.early.Counts()
		_, _, berr := c.buys.Counts()
		return fmt.Sprintf("%-10s %5.1fs  joined %6d  waiting %6d  admitted %5d  orders %5d  reads %7d  errors %4d  order p99 %s",
			ScenarioWaitRoom, time.Since(c.start).Seconds(), jok, c.waiting.Load(), c.roomAdmitted.Load(), c.created.Load(), rok+eok,
			jerr+rerr+eerr+berr, fmtMS(c.buys.Lat.Percentile(99)))
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if o.Progress != nil && o.ProgressLive {
				fmt.Fprintf(o.Progress, "\r%s", line())
			}
		case <-done:
			if o.Progress != nil {
				cr := ""
				if o.ProgressLive {
					cr = "\r"
				}
				fmt.Fprintf(o.Progress, "%s%s\n", cr, line())
			}
			return
		}
	}
}

// arrivalCPU formats the server's CPU time per queue request between two snapshots.
func arrivalCPU(before, after map[string]int64, requests int64) (string, bool) {
	d, ok := cpuSince(before, after)[ProcServer]
	if !ok || requests <= 0 {
		return "", false
	}
	return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond)/float64(requests)), true
}

// dueHeap orders a connection's visitors (indexes into v) by when they are due.
type dueHeap struct {
	idx []int32
	v   []visitor
}

func (h *dueHeap) Len() int           { return len(h.idx) }
func (h *dueHeap) Less(i, j int) bool { return h.v[h.idx[i]].due.Before(h.v[h.idx[j]].due) }
func (h *dueHeap) Swap(i, j int)      { h.idx[i], h.idx[j] = h.idx[j], h.idx[i] }
func (h *dueHeap) Push(x any)         { h.idx = append(h.idx, x.(int32)) }
func (h *dueHeap) Pop() any {
	n := len(h.idx)
	x := h.idx[n-1]
	h.idx = h.idx[:n-1]
	return x
}

func orNone(s string) string {
	if s == "" {
		return "no"
	}
	return s
}

// otherAnswers lists the answers of refusals that were not NOT_ADMITTED ("" when none).
func otherAnswers(codes []string) string {
	if len(codes) == 0 {
		return ""
	}
	sorted := append([]string(nil), codes...)
	sort.Strings(sorted)
	return "; other answers: " + strings.Join(sorted, ", ")
}
