package jobs

import (
	"context"
	"errors"
	"os"
	"slices"
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
	for _, bad := range []string{`{`, `{}`, `{"order_nos":[]}`, `{"order_nos":["0A",""]}`} {
		err := mux.ProcessTask(ctx, asynq.NewTask(TypeExpireOrder, []byte(bad)))
		if !errors.Is(err, asynq.SkipRetry) {
			t.Errorf("bad payload %s: %v, want SkipRetry", bad, err)
		}
	}
}

// TestExpiryHandler_Batch: a batch's task expires each of its orders (Expire leaves a
// paid or cancelled one alone); one order's failure fails the task so asynq runs it
// again, after trying every order.
func TestExpiryHandler_Batch(t *testing.T) {
	ctx := context.Background()
	task := asynq.NewTask(TypeExpireOrder, []byte(`{"order_nos":["0A","0B","0C"]}`))
	t.Run("every order", func(t *testing.T) {
		f := &fakeExpirer{}
		if err := NewMux(f).ProcessTask(ctx, task); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.got, []string{"0A", "0B", "0C"}) {
			t.Errorf("expired %v, want 0A 0B 0C", f.got)
		}
	})
	t.Run("a failure is retried", func(t *testing.T) {
		f := &fakeExpirer{err: errors.New("db down")}
		if err := NewMux(f).ProcessTask(ctx, task); err == nil {
			t.Error("a storage error was swallowed: the task would not be retried")
		}
		if len(f.got) != 3 {
			t.Errorf("tried %v, want every order of the task", f.got)
		}
	})
}

// TestScheduleExpiries_OneTaskPerBatch: a batch's orders get one task between them,
// which covers each of them (ExpiryCovered, what reconciliation asks) and no other
// order; paying or cancelling one order of the batch leaves the task for the others,
// while the task of an order alone is deleted.
func TestScheduleExpiries_OneTaskPerBatch(t *testing.T) {
	q, in := newQueue(t)
	ctx := context.Background()
	at := time.Now().Add(time.Hour).Truncate(time.Second)
	batch := []string{"0B1", "0B2", "0B3"}
	for i := 0; i < 2; i++ { // again: the same id, no second task
		if err := q.ScheduleExpiries(ctx, at, batch); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.ScheduleExpiries(ctx, at, []string{"0ONE"}); err != nil {
		t.Fatal(err)
	}
	tasks, err := in.ListScheduledTasks(Queue)
	if err != nil || len(tasks) != 2 {
		t.Fatalf("scheduled tasks %d (%v), want 2: the batch's and the lone order's", len(tasks), err)
	}
	covered, err := q.ExpiryCovered(ctx, []string{"0B1", "0B2", "0B3", "0ONE", "0OTHER"})
	if err != nil {
		t.Fatal(err)
	}
	for no, want := range map[string]bool{"0B1": true, "0B2": true, "0B3": true, "0ONE": true, "0OTHER": false} {
		if covered[no] != want {
			t.Errorf("order %s covered %v, want %v", no, covered[no], want)
		}
	}
	for _, no := range []string{"0B1", "0B2"} { // the first order's number is the task's id
		if err := q.CancelExpiry(ctx, no); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := q.ExpiryScheduled(ctx, "0B3"); !ok || err != nil {
		t.Errorf("cancelling two orders of a batch dropped the third's expiry: %v %v", ok, err)
	}
	if err := q.CancelExpiry(ctx, "0ONE"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := q.ExpiryScheduled(ctx, "0ONE"); ok {
		t.Error("the task of a cancelled order alone was not deleted")
	}
	st, err := q.InspectExpiry(ctx, 10)
	if err != nil || len(st.ScheduledTasks) != 1 || !slices.Equal(st.ScheduledTasks[0].OrderNos, batch) || st.ScheduledTasks[0].OrderNo != "0B1" {
		t.Errorf("inspected %+v (%v), want the batch's task naming %v", st, err, batch)
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
