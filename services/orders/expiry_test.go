package orders_test

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// TestAsyncExpiry_EnqueuesAfterTheAnswer: a queued task reaches the scheduler through
// the workers; with no room in the queue it is enqueued at once; Close enqueues what is
// still queued.
func TestAsyncExpiry_EnqueuesAfterTheAnswer(t *testing.T) {
	rec := &testenv.RecordingExpiry{Scheduled: map[string]time.Time{}, Cancelled: map[string]bool{}}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	t.Run("workers", func(t *testing.T) {
		a := orders.NewAsyncExpiry(rec, 2, 16, services.NewMetrics(), log)
		at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
		for _, no := range []string{"A1", "A2", "A3"} {
			if err := a.ScheduleExpiries(context.Background(), at, []string{no}); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		a.Close(ctx)
		rec.Mu.Lock()
		defer rec.Mu.Unlock()
		for _, no := range []string{"A1", "A2", "A3"} {
			if !rec.Scheduled[no].Equal(at) {
				t.Errorf("%s not scheduled at %v: %v", no, at, rec.Scheduled[no])
			}
		}
	})
	t.Run("full queue enqueues at once", func(t *testing.T) {
		a := orders.NewAsyncExpiry(rec, 0, 0, services.NewMetrics(), log) // no workers, no room
		_ = a.ScheduleExpiries(context.Background(), time.Now(), []string{"B1"})
		rec.Mu.Lock()
		_, ok := rec.Scheduled["B1"]
		rec.Mu.Unlock()
		if !ok {
			t.Error("a task with no room in the queue was not enqueued at once")
		}
	})
}

// TestExpiryGroups: a committed batch's orders are split by deadline, in batch order,
// one expiry task per deadline.
func TestExpiryGroups(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 15, 0, 0, time.UTC)
	close := at.Add(-time.Minute) // a sale's close that cut a deadline short
	o := func(no string, deadline time.Time) *services.Order {
		return &services.Order{OrderNo: no, ExpiresAt: deadline}
	}
	cases := []struct {
		name  string
		batch []*services.Order
		want  map[time.Time][]string
		tasks int
	}{
		{"empty", nil, map[time.Time][]string{}, 0},
		{"one order", []*services.Order{o("A", at)}, map[time.Time][]string{at: {"A"}}, 1},
		{"one deadline", []*services.Order{o("A", at), o("B", at), o("C", at)}, map[time.Time][]string{at: {"A", "B", "C"}}, 1},
		{"two deadlines", []*services.Order{o("A", at), o("B", close), o("C", at)}, map[time.Time][]string{at: {"A", "C"}, close: {"B"}}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := orders.ExpiryGroups(c.batch)
			if len(got) != c.tasks {
				t.Fatalf("%d tasks, want %d: %v", len(got), c.tasks, got)
			}
			for at, nos := range got {
				if !slices.Equal(nos, c.want[at]) {
					t.Errorf("at %v: %v, want %v", at, nos, c.want[at])
				}
			}
		})
	}
}

// TestCreate_OneExpiryTaskPerBatch: orders that commit in one batch get one expiry task
// between them (not one each), every order of it at its deadline; a batch of one gets a
// task of its own.
func TestCreate_OneExpiryTaskPerBatch(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	rec := &testenv.RecordingExpiry{Scheduled: map[string]time.Time{}, Cancelled: map[string]bool{}}
	e.Expiry = rec
	o := batching(e)
	first, err := e.Create(e.User(0), e.SeatIDs("J10")...) // loads the seat map
	if err != nil {
		t.Fatal(err)
	}
	const n = 6
	heldTogether(t, o, n, nil)
	list, errs := createAll(e, e.BulkUsers(n), pairOf(e))
	for i, err := range errs {
		if err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
	}
	if count, _ := batches(t, o); count != 2 {
		t.Fatalf("%d transactions, want 2 (the first order, then one batch)", count)
	}
	rec.Mu.Lock()
	defer rec.Mu.Unlock()
	if len(rec.Tasks) != 2 || !slices.Equal(rec.Tasks[0], []string{first.OrderNo}) || len(rec.Tasks[1]) != n {
		t.Fatalf("tasks %v, want one naming %s alone, then one naming the batch's %d orders", rec.Tasks, first.OrderNo, n)
	}
	for _, o := range list {
		if !slices.Contains(rec.Tasks[1], o.OrderNo) {
			t.Errorf("order %s is not in its batch's task", o.OrderNo)
		}
		if at, ok := rec.Scheduled[o.OrderNo]; !ok || !at.Equal(o.ExpiresAt) {
			t.Errorf("order %s scheduled at %v (%v), want its deadline %v", o.OrderNo, at, ok, o.ExpiresAt)
		}
	}
}
