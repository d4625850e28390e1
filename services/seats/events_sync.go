package seats

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// syncWait bounds how long Sync waits for its ping's answer.
const syncWait = 100 * time.Millisecond

// Sync waits until every change published on showID's channel before the call has
// been handed to OnChange here: it pings through the show's confirmed subscription, and
// Redis answers the ping on that connection after every message it queued there
// before. A script's change is published before the script answers, so after a true
// Sync, OnChange has been told every change of a script that had answered when Sync was
// called, in any process. false when the show has no confirmed subscription here, the
// ping fails, or no answer came within syncWait (the caller cannot tell what it missed).
func (e *SeatEvents) Sync(ctx context.Context, showID int64) bool {
	if e == nil {
		return false
	}
	e.mu.Lock()
	sub := e.subs[showID]
	if sub == nil || sub.ps == nil {
		e.mu.Unlock()
		return false
	}
	ps := sub.ps
	e.syncs++
	token := "sync:" + strconv.FormatUint(e.syncs, 10)
	answer := make(chan bool, 1)
	if sub.waiters == nil {
		sub.waiters = map[string]chan bool{}
	}
	sub.waiters[token] = answer
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		delete(sub.waiters, token)
		e.mu.Unlock()
	}()
	ctx, cancel := context.WithTimeout(ctx, syncWait)
	defer cancel()
	if err := ps.Ping(ctx, token); err != nil {
		return false
	}
	select {
	case ok := <-answer:
		return ok
	case <-ctx.Done():
		return false
	}
}

// synced is told the payload of each ping's answer on sub's connection, after the
// messages before it were handed to OnChange: it answers the Sync that sent it.
func (e *SeatEvents) synced(sub *showSub, payload string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if ch, ok := sub.waiters[payload]; ok {
		ch <- true
		delete(sub.waiters, payload)
	}
}

// endSyncs forgets the subscription ps of sub when it ended: the Sync calls waiting on
// it answer false (messages may be lost until a new one is confirmed).
func (e *SeatEvents) endSyncs(sub *showSub, ps *redis.PubSub) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if sub.ps == ps {
		sub.ps = nil
	}
	for token, ch := range sub.waiters {
		ch <- false
		delete(sub.waiters, token)
	}
}
