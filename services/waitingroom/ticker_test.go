package waitingroom_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/waitingroom"
)

// fakeSeats is a seat map in memory: seat id -> stored value ("F", "H|...", "S|...", "B").
type fakeSeats struct {
	mu     sync.Mutex
	values map[int64]string
}

func (f *fakeSeats) States(context.Context, int64) (map[int64]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[int64]string{}
	for k, v := range f.values {
		out[k] = v
	}
	return out, nil
}

func (f *fakeSeats) ZoneFree(_ context.Context, ids []int64) (map[int64]map[string]int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	free := 0
	for _, v := range f.values {
		if v == "F" {
			free++
		}
	}
	out := map[int64]map[string]int{}
	for _, id := range ids {
		out[id] = map[string]int{"standard": free}
	}
	return out, nil
}

func (f *fakeSeats) set(vals ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.values = map[int64]string{}
	for i, v := range vals {
		f.values[int64(i+1)] = v
	}
}

// TestWaitingRoom_ClosesWhenNothingIsLeftToSell: the ticker closes a room whose show
// sold out (nothing free, nothing held), whose sale closed or which was cancelled:
// everyone waiting reads closed with the reason, nobody new may join; seats coming
// back (a refund) open it again. A held seat is not sold out: it may come back.
func TestWaitingRoom_ClosesWhenNothingIsLeftToSell(t *testing.T) {
	r := newRoomEnv(t)
	seats := &fakeSeats{}
	tick := waitingroom.NewTicker(r.rooms, seats, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	r.shows.add(1, r.Clock.Now(), 1)
	r.join(t, 1, 1)
	r.join(t, 1, 2)
	for _, c := range []struct {
		name   string
		seats  []string
		status string // the show's stored status
		closed string
	}{
		{"seats free", []string{"F", "S|o|1", "B"}, services.ShowOnSale, ""},
		{"the last seat held", []string{"H|o|3", "S|o|1", "B"}, services.ShowOnSale, ""},
		{"sold out", []string{"S|o|3", "S|o|1", "B"}, services.ShowOnSale, waitingroom.ClosedSoldOut},
		{"a refund frees a seat", []string{"F", "S|o|1", "B"}, services.ShowOnSale, ""},
		{"cancelled", []string{"F", "S|o|1", "B"}, services.ShowCancelled, waitingroom.ClosedCancelled},
	} {
		t.Run(c.name, func(t *testing.T) {
			seats.set(c.seats...)
			r.shows.mu.Lock()
			r.shows.shows[1].StoredStatus, r.shows.shows[1].Status = c.status, c.status
			r.shows.mu.Unlock()
			if err := tick.Tick(context.Background()); err != nil {
				t.Fatal(err)
			}
			e := r.read(t, 1, 2)
			if c.closed == "" {
				if e.Status != waitingroom.StatusWaiting || e.Position != 2 {
					t.Fatalf("entry %+v, want waiting at 2", e)
				}
				return
			}
			if e.Status != waitingroom.StatusClosed || e.Closed != c.closed {
				t.Fatalf("entry %+v, want closed (%s)", e, c.closed)
			}
			if _, err := r.rooms.Join(context.Background(), 1, 9); services.ErrorCode(err) != services.CodeOrderState {
				t.Errorf("joining a closed room: %v, want ORDER_STATE", err)
			}
		})
	}
	r.Clock.Advance(time.Hour)
	if err := tick.Tick(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st, _ := r.rooms.Stats(context.Background(), 1); st.AdmittedTotal != 0 {
		t.Errorf("a closed room admitted %d", st.AdmittedTotal)
	}
}
