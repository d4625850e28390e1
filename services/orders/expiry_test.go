package orders_test

import (
	"context"
	"io"
	"log/slog"
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
			if err := a.ScheduleExpiry(context.Background(), no, at); err != nil {
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
		_ = a.ScheduleExpiry(context.Background(), "B1", time.Now())
		rec.Mu.Lock()
		_, ok := rec.Scheduled["B1"]
		rec.Mu.Unlock()
		if !ok {
			t.Error("a task with no room in the queue was not enqueued at once")
		}
	})
}
