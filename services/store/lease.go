package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"seatflow/lua"
)

// Lease is a cluster-wide mutual exclusion held in Redis for a bounded time, with a
// fencing token that grows with every new holder. Reconciliation holds it for a run:
// one run at a time across all instances; seat writes carry the token, so a run that
// lost its lease cannot overwrite the work of the run that took over.
type Lease struct {
	rdb      redis.UniversalClient
	key      string // the lease: value = token of the holder
	tokenKey string // the fencing token counter, in the lease key's hash slot
	ttl      time.Duration
	acquire  *redis.Script
	renew    *redis.Script
}

// NewLease returns the lease named name under prefix (keys "<prefix>:{lease:<name>}" and
// "...:token"); a holder that stops renewing loses it after ttl.
func NewLease(rdb redis.UniversalClient, prefix, name string, ttl time.Duration) *Lease {
	tag := prefix + ":{lease:" + name + "}"
	return &Lease{rdb: rdb, key: tag, tokenKey: tag + ":token", ttl: ttl,
		acquire: redis.NewScript(lua.LeaseAcquire), renew: redis.NewScript(lua.LeaseRenew)}
}

// TTL is how long the lease lasts without renewal.
func (l *Lease) TTL() time.Duration { return l.ttl }

// TryAcquire takes the lease when it is free and returns its fencing token (>= 1), or
// 0 when another holder has it. Errors: UNAVAILABLE when Redis cannot be reached.
func (l *Lease) TryAcquire(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, RedisTimeout)
	defer cancel()
	tok, err := l.acquire.Run(ctx, l.rdb, []string{l.key, l.tokenKey}, l.ttl.Milliseconds()).Int64()
	if err != nil {
		return 0, Unavailable("the seat cache", err)
	}
	return tok, nil
}

// Renew extends the lease held with token by its ttl; false means it was lost (expired
// and perhaps taken by another holder).
func (l *Lease) Renew(ctx context.Context, token int64) (bool, error) {
	return l.runRenew(ctx, token, l.ttl.Milliseconds())
}

// Release gives the lease back if token still holds it.
func (l *Lease) Release(ctx context.Context, token int64) error {
	_, err := l.runRenew(ctx, token, 0)
	return err
}

func (l *Lease) runRenew(ctx context.Context, token, ms int64) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, RedisTimeout)
	defer cancel()
	n, err := l.renew.Run(ctx, l.rdb, []string{l.key}, strconv.FormatInt(token, 10), ms).Int64()
	if err != nil {
		return false, Unavailable("the seat cache", err)
	}
	return n == 1, nil
}

// InFlight is the set of one process's order creates between the start of their hold
// and their outcome (committed, refused or released), counted by the millisecond their
// order number carries (services.NewOrderNo). The instance heartbeat publishes its
// oldest, so that reconciliation can tell a hold still committing from an orphan.
type InFlight struct {
	mu sync.Mutex
	n  map[int64]int
}

// CreatesInFlight is this process's set: services/orders counts every create in it.
var CreatesInFlight = NewInFlight()

// NewInFlight returns an empty set.
func NewInFlight() *InFlight { return &InFlight{n: map[int64]int{}} }

// Begin counts a create whose order number carries ms (Unix milliseconds); end, called
// once, uncounts it.
func (f *InFlight) Begin(ms int64) (end func()) {
	f.mu.Lock()
	f.n[ms]++
	f.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			if f.n[ms]--; f.n[ms] <= 0 {
				delete(f.n, ms)
			}
			f.mu.Unlock()
		})
	}
}

// Oldest returns the least ms of the creates in flight, or 0 when there is none.
func (f *InFlight) Oldest() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	var oldest int64
	for ms := range f.n {
		if oldest == 0 || ms < oldest {
			oldest = ms
		}
	}
	return oldest
}

// Instance heartbeat timing: an instance beats every InstanceBeat and is dead once
// silent for InstanceLapse (by Redis's clock); a dead one is forgotten after a day.
const (
	InstanceBeat   = 200 * time.Millisecond
	InstanceLapse  = 3 * time.Second
	instanceForget = 24 * time.Hour
)

// Instances is the registry of live instances in Redis (one hash, "<prefix>:{instances}",
// lua/lease_heartbeat.lua): every instance beats with the oldest of its creates in flight,
// and reconciliation asks it for a Liveness (Prove) before it releases a young hold whose
// order MySQL does not know. A beat also reports instances whose beats lapsed and a
// registry that was lost (a flush, a restart, a lossy failover): both are faults after
// which reconciliation should run at once.
type Instances struct {
	rdb      redis.UniversalClient
	key      string
	id       string
	inflight *InFlight
	script   *redis.Script
	mu       sync.Mutex
	seen     int64 // the epoch the last beat read; the next beat counts creates after it
}

// NewInstances returns this process's handle on the registry under prefix, with a fresh
// random instance id, publishing the creates of inflight.
func NewInstances(rdb redis.UniversalClient, prefix string, inflight *InFlight) *Instances {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return &Instances{rdb: rdb, key: prefix + ":{instances}", id: hex.EncodeToString(b), inflight: inflight,
		script: redis.NewScript(lua.LeaseHeartbeat)}
}

// ID is this instance's id in the registry (16 hex digits).
func (i *Instances) ID() string { return i.id }

// Key is the registry's Redis key.
func (i *Instances) Key() string { return i.key }

// BeatResult is what one beat found: Reset when the registry had been lost (this beat
// made it again), Lapsed the ids of the instances whose beats lapsed since the last beat.
type BeatResult struct {
	Reset  bool
	Lapsed []string
}

// Beat publishes this instance as alive with the oldest of its creates in flight,
// counted after the epoch the previous beat read. Errors: UNAVAILABLE.
func (i *Instances) Beat(ctx context.Context) (BeatResult, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	oldest := i.inflight.Oldest() // counted after i.seen was read
	ctx, cancel := context.WithTimeout(ctx, RedisTimeout)
	defer cancel()
	res, err := i.script.Run(ctx, i.rdb, []string{i.key}, "beat", i.id, strconv.FormatInt(i.seen, 10),
		strconv.FormatInt(oldest, 10), InstanceLapse.Milliseconds(), instanceForget.Milliseconds()).Slice()
	if err != nil || len(res) < 2 {
		return BeatResult{}, Unavailable("the seat cache", fmt.Errorf("instance heartbeat: %v", err))
	}
	epoch, _ := res[0].(int64)
	made, _ := res[1].(int64)
	i.seen = epoch
	out := BeatResult{Reset: made == 1}
	for _, v := range res[2:] {
		if s, ok := v.(string); ok {
			out.Lapsed = append(out.Lapsed, s)
		}
	}
	return out, nil
}

// Liveness is the registry's answer about creates in flight, given after a read of the
// seat cache: Complete is false when the registry cannot tell (too young to list every
// live instance, or an instance did not answer in time); Oldest holds, per live
// instance, the ms of its oldest create in flight (0: none).
type Liveness struct {
	Complete bool
	Oldest   []int64
}

// MayBeInFlight reports whether a create whose order number carries ms may still be in
// flight on a live instance: unknown unless the registry is complete, else whether a
// live instance has a create in flight at least as old.
func (l *Liveness) MayBeInFlight(ms int64) bool {
	if l == nil || !l.Complete {
		return true
	}
	for _, o := range l.Oldest {
		if o != 0 && o <= ms {
			return true
		}
	}
	return false
}

// Prove asks every live instance for its creates in flight as they are now: it bumps the
// epoch, then waits (polling, at most wait) until every live instance beat with a count
// made after the bump. A hold read from the seat cache before Prove whose order number is
// older than every Oldest, while no instance lapsed meanwhile, belongs to no create
// still in flight: its create ended (read MySQL after Prove to know how) or its
// instance died. Errors: UNAVAILABLE.
func (i *Instances) Prove(ctx context.Context, wait time.Duration) (*Liveness, error) {
	rctx, cancel := context.WithTimeout(ctx, RedisTimeout)
	epoch, err := i.script.Run(rctx, i.rdb, []string{i.key}, "bump").Int64()
	cancel()
	if err != nil {
		return nil, Unavailable("the seat cache", err)
	}
	deadline := time.Now().Add(wait)
	for {
		l, done, err := i.read(ctx, epoch)
		if err != nil || done {
			return l, err
		}
		if !time.Now().Before(deadline) {
			return &Liveness{}, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(InstanceBeat / 4):
		}
	}
}

// read reads the registry: done when every live instance beat after seeing epoch.
func (i *Instances) read(ctx context.Context, epoch int64) (*Liveness, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, RedisTimeout)
	defer cancel()
	res, err := i.script.Run(ctx, i.rdb, []string{i.key}, "read").StringSlice()
	if err != nil || len(res) == 0 {
		return nil, false, Unavailable("the seat cache", fmt.Errorf("instance registry: %v", err))
	}
	now, _ := strconv.ParseInt(res[0], 10, 64)
	var born int64
	l := &Liveness{}
	for k := 1; k+1 < len(res); k += 2 {
		f, v := res[k], res[k+1]
		switch {
		case f == "_born":
			born, _ = strconv.ParseInt(v, 10, 64)
		case f == "_epoch", strings.HasPrefix(v, "D|"):
		default:
			parts := strings.Split(v, "|")
			if len(parts) != 3 {
				continue
			}
			ms, _ := strconv.ParseInt(parts[0], 10, 64)
			if now-ms > InstanceLapse.Milliseconds() {
				continue // dead: its creates died with it
			}
			seen, _ := strconv.ParseInt(parts[1], 10, 64)
			if seen < epoch {
				return nil, false, nil
			}
			oldest, _ := strconv.ParseInt(parts[2], 10, 64)
			l.Oldest = append(l.Oldest, oldest)
		}
	}
	l.Complete = born > 0 && now-born >= InstanceLapse.Milliseconds()
	return l, true, nil
}

// Run beats every InstanceBeat until ctx ends, and calls fault (never concurrently) when
// a beat finds the registry lost ("registry lost") or instances dead ("instance dead"),
// or, on a Redis Cluster, when the slots' masters changed ("topology changed": a
// failover or a slot move), checked every second. A failed beat is retried at the next.
func (i *Instances) Run(ctx context.Context, fault func(reason string)) {
	t := time.NewTicker(InstanceBeat)
	defer t.Stop()
	var topology string
	lastTopology := time.Time{}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		res, err := i.Beat(ctx)
		if err == nil && fault != nil {
			if res.Reset {
				fault("registry lost")
			}
			if len(res.Lapsed) > 0 {
				fault("instance dead")
			}
		}
		cc, ok := i.rdb.(*redis.ClusterClient)
		if !ok || fault == nil || time.Since(lastTopology) < time.Second {
			continue
		}
		lastTopology = time.Now()
		if now, ok := slotMasters(ctx, cc); ok {
			if topology != "" && now != topology {
				fault("topology changed")
			}
			topology = now
		}
	}
}

// slotMasters describes which master serves which slots ("0-5460=<node id>,...").
func slotMasters(ctx context.Context, cc *redis.ClusterClient) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, RedisTimeout)
	defer cancel()
	shards, err := cc.ClusterShards(ctx).Result()
	if err != nil {
		return "", false
	}
	parts := make([]string, 0, len(shards))
	for _, sh := range shards {
		master := ""
		for _, n := range sh.Nodes {
			if n.Role == "master" {
				master = n.ID
			}
		}
		if master == "" {
			continue
		}
		for _, r := range sh.Slots {
			parts = append(parts, fmt.Sprintf("%d-%d=%s", r.Start, r.End, master))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ","), true
}
