package seats

import (
	"context"
	"slices"
	"sync"
	"time"

	"seatflow/services"
)

// bestSnapshotTTL is how long best-available may choose from a seat map read earlier.
// The choice is only a proposal: the hold script checks every seat atomically, so a
// stale map costs at most a retry, never a wrong sale.
const bestSnapshotTTL = 250 * time.Millisecond

// bestSnapshotFollowedTTL replaces bestSnapshotTTL for a snapshot that follows the
// show's published changes (its subscription confirmed since the read): every change
// after the read reaches it (Apply), and the seats chosen in this process are kept taken
// until their hold answers, so a read only guards against a change lost to a broken
// subscription (which a reload follows once it is back). A lost change costs at most a
// re-pick (the hold refuses the seat), so the guard is loose: a 20,000-seat map read
// costs Redis 1.6 ms, and a busy show's buyers would otherwise pay one every 2 s.
const bestSnapshotFollowedTTL = 10 * time.Second

// BestSnapshots keeps, per show, the seat values best-available chooses from, so a
// flash sale of best-available orders does not read the whole seat map from Redis for
// every order. Choices are made one at a time per show and the chosen seats are marked
// held at once, so concurrent buyers in this process are offered different blocks.
type BestSnapshots struct {
	mu    sync.Mutex
	shows map[int64]*bestSnapshot
	// shows whose subscription was confirmed (a reload arrived through it), also before
	// their snapshot was made: a snapshot of one follows the changes from its first read
	confirmed map[int64]bool
}

type bestSnapshot struct {
	mu     sync.Mutex
	hall   *services.Hall // the hall free was laid out for
	free   []bool         // parallel to hall.Seats: true where the seat was free
	bits   FreeBits       // free's index for plain requests (free_bits.go), kept in step
	readAt time.Time
	// followed: the show's subscription was confirmed (a reload arrived through it)
	// before readAt, so the changes since the read are in free
	followed bool
	// seats chosen whose hold has not answered yet (Done): a read of the map, which
	// cannot see them held yet, still counts them taken, so no other buyer is offered
	// them meanwhile
	inflight map[int64]int
}

// Of returns the best-available snapshot of a show, made empty on first use.
func (b *BestSnapshots) Of(showID int64) *bestSnapshot {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.shows == nil {
		b.shows = map[int64]*bestSnapshot{}
	}
	s, ok := b.shows[showID]
	if !ok {
		if len(b.shows) > 1000 {
			b.shows, b.confirmed = map[int64]*bestSnapshot{}, nil
		}
		s = &bestSnapshot{followed: b.confirmed[showID]}
		b.shows[showID] = s
	}
	return s
}

// Choose runs pick on which of hall's seats are free (read from Redis when older than
// bestSnapshotTTL, when fresh is set, or when the hall changed), with its index, and
// marks the seats it returns as held in the snapshot, and in flight until Done is
// called with them (after their hold answered, whatever it answered): a read meanwhile
// keeps them taken, unless fresh is set and pick finds nothing without them (then pick
// runs on the map as read, so a refusal is never decided on a hold that has not
// happened). Errors: those of read.
func (s *bestSnapshot) Choose(ctx context.Context, fresh bool, hall *services.Hall, read func(context.Context) (map[int64]string, error),
	pick func(free []bool, bits FreeBits) []int64) ([]int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var asRead []bool // the map as read, when a fresh read found seats in flight
	if fresh || s.staleLocked(hall) {
		states, err := read(ctx)
		if err != nil {
			return nil, err
		}
		s.hall, s.free, s.readAt = hall, FreeOf(hall, states), time.Now()
		if fresh && len(s.inflight) > 0 {
			asRead = slices.Clone(s.free)
		}
		for id := range s.inflight {
			if i, ok := hall.SeatIndex(id); ok {
				s.free[i] = false
			}
		}
		s.bits = NewFreeBits(hall, s.free)
	}
	ids := pick(s.free, s.bits)
	if ids == nil && asRead != nil {
		// a fresh read decides a refusal, and seats another buyer of this process chose
		// are not taken until their hold answers: that hold may be refused (a purchase
		// limit, a gap), so a refusal counting them would be wrong. Choose on the map as
		// it is: the hold script settles who gets a seat both were offered.
		ids = pick(asRead, NewFreeBits(hall, asRead))
	}
	s.markLocked(ids)
	if len(ids) > 0 && s.inflight == nil {
		s.inflight = map[int64]int{}
	}
	for _, id := range ids {
		s.inflight[id]++
	}
	return ids, nil
}

// Done ends the flight of seats Choose returned: their hold answered (held, refused or
// failed), so the map and the published changes tell their state from now on.
func (s *bestSnapshot) Done(ids []int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		if s.inflight[id] <= 1 {
			delete(s.inflight, id)
		} else {
			s.inflight[id]--
		}
	}
}

// Refresh writes seat values read from Redis (seat id -> value, as StatesOf returns
// them) into the snapshot: each seat free as it is now unless in flight. It is how a
// choice the hold script refused for what is beside it (a gap) is put right without a
// read of the whole map.
func (s *bestSnapshot) Refresh(hall *services.Hall, states map[int64]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.free == nil || s.hall != hall {
		return
	}
	for id, v := range states {
		if i, ok := hall.SeatIndex(id); ok {
			s.free[i] = v == SeatFree && s.inflight[id] == 0
			s.bits.Set(hall, int32(i), s.free[i])
		}
	}
}

// Stale reports whether the next Choose without fresh reads the map (the snapshot is
// missing, of another hall, or older than bestSnapshotTTL).
func (s *bestSnapshot) Stale(hall *services.Hall) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.staleLocked(hall)
}

func (s *bestSnapshot) staleLocked(hall *services.Hall) bool {
	ttl := bestSnapshotTTL
	if s.followed {
		ttl = bestSnapshotFollowedTTL
	}
	return s.free == nil || s.hall != hall || time.Since(s.readAt) > ttl
}

// Mark records seats as taken (another buyer won them) until the next read.
func (s *bestSnapshot) Mark(ids []int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.markLocked(ids)
}

func (s *bestSnapshot) markLocked(ids []int64) {
	if s.free == nil {
		return
	}
	for _, id := range ids {
		if i, ok := s.hall.SeatIndex(id); ok {
			s.free[i] = false
			s.bits.Set(s.hall, int32(i), false)
		}
	}
}

// Apply writes a published change into the show's snapshot, if it has one: seats in it
// become free or taken as they are now, and a reload drops the snapshot (the next
// choice reads the map) and marks the show followed (its subscription is confirmed:
// bestSnapshotFollowedTTL). Changes come from every process, a few milliseconds late, so
// best-available rarely offers a seat another buyer took meanwhile.
func (b *BestSnapshots) Apply(c SeatChange) {
	b.mu.Lock()
	s := b.shows[c.ShowID]
	if c.Reload && !b.confirmed[c.ShowID] {
		if b.confirmed == nil {
			b.confirmed = map[int64]bool{}
		}
		b.confirmed[c.ShowID] = true
	}
	b.mu.Unlock()
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.Reload {
		// the subscription was confirmed (or the map written whole): what is read from
		// now on is followed by every later change
		s.free, s.followed = nil, true
		return
	}
	if s.free == nil {
		return
	}
	for id, state := range c.Seats {
		if i, ok := s.hall.SeatIndex(id); ok {
			s.free[i] = state == services.StateFree && s.inflight[id] == 0
			s.bits.Set(s.hall, int32(i), s.free[i])
		}
	}
}
