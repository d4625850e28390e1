package store

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"time"

	"github.com/redis/go-redis/v9"
)

// SubscribeOnce runs one Redis subscription: it waits (up to 5 s) until Redis confirms
// sub, calls ready, then hands every message to handle until ctx ends or the
// subscription closes. go-redis reconnects a broken subscription by itself and
// subscribes again, losing what was published in between; SubscribeOnce returns
// ErrResubscribed at that new confirmation, so the caller, which subscribes again, knows
// messages may be missing. Errors: the confirmation's, ErrResubscribed.
func SubscribeOnce(ctx context.Context, sub *redis.PubSub, ready func(), handle func(*redis.Message), opts ...redis.ChannelOption) error {
	defer sub.Close()
	if err := confirmed(ctx, sub); err != nil {
		return err
	}
	ready()
	ch := sub.ChannelWithSubscriptions(append([]redis.ChannelOption{redis.WithChannelHealthCheckInterval(10 * time.Second)}, opts...)...)
	for {
		select {
		case <-ctx.Done():
			return nil
		case m, ok := <-ch:
			if !ok {
				return nil
			}
			switch m := m.(type) {
			case *redis.Message:
				handle(m)
			case *redis.Subscription:
				return ErrResubscribed
			}
		}
	}
}

// ErrResubscribed is SubscribeOnce's answer when go-redis subscribed again after a
// broken connection: messages published meanwhile were lost.
var ErrResubscribed = errors.New("the subscription was broken and made again: messages may have been lost")

// KeepSubscribed runs listen (one subscription, SubscribeOnce) until ctx ends, again a
// second after it returns; again tells listen that messages may have been missed since
// the last subscription. A failure is logged as what's.
func KeepSubscribed(ctx context.Context, log *slog.Logger, what string, listen func(ctx context.Context, again bool) error) {
	first := true
	for ctx.Err() == nil {
		err := listen(ctx, !first)
		first = false
		if err != nil && ctx.Err() == nil {
			log.Warn(what+": subscription failed; retrying", "err", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// ErrUnsubscribed is SubscribeShardOnce's answer when Redis ended the subscription
// itself: a cluster sends SUNSUBSCRIBE when the channel's slot moved to another node
// (a resharding or a failover), and the caller must subscribe again there.
var ErrUnsubscribed = errors.New("redis ended the shard channel subscription (its slot moved)")

// SubscribeShardOnce is SubscribeOnce for a sharded subscription (SSUBSCRIBE): it also
// returns ErrUnsubscribed when Redis unsubscribes the channel by itself, which
// go-redis's message channel would pass over in silence. It reads with Receive and
// pings after 10 s without a message, so a dead connection is noticed. pong (nil: none)
// is told the payload of every ping's answer, in turn with the messages: Redis answers
// a ping on the subscription after every message it queued there before (sub.Ping with
// a payload is a barrier).
func SubscribeShardOnce(ctx context.Context, sub *redis.PubSub, ready func(), handle func(*redis.Message), pong func(payload string)) error {
	defer sub.Close()
	stop := context.AfterFunc(ctx, func() { _ = sub.Close() }) // ends a Receive in progress
	defer stop()
	if err := confirmed(ctx, sub); err != nil {
		return err
	}
	ready()
	idle := 0
	for ctx.Err() == nil {
		msg, err := sub.ReceiveTimeout(ctx, 10*time.Second)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() && idle == 0 {
				idle++
				if err := sub.Ping(ctx); err != nil {
					return err
				}
				continue
			}
			return err
		}
		idle = 0
		switch m := msg.(type) {
		case *redis.Message:
			handle(m)
		case *redis.Subscription:
			if m.Kind == "sunsubscribe" {
				return ErrUnsubscribed
			}
		case *redis.Pong:
			if pong != nil {
				pong(m.Payload)
			}
		}
	}
	return nil
}

// confirmed waits up to 5 s for Redis's confirmation of sub (its first reply).
func confirmed(ctx context.Context, sub *redis.PubSub) error {
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := sub.Receive(rctx)
	return err
}
