package jobs

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// jobsRedisDB is the Redis DB the jobs tests own (services/internal/testenv.RedisDBs
// lists every test package's number).
const jobsRedisDB = 13

// newQueue is an expiry queue over Redis DB jobsRedisDB, flushed, and its inspector.
func newQueue(t *testing.T) (*ExpiryQueue, *asynq.Inspector) {
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
	return NewExpiryQueue(c, in), in
}

// TestScheduleExpiryOncePerOrder: the task id comes from the order number, so a second
// enqueue for the same order is a no-op, and CancelExpiry removes the scheduled task.
func TestScheduleExpiryOncePerOrder(t *testing.T) {
	q, in := newQueue(t)
	ctx := context.Background()
	at := time.Now().Add(time.Hour)
	for i := 0; i < 2; i++ {
		if err := q.ScheduleExpiry(ctx, "0ABC", at); err != nil {
			t.Fatalf("enqueue #%d: %v", i+1, err)
		}
	}
	tasks, err := in.ListScheduledTasks(Queue)
	if err != nil || len(tasks) != 1 || tasks[0].ID != TaskID("0ABC") {
		t.Fatalf("scheduled tasks %v, %v; want one with id %s", tasks, err, TaskID("0ABC"))
	}
	if d := tasks[0].NextProcessAt.Sub(at); d > time.Second || d < -time.Second {
		t.Errorf("task runs at %v, want %v", tasks[0].NextProcessAt, at)
	}
	if err := q.CancelExpiry(ctx, "0ABC"); err != nil {
		t.Fatal(err)
	}
	if err := q.CancelExpiry(ctx, "0ABC"); err != nil { // gone already: fine
		t.Errorf("deleting a task that is gone: %v", err)
	}
	if tasks, _ := in.ListScheduledTasks(Queue); len(tasks) != 0 {
		t.Errorf("%d tasks left after CancelExpiry", len(tasks))
	}
}

type fakeExpirer struct {
	mu  sync.Mutex
	got []string
	err error
}

func (f *fakeExpirer) Expire(_ context.Context, no string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, no)
	return f.err == nil, f.err
}

// TestExpiryHandler: the task expires its order; a storage error is returned so asynq
// retries; a malformed payload is not retried.
func TestExpiryHandler(t *testing.T) {
	f := &fakeExpirer{}
	mux := NewMux(f)
	ctx := context.Background()
	if err := mux.ProcessTask(ctx, asynq.NewTask(TypeExpireOrder, []byte(`{"order_no":"0XYZ"}`))); err != nil {
		t.Fatal(err)
	}
	if len(f.got) != 1 || f.got[0] != "0XYZ" {
		t.Errorf("expired %v", f.got)
	}
	f.err = errors.New("db down")
	if err := mux.ProcessTask(ctx, asynq.NewTask(TypeExpireOrder, []byte(`{"order_no":"0XYZ"}`))); err == nil {
		t.Error("a storage error was swallowed: the task would not be retried")
	}
	err := mux.ProcessTask(ctx, asynq.NewTask(TypeExpireOrder, []byte(`{`)))
	if !errors.Is(err, asynq.SkipRetry) {
		t.Errorf("bad payload: %v, want SkipRetry", err)
	}
}

// TestEnsureExpiryRecreatesALostTask: reconciliation asks whether an order has its task
// and re-creates it when it was lost, once.
func TestEnsureExpiryRecreatesALostTask(t *testing.T) {
	q, in := newQueue(t)
	ctx := context.Background()
	at := time.Now().Add(time.Hour)
	if ok, err := q.ExpiryScheduled(ctx, "0LOST"); ok || err != nil {
		t.Fatalf("a task that never existed: %v %v", ok, err)
	}
	if created, err := q.EnsureExpiry(ctx, "0LOST", at); !created || err != nil {
		t.Fatalf("first ensure: %v %v", created, err)
	}
	if created, err := q.EnsureExpiry(ctx, "0LOST", at); created || err != nil {
		t.Errorf("second ensure created another task: %v %v", created, err)
	}
	if ok, err := q.ExpiryScheduled(ctx, "0LOST"); !ok || err != nil {
		t.Errorf("scheduled task not seen: %v %v", ok, err)
	}
	info, err := in.GetTaskInfo(Queue, TaskID("0LOST"))
	if err != nil {
		t.Fatal(err)
	}
	if info.MaxRetry != TaskMaxRetry || info.Timeout != TaskTimeout {
		t.Errorf("task retries %d timeout %s, want %d and %s", info.MaxRetry, info.Timeout, TaskMaxRetry, TaskTimeout)
	}
	if err := in.DeleteTask(Queue, TaskID("0LOST")); err != nil {
		t.Fatal(err)
	}
	if created, err := q.EnsureExpiry(ctx, "0LOST", at); !created || err != nil {
		t.Errorf("ensure after the task was lost: %v %v", created, err)
	}
}
