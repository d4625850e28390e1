package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/hibiken/asynq"
)

// ExpiryQueueState is what the expiry queue holds right now: task counts by state and
// the first few tasks of the states staff look at (scheduled, retry, archived).
type ExpiryQueueState struct {
	Pending   int
	Active    int
	Scheduled int
	Retry     int
	Archived  int
	// Processed and Failed count today's processed and failed tasks (asynq's daily
	// counters, reset at midnight UTC).
	Processed int
	Failed    int
	// Lists hold up to the asked number of tasks each: scheduled by next run, retry by
	// next attempt, archived as asynq lists them.
	ScheduledTasks []ExpiryTask
	RetryTasks     []ExpiryTask
	ArchivedTasks  []ExpiryTask
}

// ExpiryTask is one expiry task: the orders it expires (OrderNo the first, OrderNos
// all), when it runs next (UTC; zero for an archived task), how often it failed and its
// last error.
type ExpiryTask struct {
	TaskID       string
	OrderNo      string
	OrderNos     []string
	NextRunAt    time.Time
	Retried      int
	MaxRetry     int
	LastError    string
	LastFailedAt time.Time
}

// InspectExpiry reads the expiry queue's counts and the first n tasks of its scheduled,
// retry and archived lists (n <= 0 lists none). A queue that was never used reads as
// empty. Errors: asynq's Redis errors.
func (q *ExpiryQueue) InspectExpiry(ctx context.Context, n int) (*ExpiryQueueState, error) {
	out := &ExpiryQueueState{ScheduledTasks: []ExpiryTask{}, RetryTasks: []ExpiryTask{}, ArchivedTasks: []ExpiryTask{}}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// GetQueueInfo does not report a missing queue as asynq.ErrQueueNotFound: ask first
	queues, err := q.inspector.Queues()
	if err != nil {
		return nil, err
	}
	if !slices.Contains(queues, Queue) {
		return out, nil
	}
	info, err := q.inspector.GetQueueInfo(Queue)
	if err != nil {
		return nil, err
	}
	out.Pending, out.Active, out.Scheduled = info.Pending, info.Active, info.Scheduled
	out.Retry, out.Archived = info.Retry, info.Archived
	out.Processed, out.Failed = info.Processed, info.Failed
	if n <= 0 {
		return out, nil
	}
	lists := []struct {
		count int
		dst   *[]ExpiryTask
		list  func(string, ...asynq.ListOption) ([]*asynq.TaskInfo, error)
	}{
		{out.Scheduled, &out.ScheduledTasks, q.inspector.ListScheduledTasks},
		{out.Retry, &out.RetryTasks, q.inspector.ListRetryTasks},
		{out.Archived, &out.ArchivedTasks, q.inspector.ListArchivedTasks},
	}
	for _, l := range lists {
		if l.count == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		tasks, err := l.list(Queue, asynq.PageSize(n))
		if err != nil && !errors.Is(err, asynq.ErrQueueNotFound) {
			return nil, err
		}
		for _, t := range tasks {
			*l.dst = append(*l.dst, expiryTask(t))
		}
	}
	return out, nil
}

// expiryTask reads the order numbers from a task's payload (none for a task of another
// type or a malformed payload).
func expiryTask(t *asynq.TaskInfo) ExpiryTask {
	var p expirePayload
	if t.Type == TypeExpireOrder {
		_ = json.Unmarshal(t.Payload, &p)
	}
	nos := p.orders()
	first := ""
	if len(nos) > 0 {
		first = nos[0]
	}
	e := ExpiryTask{TaskID: t.ID, OrderNo: first, OrderNos: nos, Retried: t.Retried, MaxRetry: t.MaxRetry,
		LastError: t.LastErr, LastFailedAt: t.LastFailedAt.UTC()}
	if !t.NextProcessAt.IsZero() {
		e.NextRunAt = t.NextProcessAt.UTC()
	}
	return e
}
