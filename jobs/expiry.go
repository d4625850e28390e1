// The asynq task that expires an unpaid order at its deadline: ExpiryQueue enqueues it
// once per order, reports whether an order has one and removes it when the order is
// paid or cancelled; NewMux is the worker's handler, which expires the order.

package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
)

// TypeExpireOrder is the asynq task type that expires one order.
const TypeExpireOrder = "order:expire"

// Queue is the asynq queue expiry tasks use.
const Queue = "default"

type expirePayload struct {
	OrderNo string `json:"order_no"`
}

// TaskID is the asynq task id of an order's expiry task: one task per order, so a
// repeated enqueue is a no-op (asynq.ErrTaskIDConflict).
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
	_, err := q.EnsureExpiry(ctx, orderNo, at)
	return err
}

// EnsureExpiry enqueues the expiry task of orderNo at at (UTC) unless the order has one
// (scheduled, running, or waiting for a retry), and reports whether it created one.
func (q *ExpiryQueue) EnsureExpiry(ctx context.Context, orderNo string, at time.Time) (bool, error) {
	payload, _ := json.Marshal(expirePayload{OrderNo: orderNo})
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	_, err := q.client.EnqueueContext(ctx, asynq.NewTask(TypeExpireOrder, payload),
		asynq.Queue(Queue), asynq.ProcessAt(at), asynq.TaskID(TaskID(orderNo)),
		asynq.MaxRetry(TaskMaxRetry), asynq.Timeout(TaskTimeout))
	if errors.Is(err, asynq.ErrTaskIDConflict) {
		return false, nil
	}
	return err == nil, err
}

// ExpiryScheduled reports whether orderNo has an expiry task (in any state).
func (q *ExpiryQueue) ExpiryScheduled(_ context.Context, orderNo string) (bool, error) {
	_, err := q.inspector.GetTaskInfo(Queue, TaskID(orderNo))
	if errors.Is(err, asynq.ErrTaskNotFound) || errors.Is(err, asynq.ErrQueueNotFound) {
		return false, nil
	}
	return err == nil, err
}

// CancelExpiry removes the scheduled expiry of an order that was paid or cancelled. A
// task that is gone (run already, or lost with a Redis wipe) is not an error; a task
// that is running cannot be deleted, which is harmless (the handler is idempotent) and
// returned so the caller can count it.
func (q *ExpiryQueue) CancelExpiry(_ context.Context, orderNo string) error {
	err := q.inspector.DeleteTask(Queue, TaskID(orderNo))
	if err == nil || errors.Is(err, asynq.ErrTaskNotFound) || errors.Is(err, asynq.ErrQueueNotFound) {
		return nil
	}
	return err
}

// Expirer ends a pending order past its deadline; services.Orders implements it.
type Expirer interface {
	Expire(ctx context.Context, orderNo string) (bool, error)
}

// NewMux returns the asynq handlers of seatflow's tasks.
func NewMux(e Expirer) *asynq.ServeMux {
	mux := asynq.NewServeMux()
	mux.HandleFunc(TypeExpireOrder, func(ctx context.Context, t *asynq.Task) error {
		var p expirePayload
		if err := json.Unmarshal(t.Payload(), &p); err != nil || p.OrderNo == "" {
			return fmt.Errorf("bad payload %q: %w", t.Payload(), asynq.SkipRetry)
		}
		_, err := e.Expire(ctx, p.OrderNo)
		return err
	})
	return mux
}
