package services

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"
)

// TestAsyncExpiry_EnqueuesAfterTheAnswer: a queued task reaches the scheduler through
// the workers; with no room in the queue it is enqueued at once; Close enqueues what is
// still queued.
func TestAsyncExpiry_EnqueuesAfterTheAnswer(t *testing.T) {
	rec := &recordingExpiry{scheduled: map[string]time.Time{}, cancelled: map[string]bool{}}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	t.Run("workers", func(t *testing.T) {
		a := NewAsyncExpiry(rec, 2, 16, NewMetrics(), log)
		at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
		for _, no := range []string{"A1", "A2", "A3"} {
			if err := a.ScheduleExpiry(context.Background(), no, at); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		a.Close(ctx)
		rec.mu.Lock()
		defer rec.mu.Unlock()
		for _, no := range []string{"A1", "A2", "A3"} {
			if !rec.scheduled[no].Equal(at) {
				t.Errorf("%s not scheduled at %v: %v", no, at, rec.scheduled[no])
			}
		}
	})
	t.Run("full queue enqueues at once", func(t *testing.T) {
		a := NewAsyncExpiry(rec, 0, 0, NewMetrics(), log) // no workers, no room
		_ = a.ScheduleExpiry(context.Background(), "B1", time.Now())
		rec.mu.Lock()
		_, ok := rec.scheduled["B1"]
		rec.mu.Unlock()
		if !ok {
			t.Error("a task with no room in the queue was not enqueued at once")
		}
	})
}
