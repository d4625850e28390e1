package seats

import (
	"context"
	"strconv"
	"testing"
	"time"

	"seatflow/services"
)

// mirrorWorld is a fake seat hash and subscription for SeatMirrors: publish changes a
// seat in the hash and queues its change, which reaches the mirror only when the fake
// subscription delivers it (a Sync, or deliver).
type mirrorWorld struct {
	t      *testing.T
	hall   *services.Hall
	hash   map[string]string
	queue  []SeatChange
	m      *SeatMirrors
	syncOK bool
	reads  int
	// during, when set, runs inside the next whole read after the hash was copied
	during func()
}

func newMirrorWorld(t *testing.T) *mirrorWorld {
	h := &services.Hall{ID: 1, Rows: 2, Cols: 3}
	for i := 1; i <= 6; i++ {
		kind := services.KindStandard
		if i == 6 {
			kind = services.KindBlocked
		}
		h.Seats = append(h.Seats, services.Seat{ID: int64(i), Row: (i-1)/3 + 1, Col: (i-1)%3 + 1, ZoneCode: "std", Kind: kind})
	}
	h.Index()
	w := &mirrorWorld{t: t, hall: h, hash: map[string]string{"_": "B"}, syncOK: true}
	for i := 1; i <= 6; i++ {
		w.hash[strconv.Itoa(i)] = SeatFree
	}
	w.m = NewSeatMirrors(func(context.Context, int64) bool {
		if !w.syncOK {
			return false
		}
		w.deliver()
		return true
	})
	return w
}

func (w *mirrorWorld) publish(id int64, value, state string) {
	w.hash[strconv.FormatInt(id, 10)] = value
	w.queue = append(w.queue, SeatChange{ShowID: 7, Seats: map[int64]string{id: state}})
}

func (w *mirrorWorld) deliver() {
	for _, c := range w.queue {
		w.m.Apply(c)
	}
	w.queue = nil
}

func (w *mirrorWorld) read(context.Context) (map[string]string, error) {
	w.reads++
	out := make(map[string]string, len(w.hash))
	for k, v := range w.hash {
		out[k] = v
	}
	if f := w.during; f != nil {
		w.during = nil
		f()
	}
	return out, nil
}

// check reads the states and compares them with the hash as it is now (statesInHallOrder),
// and the whole reads made with want.
func (w *mirrorWorld) check(step string, wantReads int) {
	w.t.Helper()
	got, complete, err := w.m.States(context.Background(), 7, w.hall, w.read)
	if err != nil || !complete {
		w.t.Fatalf("%s: %v (complete %v)", step, err, complete)
	}
	want, _ := statesInHallOrder(w.hall, w.hash)
	for i := range want {
		if got[i] != want[i] {
			w.t.Fatalf("%s: seat %d is %s in the answer, %s in Redis (stale)", step, w.hall.Seats[i].ID, got[i], want[i])
		}
	}
	if w.reads != wantReads {
		w.t.Fatalf("%s: %d whole reads, want %d", step, w.reads, wantReads)
	}
}

// TestSeatMirrors_AnswerTheMapAsOfTheCall: after a whole read on a confirmed
// subscription, the states come from the published changes, each answer made after a
// Sync delivered every change before it (a change published just before the read is
// never missed); a failed Sync, a reload, a change of hall, an unconfirmed subscription
// or a mirror older than MirrorReadEvery reads the whole map again.
func TestSeatMirrors_AnswerTheMapAsOfTheCall(t *testing.T) {
	w := newMirrorWorld(t)
	w.check("not confirmed", 1)
	w.check("not confirmed, again", 2)
	w.m.Apply(SeatChange{ShowID: 7, Reload: true}) // the subscription is confirmed
	w.check("first read once confirmed", 3)
	w.publish(2, "H|o1|5", services.StateHeld)
	w.check("a hold just published", 3)
	w.publish(2, "S|o1|5", services.StateSold)
	w.publish(3, "H|o2|6", services.StateHeld)
	w.publish(6, "F", services.StateFree) // a blocked seat of the hall stays blocked
	w.check("a sale and a hold", 3)
	w.publish(2, "F", services.StateFree)
	w.syncOK = false
	w.check("no sync", 4)
	w.syncOK = true
	w.check("sync back", 4)

	// changes published before the read but delivered during it, and changes during it
	w.m.Apply(SeatChange{ShowID: 7, Reload: true})
	w.publish(4, "H|o3|7", services.StateHeld)
	w.publish(4, "F", services.StateFree)
	w.during = func() {
		w.deliver()
		w.publish(5, "H|o4|8", services.StateHeld)
		w.deliver()
	}
	// the read answers the map as it read it (seat 5 changed after)
	if got, _, err := w.m.States(context.Background(), 7, w.hall, w.read); err != nil || got[3] != services.StateFree || w.reads != 5 {
		t.Fatalf("read after a reload: %v, %v (%d reads)", got, err, w.reads)
	}
	w.check("the changes around the read", 5)

	w.m.mu.Lock()
	s := w.m.shows[7]
	w.m.mu.Unlock()
	s.mu.Lock()
	s.readAt = time.Now().Add(-MirrorReadEvery)
	s.mu.Unlock()
	w.check("mirror too old", 6)
	w.publish(1, "H|o5|9", services.StateHeld)
	other := newMirrorWorld(t).hall
	if _, _, err := w.m.States(context.Background(), 7, other, w.read); err != nil || w.reads != 7 {
		t.Fatalf("another hall's mirror answered (%d reads, %v)", w.reads, err)
	}
	if from, whole := w.m.Answers(); from == 0 || whole != 7 {
		t.Fatalf("answers: %d from the mirror, %d whole reads", from, whole)
	}
}

// TestSeatMirrors_ReloadDuringTheSyncReadsTheWholeMap: a reload delivered while States
// waits for its Sync (the subscription was made again) drops the mirror under the
// answer: States then reads the whole map, once, and answers it (it used to wait
// forever for the mirror's own lock).
func TestSeatMirrors_ReloadDuringTheSyncReadsTheWholeMap(t *testing.T) {
	w := newMirrorWorld(t)
	w.m.Apply(SeatChange{ShowID: 7, Reload: true})
	w.check("first read once confirmed", 1)
	w.publish(2, "H|o1|5", services.StateHeld)
	w.queue = append(w.queue, SeatChange{ShowID: 7, Reload: true})
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.check("a reload during the sync", 2)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("States did not answer within 5 s of a reload during its Sync")
	}
}
