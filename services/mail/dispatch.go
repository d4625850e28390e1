package mail

import (
	"context"
	"log/slog"
	"time"
)

// Enqueuer starts the delivery of one outbox row (jobs.MailQueue: an asynq task whose
// id comes from the row's, so a row already on its way is not enqueued twice; that is
// not an error).
type Enqueuer interface {
	EnqueueDelivery(ctx context.Context, id int64) error
}

// dispatchBatch is the most rows one pass hands on.
const dispatchBatch = 200

// Dispatcher hands due outbox rows to the delivery tasks: every Interval, and at once
// after Nudge. Without an Enqueuer (no SMTP server configured) it moves queued rows to
// held instead, for the development mailbox. Every process runs one; the task ids and
// the claim (Outbox.Claim) keep their passes from delivering a row twice.
type Dispatcher struct {
	outbox   *Outbox
	enqueue  Enqueuer
	interval time.Duration
	nudge    chan struct{}
	log      *slog.Logger
}

// NewDispatcher returns a dispatcher over outbox; enqueue nil holds mails instead.
// interval 0 means a second.
func NewDispatcher(outbox *Outbox, enqueue Enqueuer, interval time.Duration, log *slog.Logger) *Dispatcher {
	if interval <= 0 {
		interval = time.Second
	}
	if log == nil {
		log = slog.Default()
	}
	return &Dispatcher{outbox: outbox, enqueue: enqueue, interval: interval, nudge: make(chan struct{}, 1), log: log}
}

// Nudge asks for a pass now (after a commit that queued e-mails); it never blocks, and
// nudges while a pass is waiting fold into one.
func (d *Dispatcher) Nudge() {
	select {
	case d.nudge <- struct{}{}:
	default:
	}
}

// Run makes passes until ctx ends: one at once, then one every interval or nudge.
func (d *Dispatcher) Run(ctx context.Context) {
	t := time.NewTicker(d.interval)
	defer t.Stop()
	for {
		if _, err := d.Pass(ctx); err != nil && ctx.Err() == nil {
			d.log.Warn("mail dispatch", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-d.nudge:
		}
	}
}

// Pass hands on the rows due now (Outbox.Due) and returns how many it enqueued, or,
// holding, how many it moved to held. An enqueue that fails stops the pass: the row
// stays due for the next one.
func (d *Dispatcher) Pass(ctx context.Context) (int, error) {
	if d.enqueue == nil {
		n, err := d.outbox.HoldQueued(ctx)
		return int(n), err
	}
	ids, err := d.outbox.Due(ctx, dispatchBatch)
	if err != nil {
		return 0, err
	}
	for i, id := range ids {
		if err := d.enqueue.EnqueueDelivery(ctx, id); err != nil {
			return i, err
		}
	}
	return len(ids), nil
}
