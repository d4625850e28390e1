package seats

import (
	"context"
	"sync"
	"time"

	"seatflow/services"
)

// bestSnapshotTTL is how long best-available may choose from a seat map read earlier.
// The choice is only a proposal: the hold script checks every seat atomically, so a
// stale map costs at most a retry, never a wrong sale.
const bestSnapshotTTL = 250 * time.Millisecond

// BestSnapshots keeps, per show, the seat values best-available chooses from, so a
// flash sale of best-available orders does not read the whole seat map from Redis for
// every order. Choices are made one at a time per show and the chosen seats are marked
// held at once, so concurrent buyers in this process are offered different blocks.
type BestSnapshots struct {
	mu    sync.Mutex
	shows map[int64]*bestSnapshot
}

type bestSnapshot struct {
	mu     sync.Mutex
	hall   *services.Hall // the hall free was laid out for
	free   []bool         // parallel to hall.Seats: true where the seat was free
	bits   FreeBits       // free's index for plain requests (free_bits.go), kept in step
	readAt time.Time
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
			b.shows = map[int64]*bestSnapshot{}
		}
		s = &bestSnapshot{}
		b.shows[showID] = s
	}
	return s
}

// Choose runs pick on which of hall's seats are free (read from Redis when older than
// bestSnapshotTTL, when fresh is set, or when the hall changed), with its index, and
// marks the seats it returns as held in the snapshot. Errors: those of read.
func (s *bestSnapshot) Choose(ctx context.Context, fresh bool, hall *services.Hall, read func(context.Context) (map[int64]string, error),
	pick func(free []bool, bits FreeBits) []int64) ([]int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if fresh || s.free == nil || s.hall != hall || time.Since(s.readAt) > bestSnapshotTTL {
		states, err := read(ctx)
		if err != nil {
			return nil, err
		}
		s.hall, s.free, s.readAt = hall, FreeOf(hall, states), time.Now()
		s.bits = NewFreeBits(hall, s.free)
	}
	ids := pick(s.free, s.bits)
	s.markLocked(ids)
	return ids, nil
}

// Stale reports whether the next Choose without fresh reads the map (the snapshot is
// missing, of another hall, or older than bestSnapshotTTL).
func (s *bestSnapshot) Stale(hall *services.Hall) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.free == nil || s.hall != hall || time.Since(s.readAt) > bestSnapshotTTL
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
// choice reads the map). Changes come from every process, a few milliseconds late, so
// best-available rarely offers a seat another buyer took meanwhile.
func (b *BestSnapshots) Apply(c SeatChange) {
	b.mu.Lock()
	s := b.shows[c.ShowID]
	b.mu.Unlock()
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.free == nil {
		return
	}
	if c.Reload {
		s.free = nil
		return
	}
	for id, state := range c.Seats {
		if i, ok := s.hall.SeatIndex(id); ok {
			s.free[i] = state == services.StateFree
			s.bits.Set(s.hall, int32(i), s.free[i])
		}
	}
}
