package jobs

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// the jobs tests own Redis DB 13
func newQueue(t *testing.T) (*ExpiryQueue, *asynq.Inspector) {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", DB: 13})
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
