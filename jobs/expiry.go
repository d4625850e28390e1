// The asynq task that expires unpaid orders at their deadline: ExpiryQueue enqueues one
// for each committed batch and deadline (ScheduleExpiries) or for one order
// (reconciliation's EnsureExpiry), reports which orders a task covers and removes a
// task of one order when it is paid or cancelled; NewMux is the worker's handler,
// which expires each order of the task still pending past its deadline.

package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hibiken/asynq"
)

// TypeExpireOrder is the asynq task type that expires the orders of its payload.
const TypeExpireOrder = "order:expire"

// Queue is the asynq queue expiry tasks use.
const Queue = "default"

// expirePayload names the orders a task expires: OrderNos (a batch's orders of one
// deadline), or OrderNo alone (one order; the shape of tasks queued before batches).
type expirePayload struct {
	OrderNo  string   `json:"order_no,omitempty"`
	OrderNos []string `json:"order_nos,omitempty"`
}

// orders lists the payload's order numbers, each once.
func (p expirePayload) orders() []string {
	out := p.OrderNos
	if p.OrderNo != "" && !slices.Contains(out, p.OrderNo) {
		out = append([]string{p.OrderNo}, out...)
	}
	return out
}

// TaskID is the asynq task id of the expiry task whose first order is orderNo: order
// numbers are unique, so every batch's task has its own id, a repeated enqueue is a
// no-op (asynq.ErrTaskIDConflict), and the task of a single order is found by its
// number (CancelExpiry, EnsureExpiry).
func TaskID(orderNo string) string { return "expire:" + orderNo }

// ExpiryQueue enqueues and removes expiry tasks; it implements
// services.ExpiryScheduler.
type ExpiryQueue struct {
	client    *asynq.Client
	inspector *asynq.Inspector
}

// NewExpiryQueue returns a queue over an asynq client and inspector.
func NewExpiryQueue(client *asynq.Client, inspector *asynq.Inspector) *ExpiryQueue {
	return &ExpiryQueue{client: client, inspector: inspector}
}

// Expiry tasks run for at most TaskTimeout and are retried at most TaskMaxRetry times
// (asynq's back-off); a task lost for good is covered by reconciliation.
const (
	TaskTimeout  = 15 * time.Second
	TaskMaxRetry = 8
)

// ScheduleExpiry enqueues the expiry of orderNo to run at at (UTC deadline). An
// existing task for the order is not an error.
func (q *ExpiryQueue) ScheduleExpiry(ctx context.Context, orderNo string, at time.Time) error {
	return q.ScheduleExpiries(ctx, at, []string{orderNo})
}

// ScheduleExpiries enqueues one task that expires the orders orderNos (one committed
// batch's orders whose deadline is at, UTC) at at: one enqueue for the batch instead of
// one per order. Its id is TaskID of the first order, so enqueueing the same batch
// again is not an error. No orders: nothing is enqueued. Errors: asynq's Redis errors.
func (q *ExpiryQueue) ScheduleExpiries(ctx context.Context, at time.Time, orderNos []string) error {
	if len(orderNos) == 0 {
		return nil
	}
	_, err := q.enqueue(ctx, at, orderNos)
	return err
}

// enqueue adds the task expiring orderNos at at unless a task of its id exists, and
// reports whether it created one.
func (q *ExpiryQueue) enqueue(ctx context.Context, at time.Time, orderNos []string) (bool, error) {
	p := expirePayload{OrderNos: orderNos}
	if len(orderNos) == 1 {
		p = expirePayload{OrderNo: orderNos[0]}
	}
	payload, _ := json.Marshal(p)
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	_, err := q.client.EnqueueContext(ctx, asynq.NewTask(TypeExpireOrder, payload),
		asynq.Queue(Queue), asynq.ProcessAt(at), asynq.TaskID(TaskID(orderNos[0])),
		asynq.MaxRetry(TaskMaxRetry), asynq.Timeout(TaskTimeout))
	if errors.Is(err, asynq.ErrTaskIDConflict) {
		return false, nil
	}
	return err == nil, err
}

// EnsureExpiry enqueues an expiry task of orderNo alone at at (UTC) unless a task of its
// id exists, and reports whether it created one. Reconciliation calls it only for
// orders no task covers (ExpiryCovered).
func (q *ExpiryQueue) EnsureExpiry(ctx context.Context, orderNo string, at time.Time) (bool, error) {
	return q.enqueue(ctx, at, []string{orderNo})
}

// ExpiryScheduled reports whether an expiry task (in any state) covers orderNo.
func (q *ExpiryQueue) ExpiryScheduled(ctx context.Context, orderNo string) (bool, error) {
	covered, err := q.ExpiryCovered(ctx, []string{orderNo})
	return covered[orderNo], err
}

// ExpiryCovered reports which of orderNos an expiry task names, in any state: its own
// task (found by id) or a batch's (found by reading the queue's tasks, a page of
// coverPage at a time, only when some order has no task of its own). Errors: asynq's
// Redis errors.
func (q *ExpiryQueue) ExpiryCovered(ctx context.Context, orderNos []string) (map[string]bool, error) {
	covered := map[string]bool{}
	var rest []string
	for _, no := range orderNos {
		_, err := q.inspector.GetTaskInfo(Queue, TaskID(no))
		switch {
		case err == nil:
			covered[no] = true
		case errors.Is(err, asynq.ErrTaskNotFound) || errors.Is(err, asynq.ErrQueueNotFound):
			rest = append(rest, no)
		default:
			return nil, err
		}
	}
	if len(rest) == 0 {
		return covered, nil
	}
	want := map[string]bool{}
	for _, no := range rest {
		want[no] = true
	}
	lists := []func(string, ...asynq.ListOption) ([]*asynq.TaskInfo, error){q.inspector.ListScheduledTasks,
		q.inspector.ListPendingTasks, q.inspector.ListActiveTasks, q.inspector.ListRetryTasks, q.inspector.ListArchivedTasks}
	for _, list := range lists {
		for page := 1; ; page++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			tasks, err := list(Queue, asynq.PageSize(coverPage), asynq.Page(page))
			if errors.Is(err, asynq.ErrQueueNotFound) {
				return covered, nil
			}
			if err != nil {
				return nil, err
			}
			for _, t := range tasks {
				var p expirePayload
				if t.Type != TypeExpireOrder || json.Unmarshal(t.Payload, &p) != nil {
					continue
				}
				for _, no := range p.orders() {
					if want[no] {
						covered[no] = true
					}
				}
			}
			if len(tasks) < coverPage {
				break
			}
		}
	}
	return covered, nil
}

// coverPage is how many tasks ExpiryCovered reads at a time.
const coverPage = 500

// CancelExpiry removes the expiry task of an order that was paid or cancelled when the
// task is the order's alone. A batch's task that names other orders too stays: its
// handler finds this order settled and leaves it (Transition's conditional update), so
// the order's expiry ends all the same. A task that is gone (run already, or lost with
// a Redis wipe) is not an error; a task that is running cannot be deleted, which is
// harmless (the handler is idempotent) and returned so the caller can count it.
func (q *ExpiryQueue) CancelExpiry(_ context.Context, orderNo string) error {
	info, err := q.inspector.GetTaskInfo(Queue, TaskID(orderNo))
	if errors.Is(err, asynq.ErrTaskNotFound) || errors.Is(err, asynq.ErrQueueNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	var p expirePayload
	if json.Unmarshal(info.Payload, &p) == nil && len(p.orders()) > 1 {
		return nil
	}
	err = q.inspector.DeleteTask(Queue, TaskID(orderNo))
	if err == nil || errors.Is(err, asynq.ErrTaskNotFound) || errors.Is(err, asynq.ErrQueueNotFound) {
		return nil
	}
	return err
}

// Expirer ends a pending order past its deadline and leaves any other order as it is;
// services.Orders implements it.
type Expirer interface {
	Expire(ctx context.Context, orderNo string) (bool, error)
}

// NewMux returns the asynq handlers of seatflow's tasks. The expiry handler expires
// every order of its task (Expirer.Expire: a paid or cancelled order is left alone); an
// order whose expiry failed fails the task, so asynq runs it again, and the orders
// expired already find nothing to do then.
func NewMux(e Expirer) *asynq.ServeMux {
	mux := asynq.NewServeMux()
	mux.HandleFunc(TypeExpireOrder, func(ctx context.Context, t *asynq.Task) error {
		var p expirePayload
		if err := json.Unmarshal(t.Payload(), &p); err != nil || len(p.orders()) == 0 || slices.Contains(p.orders(), "") {
			return fmt.Errorf("bad payload %q: %w", t.Payload(), asynq.SkipRetry)
		}
		var errs []error
		for _, no := range p.orders() {
			if _, err := e.Expire(ctx, no); err != nil {
				errs = append(errs, fmt.Errorf("order %s: %w", no, err))
			}
		}
		return errors.Join(errs...)
	})
	return mux
}
