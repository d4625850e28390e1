package clustertest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"seatflow/services/store"
	"seatflow/services/waitingroom"
	"seatflow/web/loadtest"
)

// Sizes of the waiting room fault test: visitors who join before the opening, and the
// room's pace (buyers a minute: slow, so that most still wait at the end).
const (
	roomVisitors = 300
	roomPace     = 60
	// roomSettle is how long after a fault's step the checked reads start: every
	// instance's snapshot of the room is then younger than the fault
	// (waitingroom.SnapshotEvery is 1 s); reads in between are counted, not checked.
	roomSettle = 2 * time.Second
	// roomReadEvery is how often each waiting visitor reads its place.
	roomReadEvery = 2 * time.Second
)

// roomVisitor is one visitor of the room as the test sees it: its account, the place
// token of its last answer (sent back as Queue-Place, as a browser sends the cookie),
// and what its reads answered.
type roomVisitor struct {
	b         loadtest.Buyer
	place     string
	status    string    // of the last 200 answer
	position  int       // of the last 200 answer (0: none)
	at        time.Time // when the last 200 answer's request was sent
	admission string    // its admission token, once admitted
	admitted  time.Time // when the test first saw it admitted
	until     string    // admission_expires_at as first seen
}

// queueAnswer is GET/POST .../queue's body, as far as the test reads it.
type queueAnswer struct {
	Status             string `json:"status"`
	Position           *int   `json:"position"`
	AdmissionToken     string `json:"admission_token"`
	AdmissionExpiresAt string `json:"admission_expires_at"`
	PlaceToken         string `json:"place_token"`
}

// room is the fault test's show with its waiting room and its visitors; readers read
// every waiting visitor's place every roomReadEvery until stopped.
type room struct {
	c      *cluster
	show   int64
	hall   *loadtest.Hall
	admin  string
	vs     []*roomVisitor
	reader func(a answer, v *roomVisitor) // sees every read's answer (under mu)

	mu    sync.Mutex
	codes map[string]int // read answers by status and code
	stop  chan struct{}
	wg    sync.WaitGroup
}

// read reads v's place once (GET .../queue with its place token) and keeps what it
// answered.
func (r *room) read(ctx context.Context, v *roomVisitor) answer {
	a := r.c.do(ctx, r.c.base, "GET", fmt.Sprintf("/api/v1/shows/%d/queue", r.show), v.b.Token, nil, "Queue-Place", v.place)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.note(a, v)
	return a
}

// note records one answer of v's (under mu).
func (r *room) note(a answer, v *roomVisitor) {
	switch {
	case a.err != nil:
		r.codes["transport error"]++
	case a.status != http.StatusOK:
		r.codes[fmt.Sprintf("%d %s", a.status, a.code())]++
	default:
		var q queueAnswer
		if err := json.Unmarshal(a.body, &q); err != nil {
			r.c.t.Errorf("visitor %d: %v: %s", v.b.ID, err, a.body)
			return
		}
		r.codes["200 "+q.Status]++
		if q.PlaceToken != "" {
			v.place = q.PlaceToken
		}
		v.status, v.position, v.at = q.Status, 0, a.sent
		if q.Position != nil {
			v.position = *q.Position
		}
		if q.Status == "admitted" && v.admission == "" {
			v.admission, v.admitted, v.until = q.AdmissionToken, a.done, q.AdmissionExpiresAt
		}
	}
	if r.reader != nil {
		r.reader(a, v)
	}
}

// startReading reads every visitor not yet admitted every roomReadEvery, 16 at a time.
func (r *room) startReading(ctx context.Context) {
	r.stop = make(chan struct{})
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for {
			t0 := time.Now()
			r.mu.Lock()
			var todo []*roomVisitor
			for _, v := range r.vs {
				if v.admission == "" {
					todo = append(todo, v)
				}
			}
			r.mu.Unlock()
			work := make(chan *roomVisitor)
			var wg sync.WaitGroup
			for range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for v := range work {
						r.read(ctx, v)
					}
				}()
			}
			for _, v := range todo {
				work <- v
			}
			close(work)
			wg.Wait()
			select {
			case <-r.stop:
				return
			case <-time.After(roomReadEvery - time.Since(t0)):
			}
		}
	}()
}

// stopReading stops the readers after their round.
func (r *room) stopReading() {
	close(r.stop)
	r.wg.Wait()
}

// roomFault is one fault's numbers for the report.
type roomFault struct {
	name          string
	what          string
	waiting       int           // visitors waiting with a position before the fault
	admitted      int           // visitors admitted before the fault
	took          time.Duration // injection until the fault's step was done
	markAt        time.Time     // the fault's destructive moment (the kill; the injection when no later)
	everyone      time.Duration // markAt until every visitor waiting before it had read a place again
	paced         int           // admitted in the 10 s after every place read again
	lastFail      time.Time     // when the last read that failed (no answer, or not 200) came
	checked       int           // answers checked (sent roomSettle after the step)
	better        int           // visitors whose first checked place was better than before
	same          int           // ... the same
	nowAdmit      int           // ... who were admitted by then
	duringBad     int           // answers between the injection and the checks with a worse place (not failures)
	lost          string        // what the room's record had and the promoted replica lacked
	stillAdmitted int           // visitors admitted before the fault who read admitted, until the same moment, after it
	codes         map[string]int
	roomBefore    roomStats
	roomAfter     roomStats
}

// roomStats is the staff view of the room (GET /api/v1/admin/shows/{id}/waiting-room).
type roomStats struct {
	Waiting       int `json:"waiting"`
	AdmittedTotal int `json:"admitted_total"`
	Abandoned     int `json:"abandoned_total"`
}

func (r *room) stats(ctx context.Context, t *testing.T) roomStats {
	var s roomStats
	for try := 0; ; try++ {
		a := r.c.do(ctx, r.c.base, "GET", fmt.Sprintf("/api/v1/admin/shows/%d/waiting-room", r.show), r.admin, nil)
		if a.err == nil && a.status == http.StatusOK {
			if err := json.Unmarshal(a.body, &s); err != nil {
				t.Fatal(err)
			}
			return s
		}
		if try == 20 {
			t.Fatalf("waiting room stats: %d %v %s", a.status, a.err, a.body)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// recorded is the room's progress in its durable record (admitted total, head).
func (r *room) recorded(ctx context.Context, t *testing.T) (admitted, head int64) {
	p, err := store.RoomProgressOf(ctx, r.c.db, r.show)
	if err != nil {
		t.Fatalf("the room's recorded progress: %v", err)
	}
	return p.Admitted, p.Head
}

// metaKey is the room's meta key (its head and totals).
func (r *room) metaKey(prefix string) string {
	return waitingroom.NewRooms(r.c.rdb, prefix, nil, nil, nil, nil).Keys(r.show)[0]
}

// faultRoom injects one fault into the room while its visitors read (inject calls mark
// at the fault's destructive moment, when that comes after preparing it), and checks that
// every visitor waiting before it reads a place no worse afterwards (or is admitted),
// every visitor admitted before it is still admitted until the same moment, nobody
// reads 404, and the room's pace goes on; f gets the numbers.
func (r *room) faultRoom(ctx context.Context, t *testing.T, f *roomFault, inject func(mark func()) string) {
	type seen struct {
		status   string
		position int
	}
	before := map[int64]seen{}
	var admittedBefore []*roomVisitor
	var faultAt, checkFrom time.Time
	first := map[int64]time.Time{}  // visitor -> when its first 200 answer after the injection came
	checkedOnce := map[int64]bool{} // visitors whose first checked answer was counted
	defer func() {                  // also when the fault's step fails
		r.mu.Lock()
		r.reader = nil
		r.mu.Unlock()
	}()
	r.mu.Lock()
	f.codes = map[string]int{}
	r.codes = f.codes
	faultAt = time.Now()
	f.markAt = faultAt
	for _, v := range r.vs {
		before[v.b.ID] = seen{v.status, v.position}
		switch {
		case v.admission != "":
			f.admitted++
			admittedBefore = append(admittedBefore, v)
		case v.status == "waiting" && v.position > 0:
			f.waiting++
		}
	}
	r.reader = func(a answer, v *roomVisitor) {
		b := before[v.b.ID]
		if a.err == nil && a.status == http.StatusNotFound {
			t.Errorf("visitor %d (at %d before the fault) read 404: %s", v.b.ID, b.position, a.body)
		}
		if (a.err != nil || a.status != http.StatusOK) && a.done.After(f.lastFail) {
			f.lastFail = a.done
		}
		if a.err != nil || a.status != http.StatusOK || b.status != "waiting" || a.sent.Before(faultAt) {
			return
		}
		if a.sent.After(f.markAt) {
			if _, ok := first[v.b.ID]; !ok {
				first[v.b.ID] = a.done
			}
		}
		worse := v.status != "admitted" && (v.status != "waiting" || v.position < 1 || v.position > b.position)
		if checkFrom.IsZero() || a.sent.Before(checkFrom) {
			if worse {
				f.duringBad++
			}
			return
		}
		f.checked++
		if worse {
			t.Errorf("visitor %d waited at %d before the fault; %s after it: %s at %d (%s)", v.b.ID, b.position,
				a.sent.Sub(faultAt).Round(time.Millisecond), v.status, v.position, a.upstream)
		}
		if !checkedOnce[v.b.ID] {
			checkedOnce[v.b.ID] = true
			switch {
			case v.status == "admitted":
				f.nowAdmit++
			case v.position < b.position:
				f.better++
			case v.position == b.position:
				f.same++
			}
		}
	}
	r.mu.Unlock()
	f.roomBefore = r.stats(ctx, t)

	f.what = inject(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		f.markAt = time.Now()
		clear(first)
	})
	f.took = time.Since(faultAt)
	r.mu.Lock()
	checkFrom = time.Now().Add(roomSettle)
	r.mu.Unlock()

	// every visitor waiting before the fault reads a place again, and each is checked
	// (or admitted in between: it reads no more)
	pending := func() (n int) {
		for _, v := range r.vs {
			if b := before[v.b.ID]; b.status == "waiting" && b.position > 0 && !checkedOnce[v.b.ID] {
				if v.admission == "" {
					n++
				} else {
					checkedOnce[v.b.ID] = true
					f.nowAdmit++
				}
			}
		}
		return n
	}
	for t0 := time.Now(); ; time.Sleep(200 * time.Millisecond) {
		r.mu.Lock()
		n := pending()
		r.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Since(t0) > time.Minute {
			t.Errorf("%d visitors waiting before the fault read no place a minute after it", n)
			break
		}
	}
	r.mu.Lock()
	var last time.Time
	for id, b := range before {
		if b.status == "waiting" && b.position > 0 && first[id].After(last) {
			last = first[id]
		}
	}
	f.everyone = last.Sub(f.markAt)
	r.mu.Unlock()

	// everyone admitted before the fault is still admitted, until the same moment (not
	// waiting again, nor admitted again with a new deadline)
	time.Sleep(time.Until(checkFrom))
	for _, v := range admittedBefore {
		a := r.c.do(ctx, r.c.base, "GET", fmt.Sprintf("/api/v1/shows/%d/queue", r.show), v.b.Token, nil)
		var q queueAnswer
		switch {
		case a.err != nil || a.status != http.StatusOK:
			t.Errorf("visitor %d, admitted before the fault, reads %d %v %s", v.b.ID, a.status, a.err, a.body)
		case json.Unmarshal(a.body, &q) != nil || q.Status != "admitted" || q.AdmissionExpiresAt != v.until:
			t.Errorf("visitor %d was admitted until %s before the fault; after it: %s", v.b.ID, v.until, a.body)
		default:
			f.stillAdmitted++
		}
	}

	// the pace goes on: 10 s more admit about 10 (at 60 a minute)
	s0 := r.stats(ctx, t)
	time.Sleep(10 * time.Second)
	f.roomAfter = r.stats(ctx, t)
	f.paced = f.roomAfter.AdmittedTotal - s0.AdmittedTotal
	if d := f.paced; d < 10*roomPace/60/2 {
		t.Errorf("the room admitted %d in 10 s after the fault at %d a minute: the pace did not go on", d, roomPace)
	}
	r.mu.Lock()
	r.reader = nil
	r.mu.Unlock()
}

// TestClusterFault_WaitingRoom: a show's waiting room (turned on through the staff API,
// 60 buyers a minute) takes roomVisitors visitors before its sale opens; after the
// opening every visitor reads its place through the balancer with its place token
// every 2 s, and some are admitted. Then, in the middle of the queue:
//
//   - master killed: kill -9 of the master serving the room's slot; its replica is
//     promoted (async replication: it may lack the latest writes), the old master
//     restarted as its replica;
//   - every master flushed: FLUSHALL on every master of the cluster (a restart without
//     data); the room is rebuilt from its durable record.
//
// After each, every visitor waiting before it reads 200 with a place no worse than its
// last one before the fault (or is admitted), every visitor admitted before it reads
// admitted until the same moment, nobody reads 404, and the pace goes on.
// At the end every admission token recorded is still accepted by the order path (no
// NOT_ADMITTED), and the show's seats agree between Redis and MySQL after
// reconciliation.
func TestClusterFault_WaitingRoom(t *testing.T) {
	c := faultCluster(t)
	ctx := context.Background()
	fx := c.fixtures(ctx)
	hall, err := fx.NewHall(ctx, "room", 10, 30)
	if err != nil {
		t.Fatal(err)
	}
	show, err := fx.NewShow(ctx, hall, 4)
	if err != nil {
		t.Fatal(err)
	}
	opens := time.Now().Add(30 * time.Second).Truncate(time.Second)
	if err := fx.SetSaleOpens(ctx, show, opens); err != nil {
		t.Fatal(err)
	}
	r := &room{c: c, show: show, hall: hall, admin: c.admin(ctx, fx), codes: map[string]int{}}
	if a := c.do(ctx, c.base, "PATCH", fmt.Sprintf("/api/v1/admin/shows/%d", show), r.admin,
		map[string]any{"waiting_room": true, "admit_per_minute": roomPace}); a.err != nil || a.status != http.StatusOK {
		t.Fatalf("turning the waiting room on: %d %v %s", a.status, a.err, a.body)
	}
	buyers, err := fx.NewVisitors(ctx, show, roomVisitors)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range buyers {
		r.vs = append(r.vs, &roomVisitor{b: b})
	}
	time.Sleep(2 * time.Second) // every instance's cached show has the room on

	// everyone joins before the opening
	var wg sync.WaitGroup
	work := make(chan *roomVisitor)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := range work {
				var a answer
				for try := 0; try < 5; try++ {
					a = c.do(ctx, c.base, "POST", fmt.Sprintf("/api/v1/shows/%d/queue", show), v.b.Token, nil)
					if a.err == nil && a.status == http.StatusOK {
						break
					}
					time.Sleep(500 * time.Millisecond)
				}
				r.mu.Lock()
				r.note(a, v)
				r.mu.Unlock()
				if a.err != nil || a.status != http.StatusOK {
					t.Errorf("visitor %d could not join: %d %v %s", v.b.ID, a.status, a.err, a.body)
				}
			}
		}()
	}
	for _, v := range r.vs {
		work <- v
	}
	close(work)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	if joined := time.Now(); !joined.Before(opens) {
		t.Fatalf("the joins ended %s after the opening: make it later", joined.Sub(opens))
	}
	t.Logf("%d visitors joined %s before the opening", len(r.vs), time.Until(opens).Round(100*time.Millisecond))
	time.Sleep(time.Until(opens) + 500*time.Millisecond)

	// after the opening everyone reads its place; some are admitted
	r.startReading(ctx)
	defer func() {
		if r.stop != nil {
			select {
			case <-r.stop:
			default:
				r.stopReading()
			}
		}
	}()
	waitFor(t, "every visitor read a place after the opening", time.Minute, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, v := range r.vs {
			if v.at.Before(opens) || v.status == "waiting" && v.position == 0 {
				return false
			}
		}
		return true
	})
	time.Sleep(8 * time.Second)

	prefix := env("SEATFLOW_REDIS_KEY_PREFIX", "sf")
	faults := []*roomFault{{name: "master killed, its replica cut off 3 s before"}, {name: "every master flushed"}}
	t.Run("master killed", func(t *testing.T) {
		r.faultRoom(ctx, t, faults[0], func(mark func()) string {
			slot := showSlot(ctx, t, c, show)
			master, replicas, ok := slotOwner(ctx, t, slot)
			if !ok || len(replicas) == 0 {
				t.Fatalf("slot %d: no master with a replica", slot)
			}
			port := master[strings.LastIndex(master, ":")+1:]
			replica := replicas[0]
			rport := replica[strings.LastIndex(replica, ":")+1:]
			// the replica stops taking the replication stream (SIGSTOP, and the master drops
			// its link), so the master's last 3 s of writes reach no replica: an async
			// failover's loss, made certain
			rpid := signalPidFile(t, filepath.Join(runDir(), "redis", rport, "pid"), syscall.SIGSTOP)
			cont := func() { syscall.Kill(rpid, syscall.SIGCONT) }
			defer cont()
			if err := node(t, master).Do(ctx, "CLIENT", "KILL", "TYPE", "replica").Err(); err != nil {
				t.Fatalf("CLIENT KILL TYPE replica on %s: %v", master, err)
			}
			time.Sleep(3 * time.Second)
			recAdmitted, recHead := r.recorded(ctx, t)
			mark()
			pid := killPidFile(t, filepath.Join(runDir(), "redis", port, "pid"))
			cont()
			promoted := waitFor(t, "a replica serves the slot", time.Minute, func() bool {
				m, _, ok := slotOwner(ctx, t, slot, master)
				return ok && m != master
			})
			newMaster, _, _ := slotOwner(ctx, t, slot, master)
			var gotAdmitted, gotHead int64
			if n, err := node(t, newMaster).HMGet(ctx, r.metaKey(prefix), "admitted", "head").Result(); err == nil && len(n) == 2 {
				gotAdmitted, _ = strconv.ParseInt(fmt.Sprint(n[0]), 10, 64)
				gotHead, _ = strconv.ParseInt(fmt.Sprint(n[1]), 10, 64)
			}
			f := faults[0]
			f.lost = fmt.Sprintf("at the kill the record had %d admitted (head %d); the promoted replica had %d (head %d) when it took over",
				recAdmitted, recHead, gotAdmitted, gotHead)
			script(t, "redis", "restart", port)
			rejoined := waitFor(t, "the killed master rejoins as a replica", time.Minute, func() bool {
				return role(ctx, t, master) == "slave" && clusterHealthy(ctx, t)
			})
			return fmt.Sprintf("SIGSTOP of replica %s and its link cut on master %s (slot %d, show %d's room); 3 s later kill -9 of the master (pid %d) "+
				"and SIGCONT of the replica; %s promoted in %s; the old master rejoined as a replica %s later",
				replica, master, slot, show, pid, newMaster, promoted.Round(100*time.Millisecond), rejoined.Round(100*time.Millisecond))
		})
	})
	t.Run("every master flushed", func(t *testing.T) {
		r.faultRoom(ctx, t, faults[1], func(func()) string {
			ms := masters(ctx, t)
			for _, m := range ms {
				if err := node(t, m).FlushAll(ctx).Err(); err != nil {
					t.Fatalf("FLUSHALL on %s: %v", m, err)
				}
			}
			return fmt.Sprintf("FLUSHALL on every master (%s): every room, seat map and key gone", strings.Join(ms, ", "))
		})
	})
	r.stopReading()

	// every admission token recorded still admits its buyer to the order path
	var admitted []*roomVisitor
	for _, v := range r.vs {
		if v.admission != "" {
			admitted = append(admitted, v)
		}
	}
	sort.Slice(admitted, func(i, j int) bool { return admitted[i].admitted.Before(admitted[j].admitted) })
	orders := map[string]int{}
	for i, v := range admitted {
		if i >= len(hall.Seats) {
			break
		}
		seat := strconv.FormatInt(hall.Seats[i].ID, 10)
		a := c.do(ctx, c.base, "POST", fmt.Sprintf("/api/v1/shows/%d/orders", show), v.b.Token,
			map[string]any{"seat_ids": []string{seat}}, "Admission-Token", v.admission, "Idempotency-Key", fmt.Sprintf("room-%d-%d", show, v.b.ID))
		switch {
		case a.err != nil:
			orders["transport error"]++
		case a.status == http.StatusCreated || a.status == http.StatusOK:
			orders[fmt.Sprint(a.status)]++
		default:
			orders[fmt.Sprintf("%d %s", a.status, a.code())]++
		}
		if a.err == nil && a.code() == "NOT_ADMITTED" {
			t.Errorf("visitor %d, admitted at %s, is refused its order: %s", v.b.ID, v.admitted.Format(time.TimeOnly), a.body)
		}
	}

	// the show's seats: Redis agrees with MySQL after reconciliation; no seat twice
	c.reconcile(ctx, r.admin, show, false)
	if f := compareShow(ctx, t, c, show); len(f) > 0 {
		t.Errorf("show %d after reconciliation: %s", show, describe(f))
	}
	checkLiveSeatsOnce(t, c.db, []int64{show})

	// report
	var b strings.Builder
	fmt.Fprintf(&b, "fault e. waiting room (show %d): %d visitors joined before the opening, %d a minute, each reading its place with its place token every %s\n",
		show, len(r.vs), roomPace, roomReadEvery)
	for _, f := range faults {
		fmt.Fprintf(&b, "  %s: %s\n", f.name, f.what)
		if f.lost != "" {
			fmt.Fprintf(&b, "    %s\n", f.lost)
		}
		fmt.Fprintf(&b, "    before: %d visitors waiting with a place, %d admitted (the room: %d waiting, %d admitted, %d abandoned)\n",
			f.waiting, f.admitted, f.roomBefore.Waiting, f.roomBefore.AdmittedTotal, f.roomBefore.Abandoned)
		fails := "no read failed"
		if !f.lastFail.IsZero() {
			fails = fmt.Sprintf("the last failed read came %s after it", f.lastFail.Sub(f.markAt).Round(100*time.Millisecond))
		}
		fmt.Fprintf(&b, "    fault step done in %s; from the fault's destructive moment, every visitor waiting before it read a place again %s later; %s\n",
			f.took.Round(100*time.Millisecond), f.everyone.Round(100*time.Millisecond), fails)
		fmt.Fprintf(&b, "    first checked read (sent %s after the step or later): %d better, %d the same, %d admitted since; %d answers checked; %d answers in between with a worse place (unchecked)\n",
			roomSettle, f.better, f.same, f.nowAdmit, f.checked, f.duringBad)
		fmt.Fprintf(&b, "    admitted before the fault and reading admitted until the same moment after it: %d of %d\n", f.stillAdmitted, f.admitted)
		fmt.Fprintf(&b, "    the pace: %d admitted in the next 10 s (at %d a minute); then the room: %d waiting, %d admitted, %d abandoned\n",
			f.paced, roomPace, f.roomAfter.Waiting, f.roomAfter.AdmittedTotal, f.roomAfter.Abandoned)
		keys := make([]string, 0, len(f.codes))
		for k := range f.codes {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "      read %-40s %d\n", k, f.codes[k])
		}
	}
	fmt.Fprintf(&b, "  orders with the %d admission tokens recorded (one seat each, after both faults): %v\n", len(admitted), orders)
	status := "checks passed"
	if t.Failed() {
		status = "CHECKS FAILED (see the test's errors)"
	}
	fmt.Fprintf(&b, "  %s: places no worse after each fault, admissions kept, no 404, the pace going on, admission tokens accepted, Redis=MySQL after reconciliation, no seat twice\n", status)
	t.Log("\n" + b.String())
	if fl, err := os.OpenFile(filepath.Join(runDir(), "faults.txt"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		fl.WriteString(b.String() + "\n")
		fl.Close()
	}
}
