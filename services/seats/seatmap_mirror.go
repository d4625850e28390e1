package seats

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"seatflow/services"
)

// MirrorReadEvery bounds how long a show's seat-state mirror is served from the
// published changes before the whole map is read again: a flushed or evicted seat
// cache publishes nothing.
const MirrorReadEvery = time.Second

// SeatMirrors keeps, per show, each seat's state (as SeatStates answers it) the way the
// last whole read of the map and the published changes since left it, so that reading
// the map after a change costs a ping instead of a read of every seat. A state is only
// answered after a Sync (SeatEvents.Sync) said every change published before it was
// applied: what it answers is the map as of that moment or later, never older.
type SeatMirrors struct {
	sync  func(ctx context.Context, showID int64) bool
	mu    sync.Mutex
	shows map[int64]*seatMirror
	// shows whose subscription was confirmed (a reload arrived through it): a mirror
	// is only kept from a read that started after that
	confirmed map[int64]bool

	fromMirror, wholeReads atomic.Uint64 // States's answers by where they came from
}

type seatMirror struct {
	mu     sync.Mutex
	hall   *services.Hall // the hall codes is laid out for
	codes  []byte         // stateCode of each seat in hall order; nil: none (never read, or dropped)
	readAt time.Time      // when the whole read it started from began
	gen    uint64         // moved by every reload: a read begun before is not kept
	// a whole read is under way: the changes meanwhile wait in pending, applied in
	// order once the read is in (a change it saw already is applied again harmlessly:
	// the last change of each seat wins, as in Redis)
	reading bool
	pending []SeatChange
}

// NewSeatMirrors returns mirrors that call sync (SeatEvents.Sync) before answering
// from the published changes.
func NewSeatMirrors(sync func(ctx context.Context, showID int64) bool) *SeatMirrors {
	return &SeatMirrors{sync: sync, shows: map[int64]*seatMirror{}, confirmed: map[int64]bool{}}
}

func (m *SeatMirrors) of(showID int64) (*seatMirror, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.shows[showID]
	if !ok {
		if len(m.shows) > 10000 {
			m.shows = map[int64]*seatMirror{}
		}
		s = &seatMirror{}
		m.shows[showID] = s
	}
	return s, m.confirmed[showID]
}

// Apply writes a published change into the show's mirror (SeatEvents.OnChange, in the
// order they were published): each seat's new state; a reload drops the mirror (the next
// answer reads the whole map) and marks the show's subscription confirmed.
func (m *SeatMirrors) Apply(c SeatChange) {
	m.mu.Lock()
	if c.Reload {
		m.confirmed[c.ShowID] = true
	}
	s := m.shows[c.ShowID]
	m.mu.Unlock()
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.Reload {
		s.codes, s.pending, s.gen = nil, nil, s.gen+1
		return
	}
	if s.reading {
		s.pending = append(s.pending, c)
	}
	s.applyLocked(c)
}

func (s *seatMirror) applyLocked(c SeatChange) {
	if s.codes == nil {
		return
	}
	for id, state := range c.Seats {
		if i, ok := s.hall.SeatIndex(id); ok && s.hall.Seats[i].Sellable() {
			s.codes[i] = stateCode(state)
		}
	}
}

// States answers the show's seat states in hall's seat order: from the mirror when it
// is of this hall, its whole read began less than MirrorReadEvery ago and a Sync
// succeeds; else from read (the whole seat hash, SeatStore.rawStates), which the mirror
// then keeps when the show's subscription was confirmed before the read began and the
// read had every seat of hall (complete; a mirror's answer always is). Errors: read's.
func (m *SeatMirrors) States(ctx context.Context, showID int64, hall *services.Hall, read func(context.Context) (map[string]string, error)) (states []string, complete bool, err error) {
	s, confirmed := m.of(showID)
	s.mu.Lock()
	fresh := s.codes != nil && s.hall == hall && time.Since(s.readAt) < MirrorReadEvery && !s.reading
	gen := s.gen
	s.mu.Unlock()
	if fresh && m.sync(ctx, showID) {
		if states := s.answer(hall, gen); states != nil {
			m.fromMirror.Add(1)
			return states, true, nil
		}
	}
	m.wholeReads.Add(1)
	return m.readWhole(ctx, s, confirmed, hall, read)
}

// answer is the mirror's states when it is still of hall and of read generation gen
// (no reload since); nil otherwise (the caller then reads the whole map, locking s
// again: s is unlocked on return either way).
func (s *seatMirror) answer(hall *services.Hall, gen uint64) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.codes == nil || s.hall != hall || s.gen != gen {
		return nil
	}
	states := make([]string, len(s.codes))
	for i, c := range s.codes {
		states[i] = codeStates[c]
	}
	return states
}

// Answers returns how many States answers came from a mirror and how many from a
// read of the whole map, since NewSeatMirrors.
func (m *SeatMirrors) Answers() (fromMirror, wholeReads uint64) {
	return m.fromMirror.Load(), m.wholeReads.Load()
}

// readWhole reads the whole map for States and keeps it in s when it can follow it.
func (m *SeatMirrors) readWhole(ctx context.Context, s *seatMirror, confirmed bool, hall *services.Hall, read func(context.Context) (map[string]string, error)) ([]string, bool, error) {
	s.mu.Lock()
	keep := confirmed && !s.reading
	gen, at := s.gen, time.Now()
	if keep {
		s.reading, s.pending = true, nil
	}
	s.mu.Unlock()
	raw, err := read(ctx)
	var states []string
	complete := false
	if err == nil {
		states, complete = statesInHallOrder(hall, raw)
	}
	if keep {
		s.mu.Lock()
		if complete && s.gen == gen {
			s.hall, s.readAt = hall, at
			s.codes = make([]byte, len(states))
			for i, st := range states {
				s.codes[i] = stateCode(st)
			}
			for _, c := range s.pending {
				s.applyLocked(c)
			}
		} else {
			s.codes = nil
		}
		s.reading, s.pending = false, nil
		s.mu.Unlock()
	}
	if err != nil {
		return nil, false, err
	}
	return states, complete, nil
}

// A mirror keeps a seat's state in a byte (a 20,000-seat hall in 20 KB): its index in
// codeStates.
var codeStates = [...]string{services.StateHeld, services.StateFree, services.StateSold, services.StateBlocked}

// stateCode is state's index in codeStates; held for any other (never offered as free).
func stateCode(state string) byte {
	for i, st := range codeStates {
		if st == state {
			return byte(i)
		}
	}
	return 0
}
