package services

import (
	"context"
	"sync"
	"time"
)

// bestSnapshotTTL is how long best-available may choose from a seat map read earlier.
// The choice is only a proposal: the hold script checks every seat atomically, so a
// stale map costs at most a retry, never a wrong sale.
const bestSnapshotTTL = 250 * time.Millisecond

// bestSnapshots keeps, per show, the seat values best-available chooses from, so a
// flash sale of best-available orders does not read the whole seat map from Redis for
// every order. Choices are made one at a time per show and the chosen seats are marked
// held at once, so concurrent buyers in this process are offered different blocks.
type bestSnapshots struct {
	mu    sync.Mutex
	shows map[int64]*bestSnapshot
}

type bestSnapshot struct {
	mu     sync.Mutex
	states map[int64]string
	readAt time.Time
}

func (b *bestSnapshots) of(showID int64) *bestSnapshot {
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

// choose runs pick on the show's seat values (read from Redis when older than
// bestSnapshotTTL, or when fresh is set) and marks the seats it returns as held in the
// snapshot. Errors: those of read.
func (s *bestSnapshot) choose(ctx context.Context, fresh bool, read func(context.Context) (map[int64]string, error),
	pick func(states map[int64]string) []int64) ([]int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if fresh || s.states == nil || time.Since(s.readAt) > bestSnapshotTTL {
		states, err := read(ctx)
		if err != nil {
			return nil, err
		}
		s.states, s.readAt = states, time.Now()
	}
	ids := pick(s.states)
	s.markLocked(ids)
	return ids, nil
}

// mark records seats as taken (another buyer won them) until the next read.
func (s *bestSnapshot) mark(ids []int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.markLocked(ids)
}

func (s *bestSnapshot) markLocked(ids []int64) {
	if s.states == nil {
		return
	}
	for _, id := range ids {
		if _, ok := s.states[id]; ok {
			s.states[id] = "H|-|0"
		}
	}
}
