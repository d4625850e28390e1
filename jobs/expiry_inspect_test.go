package jobs

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// newInspectQueue is newQueue (Redis DB jobsRedisDB, flushed) that also returns the Redis client
// for a worker.
func newInspectQueue(t *testing.T) (*ExpiryQueue, *asynq.Inspector, *redis.Client) {
	t.Helper()
	addr := os.Getenv("SEATFLOW_TEST_REDIS_ADDR")
	if addr == "" {
		addr = "127.0.0.1:6379"
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr, DB: jobsRedisDB})
	if err := rdb.FlushDB(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	c, in := asynq.NewClientFromRedisClient(rdb), asynq.NewInspectorFromRedisClient(rdb)
	t.Cleanup(func() { c.Close(); in.Close(); rdb.Close() })
	return NewExpiryQueue(c, in), in, rdb
}

// TestInspectExpiry: an unused queue reads as empty; scheduled, retry and archived
// tasks are counted and listed with their order numbers, next run and last error, at
// most n of each.
func TestInspectExpiry(t *testing.T) {
	q, in, rdb := newInspectQueue(t)
	ctx := context.Background()
	st, err := q.InspectExpiry(ctx, 5)
	if err != nil || st.Scheduled+st.Retry+st.Archived+st.Pending+st.Active != 0 || len(st.ScheduledTasks) != 0 {
		t.Fatalf("empty queue: %+v %v", st, err)
	}
	at := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	for i, no := range []string{"0A", "0B", "0C", "0D"} {
		if err := q.ScheduleExpiry(ctx, no, at.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if err := in.ArchiveTask(Queue, TaskID("0D")); err != nil {
		t.Fatal(err)
	}
	// one task fails once through a real worker and waits for its retry
	srv := asynq.NewServerFromRedisClient(rdb, asynq.Config{Concurrency: 1, Queues: map[string]int{Queue: 1},
		RetryDelayFunc: func(int, error, *asynq.Task) time.Duration { return time.Hour },
		LogLevel:       asynq.FatalLevel})
	if err := srv.Start(NewMux(&fakeExpirer{err: errors.New("database unavailable")})); err != nil {
		t.Fatal(err)
	}
	if err := q.ScheduleExpiry(ctx, "0R", time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	for wait := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if st, err = q.InspectExpiry(ctx, 2); err != nil {
			t.Fatal(err)
		}
		if st.Retry == 1 || time.Now().After(wait) {
			break
		}
	}
	srv.Shutdown()
	if st.Scheduled != 3 || st.Archived != 1 || st.Retry != 1 || st.Pending+st.Active != 0 {
		t.Errorf("counts scheduled %d retry %d archived %d pending %d active %d, want 3 1 1 0 0",
			st.Scheduled, st.Retry, st.Archived, st.Pending, st.Active)
	}
	if len(st.RetryTasks) != 1 || st.RetryTasks[0].OrderNo != "0R" || st.RetryTasks[0].Retried != 1 ||
		!strings.Contains(st.RetryTasks[0].LastError, "database unavailable") ||
		st.RetryTasks[0].NextRunAt.Before(time.Now().Add(50*time.Minute)) {
		t.Errorf("retry list %+v, want 0R failed once with its error, next run in an hour", st.RetryTasks)
	}
	if len(st.ScheduledTasks) != 2 || st.ScheduledTasks[0].OrderNo != "0A" || st.ScheduledTasks[1].OrderNo != "0B" {
		t.Errorf("scheduled list %+v, want 0A and 0B", st.ScheduledTasks)
	}
	if len(st.ScheduledTasks) > 0 && !st.ScheduledTasks[0].NextRunAt.Equal(at) {
		t.Errorf("0A runs at %s, want %s", st.ScheduledTasks[0].NextRunAt, at)
	}
	if len(st.ArchivedTasks) != 1 || st.ArchivedTasks[0].OrderNo != "0D" || st.ArchivedTasks[0].TaskID != TaskID("0D") {
		t.Errorf("archived list %+v, want 0D", st.ArchivedTasks)
	}
}
