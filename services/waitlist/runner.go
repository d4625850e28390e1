package waitlist

import (
	"context"
	"time"

	"seatflow/services"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// SweepEvery is how often every show with an open place is served, whatever events say:
// seat changes make serving prompt, the sweep makes it certain (a lost event, a
// release in another process before this one listened).
const SweepEvery = 5 * time.Second

// Kick asks the runner to serve showID soon (a full queue drops the request: the sweep
// serves it anyway).
func (l *Lists) Kick(showID int64) {
	l.listed.Store(showKey(showID), struct{}{})
	l.follow(showID)
	select {
	case l.kick <- showID:
	default:
	}
}

// SetFollow sets f to be called with each show that has an open place, at every sweep
// and kick (seats.SeatEvents.Follow: this process then hears the show's seat changes,
// wherever they are made); set it before Run.
func (l *Lists) SetFollow(f func(showID int64)) { l.followFn = f }

func (l *Lists) follow(showID int64) {
	if l.followFn != nil {
		l.followFn(showID)
	}
}

// SeatsChanged tells the lists of a published seat change (seats.SeatEvents.OnChange):
// a seat that became free, or a reloaded map, of a show with open places kicks it.
func (l *Lists) SeatsChanged(c seats.SeatChange) {
	if _, ok := l.listed.Load(showKey(c.ShowID)); !ok {
		return
	}
	freed := c.Reload
	for _, st := range c.Seats {
		freed = freed || st == services.StateFree
	}
	if freed {
		l.Kick(c.ShowID)
	}
}

// Run serves kicked shows as they come and every show with an open place every
// SweepEvery, until ctx ends.
func (l *Lists) Run(ctx context.Context) {
	tick := time.NewTicker(SweepEvery)
	defer tick.Stop()
	l.Sweep(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case id := <-l.kick:
			shows := map[int64]bool{id: true}
			for len(l.kick) > 0 {
				shows[<-l.kick] = true
			}
			for id := range shows {
				if _, err := l.Serve(ctx, id); err != nil && ctx.Err() == nil {
					l.log.Warn("waiting list not served; the sweep tries again", "show_id", id, "err", err)
				}
			}
		case <-tick.C:
			l.Sweep(ctx)
		}
	}
}

// Sweep serves every show that has an open place (waiting or offered). It returns how
// many offers it made.
func (l *Lists) Sweep(ctx context.Context) int {
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	ids, err := store.WaitlistOpenShows(qctx, l.db)
	cancel()
	if err != nil {
		// a fresh database before its migrations (seatflow migrate starts the app
		// too) has no table yet: nothing to sweep, nothing to warn about
		if ctx.Err() == nil && !store.IsNoTable(err) {
			l.log.Warn("waiting lists not swept", "err", err)
		}
		return 0
	}
	offers := 0
	for _, id := range ids {
		l.listed.Store(showKey(id), struct{}{})
		l.follow(id)
		n, err := l.Serve(ctx, id)
		if err != nil && ctx.Err() == nil {
			l.log.Warn("waiting list not served", "show_id", id, "err", err)
		}
		offers += n
	}
	return offers
}
