package waitingroom

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"seatflow/services"
	"seatflow/services/seats"
)

// ShowSource reads a show (the catalog's cache).
type ShowSource interface {
	CachedShow(ctx context.Context, id int64) (*services.Show, error)
}

// SeatStates reads a show's free seats per zone (absent when its map is not loaded) and
// its stored seat values (the seat store; seats.SeatValue decodes them).
type SeatStates interface {
	ZoneFree(ctx context.Context, showIDs []int64) (map[int64]map[string]int, error)
	States(ctx context.Context, showID int64) (map[int64]string, error)
}

// Ticker advances every active room once a TickEvery on each instance, so admission
// keeps its pace while nobody reads, and closes a room whose show sold out (nothing
// free, nothing held), whose sale closed or which was cancelled; a room whose seats or
// sale come back opens again. Instances tick the same rooms at once harmlessly: the
// pace's credit lives in Redis.
type Ticker struct {
	rooms   *Rooms
	seats   SeatStates
	metrics *services.Metrics
	log     *slog.Logger
	every   time.Duration
}

// TickEvery is how often each instance advances the active rooms.
const TickEvery = time.Second

// NewTicker returns the ticker of rooms; metrics may be nil.
func NewTicker(rooms *Rooms, seats SeatStates, metrics *services.Metrics, log *slog.Logger) *Ticker {
	return &Ticker{rooms: rooms, seats: seats, metrics: metrics, log: log, every: TickEvery}
}

// Run ticks until ctx ends.
func (t *Ticker) Run(ctx context.Context) {
	tick := time.NewTicker(t.every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if err := t.Tick(ctx); err != nil && ctx.Err() == nil {
				t.log.Warn("waiting rooms: tick failed", "err", err)
			}
		}
	}
}

// Tick advances or closes every active room once. Errors: the first room's that failed
// (the others are still ticked).
func (t *Ticker) Tick(ctx context.Context) error {
	ids, err := t.rooms.Active(ctx)
	if err != nil {
		return err
	}
	var first error
	for _, id := range ids {
		if err := t.tickOne(ctx, id); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (t *Ticker) tickOne(ctx context.Context, id int64) error {
	show, err := t.rooms.shows.CachedShow(ctx, id)
	if services.ErrorCode(err) == services.CodeNotFound {
		return t.rooms.Forget(ctx, id)
	}
	if err != nil {
		return err
	}
	label := strconv.FormatInt(id, 10)
	if !show.WaitingRoom {
		if t.metrics != nil {
			t.metrics.RoomWaiting.DeleteLabelValues(label)
		}
		return t.rooms.Forget(ctx, id)
	}
	reason, err := t.closedBecause(ctx, show)
	if err != nil {
		return err
	}
	if err := t.rooms.flushBeats(ctx, show); err != nil { // the reads' heartbeats before the front moves
		return err
	}
	waiting, err := t.rooms.Close(ctx, show, reason) // "" keeps it open; admits either way
	if err != nil {
		return err
	}
	if t.metrics != nil {
		t.metrics.RoomWaiting.WithLabelValues(label).Set(float64(waiting))
	}
	return nil
}

// closedBecause says why show's room is closed now (Closed*), or "" when it is open.
func (t *Ticker) closedBecause(ctx context.Context, show *services.Show) (string, error) {
	switch show.StatusAt(t.rooms.clock.Now()) {
	case services.ShowCancelled:
		return ClosedCancelled, nil
	case services.ShowClosed:
		return ClosedSale, nil
	case services.ShowOnSale:
	default:
		return "", nil
	}
	free, err := t.seats.ZoneFree(ctx, []int64{show.ID})
	if err != nil {
		return "", err
	}
	for _, n := range free[show.ID] {
		if n > 0 { // the common case, read from the zone counters: no walk of the seats
			return "", nil
		}
	}
	states, err := t.seats.States(ctx, show.ID) // none free: is any seat held (it may come back)?
	if err != nil {
		return "", err
	}
	for _, v := range states {
		if st, _, _ := seats.SeatValue(v); st == services.StateFree || st == services.StateHeld {
			return "", nil
		}
	}
	return ClosedSoldOut, nil
}
