// The asynq task that delivers one e-mail of the outbox: MailQueue enqueues it (the
// mail dispatcher calls it for each due row), HandleMail runs it.

package jobs

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
)

// TypeSendMail is the asynq task type that delivers one outbox row.
const TypeSendMail = "mail:send"

// Mail tasks run for at most MailTaskTimeout (below the claim's lease of
// mail.DefaultLease, so a task cut off by asynq never outlives its claim) and are
// retried up to MailTaskMaxRetry times; the outbox row's attempts decide when to stop
// (mail.DefaultMaxAttempts), so asynq's count is only a ceiling.
const (
	MailTaskTimeout  = 90 * time.Second
	MailTaskMaxRetry = 25
)

// MailTaskID is the asynq task id of outbox row id: while a row's task is queued,
// running or waiting for a retry, enqueueing it again is a no-op.
func MailTaskID(id int64) string { return "mail:" + strconv.FormatInt(id, 10) }

// MailQueue enqueues mail delivery tasks; it implements mail.Enqueuer.
type MailQueue struct{ client *asynq.Client }

// NewMailQueue returns a queue over an asynq client.
func NewMailQueue(client *asynq.Client) *MailQueue { return &MailQueue{client: client} }

// EnqueueDelivery enqueues the delivery of outbox row id now. A task the row already
// has is not an error.
func (q *MailQueue) EnqueueDelivery(ctx context.Context, id int64) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	_, err := q.client.EnqueueContext(ctx, asynq.NewTask(TypeSendMail, []byte(strconv.FormatInt(id, 10))),
		asynq.Queue(Queue), asynq.TaskID(MailTaskID(id)), asynq.MaxRetry(MailTaskMaxRetry), asynq.Timeout(MailTaskTimeout))
	if errors.Is(err, asynq.ErrTaskIDConflict) {
		return nil
	}
	return err
}

// MailDeliverer makes one delivery attempt of an outbox row (mail.Deliverer): nil when
// nothing is left to do, an error when the task should run again.
type MailDeliverer interface {
	Deliver(ctx context.Context, id int64) error
}

// HandleMail registers the mail delivery task's handler on mux.
func HandleMail(mux *asynq.ServeMux, d MailDeliverer) {
	mux.HandleFunc(TypeSendMail, func(ctx context.Context, t *asynq.Task) error {
		id, err := strconv.ParseInt(string(t.Payload()), 10, 64)
		if err != nil || id <= 0 {
			return fmt.Errorf("bad payload %q: %w", t.Payload(), asynq.SkipRetry)
		}
		return d.Deliver(ctx, id)
	})
}

// RetryDelay is the worker's asynq.RetryDelayFunc: mail tasks wait mailDelay(n) before
// their n-th retry (the delay the outbox row records as next_attempt_at), every other
// task asynq's default back-off.
func RetryDelay(mailDelay func(retried int) time.Duration) asynq.RetryDelayFunc {
	return func(n int, err error, t *asynq.Task) time.Duration {
		if t.Type() == TypeSendMail {
			return mailDelay(n)
		}
		return asynq.DefaultRetryDelayFunc(n, err, t)
	}
}
