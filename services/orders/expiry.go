package orders

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"seatflow/services"
	"seatflow/services/store"
)

// AsyncExpiry schedules expiry tasks after the order is answered: ScheduleExpiry queues
// the task in memory and a few workers enqueue it, so the buyer does not wait for the
// enqueue round trip. A full queue falls back to enqueueing at once; a task lost with
// the process (or a failed enqueue) is caught by reconciliation, which expires overdue
// orders (invariant 8). CancelExpiry goes straight through.
type AsyncExpiry struct {
	inner   ExpiryScheduler
	log     *slog.Logger
	metrics *services.Metrics
	queue   chan expiryTask
	wg      sync.WaitGroup
	once    sync.Once
}

type expiryTask struct {
	orderNo string
	at      time.Time
}

// NewAsyncExpiry starts workers that enqueue through inner from a queue of buffer tasks.
func NewAsyncExpiry(inner ExpiryScheduler, workers, buffer int, metrics *services.Metrics, log *slog.Logger) *AsyncExpiry {
	a := &AsyncExpiry{inner: inner, log: log, metrics: metrics, queue: make(chan expiryTask, buffer)}
	for i := 0; i < workers; i++ {
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			for t := range a.queue {
				a.enqueue(t)
			}
		}()
	}
	return a
}

func (a *AsyncExpiry) enqueue(t expiryTask) {
	ctx, cancel := context.WithTimeout(context.Background(), store.RedisTimeout)
	defer cancel()
	if err := a.inner.ScheduleExpiry(ctx, t.orderNo, t.at); err != nil {
		a.metrics.ExpiryEnqueueErrors.Inc()
		a.log.Warn("expiry task not enqueued; reconciliation will expire the order", "order_no", t.orderNo, "err", err)
	}
}

// ScheduleExpiry queues the task and returns at once; it never fails (see AsyncExpiry).
func (a *AsyncExpiry) ScheduleExpiry(_ context.Context, orderNo string, at time.Time) error {
	select {
	case a.queue <- expiryTask{orderNo, at}:
	default:
		a.enqueue(expiryTask{orderNo, at})
	}
	return nil
}

// CancelExpiry deletes the order's task through the inner scheduler.
func (a *AsyncExpiry) CancelExpiry(ctx context.Context, orderNo string) error {
	return a.inner.CancelExpiry(ctx, orderNo)
}

// Close enqueues what is queued and stops the workers, waiting at most until ctx ends.
func (a *AsyncExpiry) Close(ctx context.Context) {
	a.once.Do(func() { close(a.queue) })
	done := make(chan struct{})
	go func() { a.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}
