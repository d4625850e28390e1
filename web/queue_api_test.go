package web

import (
	"strings"
	"testing"
)

// TestWaitingRoom_API walks the waiting room as API.md describes it, across two
// instances sharing the stores: staff turn a show's room on; an order without a token
// is 403 NOT_ADMITTED; buyers join on one instance and read the same place on the
// other; an admission token from one instance creates an order on the other but not
// for another buyer; staff read the room; the event stream delivers the admission when
// staff raise the pace; with the room off, no queue and no token.
func TestWaitingRoom_API(t *testing.T) {
	a := newTestApp(t, nil)
	_, other := otherInstance(t, a.Cfg, a.clock)
	show, seats := a.onSaleShow(4)
	staff := a.demoToken("staff")
	path := "/api/v1/shows/" + show

	if r := a.do("PATCH", "/api/v1/admin/shows/"+show, staff, map[string]any{"waiting_room": true, "admit_per_minute": 0}, nil); r.status != 400 {
		t.Fatalf("pace 0: %d %s", r.status, r.body)
	}
	if r := a.do("GET", path, "", nil, nil); r.json(t)["waiting_room"] != false {
		t.Fatalf("a refused change turned the room on: %s", r.body)
	}
	if r := a.do("PATCH", "/api/v1/admin/shows/"+show, staff, map[string]any{"waiting_room": true, "admit_per_minute": 1}, nil); r.status != 200 || r.json(t)["waiting_room"] != true {
		t.Fatalf("turn the room on: %d %s", r.status, r.body)
	}
	if m := a.do("GET", path, "", nil, nil).json(t); m["waiting_room"] != true || m["admit_per_minute"] != 1.0 {
		t.Fatalf("the show after: %v", m)
	}
	buyerA, buyerB := a.newUser(), a.newUser()
	order := map[string]any{"seat_ids": seats[:1]}
	if r := a.do("POST", path+"/orders", buyerA, order, nil); r.status != 403 || r.code() != "NOT_ADMITTED" {
		t.Fatalf("order without a token: %d %s", r.status, r.body)
	}
	if r := a.do("GET", path+"/queue", buyerA, nil, nil); r.status != 404 {
		t.Fatalf("reading before joining: %d %s", r.status, r.body)
	}
	// the sale opened long ago: the first buyer finds the room's credit and walks in
	ea := a.do("POST", path+"/queue", buyerA, nil, nil).json(t)
	if ea["status"] != "admitted" || ea["admission_token"] == nil || ea["position"] != nil {
		t.Fatalf("first buyer: %v", ea)
	}
	eb := a.doAt(other, "POST", path+"/queue", buyerB, nil).json(t)
	if eb["status"] != "waiting" || eb["position"] != 1.0 || eb["estimated_wait_s"] == nil {
		t.Fatalf("second buyer: %v", eb)
	}
	if again := a.do("POST", path+"/queue", buyerB, nil, nil).json(t); again["queue_id"] != eb["queue_id"] || again["position"] != 1.0 {
		t.Fatalf("a second tab on the other instance: %v, want %v", again, eb)
	}
	tokenA := ea["admission_token"].(string)
	if r := a.send(other, "POST", path+"/orders", buyerB, order, map[string]string{"Admission-Token": tokenA}); r.status != 403 || r.code() != "NOT_ADMITTED" {
		t.Fatalf("another buyer's token: %d %s", r.status, r.body)
	}
	if r := a.send(other, "POST", path+"/orders", buyerA, order, map[string]string{"Admission-Token": tokenA}); r.status != 201 {
		t.Fatalf("the admitted buyer on the other instance: %d %s", r.status, r.body)
	}
	st := a.do("GET", "/api/v1/admin/shows/"+show+"/waiting-room", staff, nil, nil).json(t)
	if st["waiting"] != 1.0 || st["admitted_total"] != 1.0 || st["admit_per_minute"] != 1.0 || st["waiting_room"] != true {
		t.Fatalf("staff's view: %v", st)
	}
	if r := a.do("GET", "/api/v1/admin/shows/"+show+"/waiting-room", buyerA, nil, nil); r.status != 403 {
		t.Fatalf("a customer reading the staff view: %d", r.status)
	}
	metrics := string(a.do("GET", "/metrics", "", nil, nil).body)
	for _, want := range []string{`seatflow_waiting_room_token_refusals_total{reason="missing"} 1`,
		`seatflow_waiting_room_admitted_total 1`, "seatflow_waiting_room_wait_seconds_count 1"} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	// staff raise the pace: buyer B's stream (on the other instance) tells of the admission and ends
	if r := a.do("PATCH", "/api/v1/admin/shows/"+show, staff, map[string]any{"admit_per_minute": 6000}, nil); r.status != 200 {
		t.Fatalf("raise the pace: %d %s", r.status, r.body)
	}
	ev := a.doAt(other, "GET", path+"/queue/events", buyerB, nil)
	if ev.status != 200 || !strings.Contains(string(ev.body), "event: entry") || !strings.Contains(string(ev.body), `"status":"admitted"`) {
		t.Fatalf("event stream: %d %s", ev.status, ev.body)
	}
	if eb2 := a.do("GET", path+"/queue", buyerB, nil, nil).json(t); eb2["status"] != "admitted" || eb2["admission_expires_at"] == nil {
		t.Fatalf("second buyer after the stream: %v", eb2)
	}
	// staff turn the room off: the show takes no queue and asks for no token
	if r := a.do("PATCH", "/api/v1/admin/shows/"+show, staff, map[string]any{"waiting_room": false}, nil); r.status != 200 || r.json(t)["waiting_room"] != false {
		t.Fatalf("turn the room off: %d %s", r.status, r.body)
	}
	buyerC := a.newUser()
	if r := a.do("POST", path+"/queue", buyerC, nil, nil); r.status != 409 || r.code() != "ORDER_STATE" {
		t.Fatalf("queue of a show without a room: %d %s", r.status, r.body)
	}
	if r := a.do("POST", path+"/orders", buyerC, map[string]any{"seat_ids": seats[1:2]}, nil); r.status != 201 {
		t.Fatalf("order for a show without a room: %d %s", r.status, r.body)
	}
}

// TestWaitingRoom_TurnedOnAgainEndsAdmissions: tokens die when the room is turned on
// again. While the room is off for a moment, a waiting buyer who reads the queue reads
// admitted with a token, and a buyer the room admitted before holds one too; once the
// room is back on, neither token orders (403 NOT_ADMITTED), the waiting buyer reads
// their old place again, and the admitted one reads expired and queues again.
func TestWaitingRoom_TurnedOnAgainEndsAdmissions(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(4)
	staff := a.demoToken("staff")
	path := "/api/v1/shows/" + show
	room := func(on bool) {
		t.Helper()
		if r := a.do("PATCH", "/api/v1/admin/shows/"+show, staff, map[string]any{"waiting_room": on, "admit_per_minute": 1}, nil); r.status != 200 {
			t.Fatalf("room on %v: %d %s", on, r.status, r.body)
		}
	}
	room(true)
	first, second := a.newUser(), a.newUser()
	e1 := a.do("POST", path+"/queue", first, nil, nil).json(t)
	e2 := a.do("POST", path+"/queue", second, nil, nil).json(t)
	if e1["status"] != "admitted" || e2["status"] != "waiting" || e2["position"] != 1.0 {
		t.Fatalf("joining: %v, %v", e1, e2)
	}
	room(false)
	off := a.do("GET", path+"/queue", second, nil, nil).json(t)
	if off["status"] != "admitted" || off["admission_token"] == nil {
		t.Fatalf("reading the queue while the room is off: %v", off)
	}
	room(true)
	order := map[string]any{"seat_ids": seats[:1]}
	for who, c := range map[string]struct{ user, token string }{
		"the token read while the room was off":     {second, off["admission_token"].(string)},
		"the token the room gave before it was off": {first, e1["admission_token"].(string)},
	} {
		if r := a.do("POST", path+"/orders", c.user, order, map[string]string{"Admission-Token": c.token}); r.status != 403 || r.code() != "NOT_ADMITTED" {
			t.Fatalf("%s, after the room is on again: %d %s", who, r.status, r.body)
		}
	}
	if again := a.do("GET", path+"/queue", second, nil, nil).json(t); again["status"] != "waiting" || again["position"] != 1.0 || again["admission_token"] != nil {
		t.Fatalf("the waiting buyer after the room is on again: %v", again)
	}
	if again := a.do("GET", path+"/queue", first, nil, nil).json(t); again["status"] != "expired" || again["admission_token"] != nil {
		t.Fatalf("the buyer admitted before: %v", again)
	}
	if back := a.do("POST", path+"/queue", first, nil, nil).json(t); back["status"] != "waiting" || back["position"] != 2.0 {
		t.Fatalf("the buyer admitted before queues again: %v", back)
	}
}

// TestWaitingRoom_ReplayBeforeAdmission: an order made with an Idempotency-Key before
// the show's room was turned on, sent again with the same key and body after, returns
// its first answer (201, the same order); the same body under a new key is refused.
func TestWaitingRoom_ReplayBeforeAdmission(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(4)
	staff := a.demoToken("staff")
	buyer := a.newUser()
	path := "/api/v1/shows/" + show + "/orders"
	body := map[string]any{"seat_ids": seats[:2]}
	first := a.do("POST", path, buyer, body, map[string]string{"Idempotency-Key": "room-replay-1"})
	if first.status != 201 {
		t.Fatalf("the first order: %d %s", first.status, first.body)
	}
	if r := a.do("PATCH", "/api/v1/admin/shows/"+show, staff, map[string]any{"waiting_room": true, "admit_per_minute": 1}, nil); r.status != 200 {
		t.Fatalf("turn the room on: %d %s", r.status, r.body)
	}
	replay := a.do("POST", path, buyer, body, map[string]string{"Idempotency-Key": "room-replay-1"})
	if replay.status != 201 || replay.json(t)["order_no"] != first.json(t)["order_no"] || replay.json(t)["status"] != "pending" {
		t.Fatalf("the replay after the room was turned on: %d %s, first %s", replay.status, replay.body, first.body)
	}
	if r := a.do("POST", path, buyer, body, map[string]string{"Idempotency-Key": "room-replay-2"}); r.status != 403 || r.code() != "NOT_ADMITTED" {
		t.Fatalf("a new key without an admission: %d %s", r.status, r.body)
	}
}
