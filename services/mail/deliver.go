package mail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"seatflow/services"
)

// Delivery defaults (DESIGN.md "E-mail"): a row gets MaxAttempts attempts, spaced by
// RetryDelay; a claim's lease outlives the SMTP timeout, so a claim only runs out when
// its worker died.
const (
	DefaultMaxAttempts = 8
	DefaultLease       = 2 * time.Minute
)

// RetryDelay is the wait after a row's retried-th failed retry (0 after the first
// attempt): 30 s, doubling, at most an hour (8 attempts span about an hour). The
// asynq worker retries the delivery task with the same delays.
func RetryDelay(retried int) time.Duration {
	d := 30 * time.Second
	for i := 0; i < retried && d < time.Hour; i++ {
		d *= 2
	}
	return min(d, time.Hour)
}

// Deliverer sends one outbox row: it claims the row, renders it, hands it to Sender
// and records the outcome, each step a conditional UPDATE (Outbox).
type Deliverer struct {
	Outbox   *Outbox
	Renderer *Renderer
	Sender   Sender
	// From is the sender address (SEATFLOW_MAIL_FROM); Domain the Message-ID's domain.
	From, Domain string
	Clock        services.Clock
	// MaxAttempts (0: DefaultMaxAttempts), Lease (0: DefaultLease), Delay (nil:
	// RetryDelay) tune the retries.
	MaxAttempts int
	Lease       time.Duration
	Delay       func(retried int) time.Duration
	Log         *slog.Logger
}

// ErrRetry wraps the failure of an attempt that will be retried: the asynq handler
// returns it so asynq runs the task again after Delay.
var ErrRetry = errors.New("e-mail not sent; it will be retried")

// Deliver makes one delivery attempt of row id. It returns nil when nothing is left to
// do: the row was sent, ended failed (its last attempt, or a permanent refusal), or is
// not claimable (sent already, held, or claimed by a live worker). It returns an error
// wrapping ErrRetry when the attempt failed and the row is queued again at now+Delay,
// and other errors when the outbox could not be read or written (the row then stays
// as it was and is taken up again when its lease runs out).
func (d *Deliverer) Deliver(ctx context.Context, id int64) error {
	row, err := d.Outbox.Claim(ctx, id, d.lease())
	if err != nil || row == nil {
		return err
	}
	sendErr := d.send(ctx, row)
	// record the outcome even when ctx ended during the send
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	switch {
	case sendErr == nil:
		ok, err := d.Outbox.MarkSent(rctx, row.ID, row.Attempts)
		if err == nil && !ok {
			d.log().Warn("e-mail sent after its claim ran out", "mail_id", row.ID, "attempt", row.Attempts)
		}
		return err
	case Permanent(sendErr) || row.Attempts >= d.maxAttempts():
		d.log().Warn("e-mail failed for good", "mail_id", row.ID, "kind", row.Kind, "attempts", row.Attempts, "err", sendErr)
		_, err := d.Outbox.MarkFailed(rctx, row.ID, row.Attempts, sendErr)
		return err
	default:
		retryAt := d.Clock.Now().Add(d.delay(row.Attempts - 1))
		if _, err := d.Outbox.MarkRetry(rctx, row.ID, row.Attempts, sendErr, retryAt); err != nil {
			return err
		}
		return fmt.Errorf("%w: e-mail %d, attempt %d: %v", ErrRetry, row.ID, row.Attempts, sendErr)
	}
}

// send renders row and hands it to the sender.
func (d *Deliverer) send(ctx context.Context, row *Row) error {
	r, err := d.Renderer.Render(ctx, row)
	if err != nil {
		if c := services.ErrorCode(err); c == services.CodeNotFound || c == services.CodeInvalidRequest {
			return permanent{err}
		}
		return err
	}
	return d.Sender.Send(ctx, &Envelope{MessageID: RowMessageID(row, d.Domain), From: d.From, To: row.To,
		Date: d.Clock.Now(), Rendered: r})
}

func (d *Deliverer) lease() time.Duration {
	if d.Lease > 0 {
		return d.Lease
	}
	return DefaultLease
}

func (d *Deliverer) maxAttempts() int {
	if d.MaxAttempts > 0 {
		return d.MaxAttempts
	}
	return DefaultMaxAttempts
}

// delay is the wait after the retried-th retry (Delay, or RetryDelay).
func (d *Deliverer) delay(retried int) time.Duration {
	if d.Delay != nil {
		return d.Delay(retried)
	}
	return RetryDelay(retried)
}

func (d *Deliverer) log() *slog.Logger {
	if d.Log != nil {
		return d.Log
	}
	return slog.Default()
}
