package services

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestBestAvailable_ConcurrentBuyersGetDifferentBlocks: 35 buyers ask for the 2 best
// seats of the standard zone (140 seats) at the same moment. Each is offered a
// different block (chosen one at a time, the chosen seats marked at once), so every one
// gets seats, the seat map is read far fewer times than there are orders, and both
// stores agree afterwards.
func TestBestAvailable_ConcurrentBuyersGetDifferentBlocks(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	var reads atomic.Int64
	e.rdb.AddHook(countHGetAll{&reads})
	const buyers = 35
	users := make([]int64, buyers)
	for i := range users {
		users[i] = e.user(i)
	}
	var wg sync.WaitGroup
	var failed atomic.Int64
	start := make(chan struct{})
	for i := 0; i < buyers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			if _, err := e.orders.Create(ctx, CreateOrderRequest{UserID: users[i], ShowID: e.show.ID, Zone: "standard", Quantity: 2}); err != nil {
				failed.Add(1)
				t.Errorf("buyer %d: %v", i, err)
			}
		}(i)
	}
	close(start)
	wg.Wait()
	if failed.Load() > 0 {
		t.Fatalf("%d of %d buyers got no seats", failed.Load(), buyers)
	}
	if n := reads.Load(); n >= buyers {
		t.Errorf("the seat map was read %d times for %d orders", n, buyers)
	}
	e.checkInvariants()
}

// countHGetAll counts HGETALL commands (whole seat-map reads).
type countHGetAll struct{ n *atomic.Int64 }

func (c countHGetAll) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c countHGetAll) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() == "hgetall" {
			c.n.Add(1)
		}
		return next(ctx, cmd)
	}
}
func (c countHGetAll) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
