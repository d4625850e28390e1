package orders

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"seatflow/services"
	"seatflow/services/store"
)

// AsyncExpiry schedules expiry tasks after a batch committed: ScheduleExpiries queues
// the batch's task in memory and a few workers enqueue it, so neither the batch's
// leader nor its buyers wait for the enqueue round trip. A full queue falls back to enqueueing at once; a task lost with
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
	orderNos []string
	at       time.Time
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
	if err := a.inner.ScheduleExpiries(ctx, t.at, t.orderNos); err != nil {
		a.metrics.ExpiryEnqueueErrors.Inc()
		a.log.Warn("expiry task not enqueued; reconciliation will expire the orders", "order_nos", t.orderNos, "err", err)
	}
}

// ScheduleExpiries queues the task of orderNos at at and returns at once; it never
// fails (see AsyncExpiry).
func (a *AsyncExpiry) ScheduleExpiries(_ context.Context, at time.Time, orderNos []string) error {
	select {
	case a.queue <- expiryTask{orderNos, at}:
	default:
		a.enqueue(expiryTask{orderNos, at})
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

// expiryGroup is the orders of one batch that share a deadline (UTC, whole seconds).
type expiryGroup struct {
	at       time.Time
	orderNos []string
}

// expiryGroups splits the orders of a committed batch by deadline, in the batch's
// order: one expiry task per group. Deadlines are whole seconds (hold), so a batch's
// orders mostly share one, and a sale's close that cuts some short makes a second.
func expiryGroups(orders []*services.Order) []expiryGroup {
	var out []expiryGroup
	for _, o := range orders {
		i := slices.IndexFunc(out, func(g expiryGroup) bool { return g.at.Equal(o.ExpiresAt) })
		if i < 0 {
			out = append(out, expiryGroup{at: o.ExpiresAt})
			i = len(out) - 1
		}
		out[i].orderNos = append(out[i].orderNos, o.OrderNo)
	}
	return out
}

// scheduleExpiries schedules the expiry of the orders of ps, which just committed in
// one batch: one task per deadline (expiryGroups), not one per order. A task that cannot
// be scheduled is logged and counted; reconciliation re-creates it (invariant 8).
func (o *Orders) scheduleExpiries(ps []*pendingCommit) {
	if o.expiry == nil || len(ps) == 0 {
		return
	}
	list := make([]*services.Order, len(ps))
	for i, p := range ps {
		list[i] = p.order
	}
	ctx, cancel := context.WithTimeout(context.Background(), store.RedisTimeout)
	defer cancel()
	for _, g := range expiryGroups(list) {
		if err := o.expiry.ScheduleExpiries(ctx, g.at, g.orderNos); err != nil {
			o.metrics.ExpiryEnqueueErrors.Inc()
			o.log.Warn("expiry task not enqueued; reconciliation will expire the orders", "order_nos", g.orderNos, "err", err)
		}
	}
}
