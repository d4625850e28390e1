package store

import (
	"context"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"
)

// SubscribeOnce runs one Redis subscription: it waits (up to 5 s) until Redis confirms
// sub, calls ready, then hands every message to handle until ctx ends or the
// subscription closes. The caller subscribes again after a failure. Errors: the
// confirmation's.
func SubscribeOnce(ctx context.Context, sub *redis.PubSub, ready func(), handle func(*redis.Message), opts ...redis.ChannelOption) error {
	defer sub.Close()
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	_, err := sub.Receive(rctx)
	cancel()
	if err != nil {
		return err
	}
	ready()
	ch := sub.Channel(append([]redis.ChannelOption{redis.WithChannelHealthCheckInterval(10 * time.Second)}, opts...)...)
	for {
		select {
		case <-ctx.Done():
			return nil
		case m, ok := <-ch:
			if !ok {
				return nil
			}
			handle(m)
		}
	}
}

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
