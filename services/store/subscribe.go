package store

import (
	"context"
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
