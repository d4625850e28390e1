package seats

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"seatflow/services"
	"seatflow/services/store"
)

// hallRefreshWait is how long a hall update waits for the reconciliation lease to bring
// the seat maps of its shows in line before it leaves that to the next run.
const hallRefreshWait = 5 * time.Second

// hallRefreshGrace is the grace of the comparison: holds of orders younger than this are
// never touched (the refresh only writes free and blocked seats anyway).
const hallRefreshGrace = 60 * time.Second

// RefreshHall brings the seat maps in Redis of the hall's shows that have not
// started in line with its layout in MySQL, through the reconciliation repair script
// under the reconciliation lease: a seat no longer in the hall loses its field, a new
// seat gets one (free or blocked), a seat now blocked or sellable changes, and the zone
// counts are recomputed. Only free, blocked and missing values are written: held and sold
// seats are left to reconciliation. Shows without a map load the new layout when first
// asked. When the lease stays busy or Redis fails, it logs and leaves the work to the
// next reconciliation run, which compares every loaded map with MySQL the same way.
func (s *Listing) RefreshHall(ctx context.Context, hallID int64) {
	ctx = context.WithoutCancel(ctx)
	if err := s.refreshHallNow(ctx, hallID); err != nil {
		slog.Warn("hall changed; its seat maps are left to reconciliation", "hall_id", hallID, "err", err)
	}
}

func (s *Listing) refreshHallNow(ctx context.Context, hallID int64) error {
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	ids, err := store.HallShowIDsAfter(qctx, s.db, hallID, s.clock.Now())
	cancel()
	if err != nil {
		return err
	}
	var loaded []int64
	for _, id := range ids {
		rctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
		n, err := s.seats.Redis().Exists(rctx, s.seats.Keys(id)[0]).Result()
		cancel()
		if err != nil {
			return err
		}
		if n == 1 {
			loaded = append(loaded, id)
		}
	}
	if len(loaded) == 0 {
		return nil
	}
	lease := store.NewLease(s.seats.Redis(), s.seats.Prefix(), "reconcile", 30*time.Second)
	var token int64
	for deadline := time.Now().Add(hallRefreshWait); token == 0; {
		if token, err = lease.TryAcquire(ctx); err != nil {
			return err
		}
		if token == 0 {
			if time.Now().After(deadline) {
				return errRefreshBusy
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	defer lease.Release(ctx, token)
	hall, err := s.catalog.Hall(ctx, hallID)
	if err != nil {
		return err
	}
	for _, id := range loaded {
		if err := s.refreshSeatMap(ctx, hall, id, token); err != nil {
			return err
		}
	}
	return nil
}

// refreshSeatMap repairs one show's map: the layout's part of CompareSeatCache's repairs.
func (s *Listing) refreshSeatMap(ctx context.Context, hall *services.Hall, showID, token int64) error {
	show, err := s.catalog.Show(ctx, showID)
	if err != nil {
		return err
	}
	snap, err := s.seats.SnapshotFromDB(ctx, show)
	if err != nil {
		return err
	}
	cache, err := s.seats.ReadCache(ctx, showID)
	if err != nil || cache.WrongType || cache.Seats == nil {
		return err // no map (or not one): the next load or run rebuilds it
	}
	_, repairs := CompareSeatCache(SeatComparison{ShowID: showID, Truth: snap, Cache: cache, ZoneOf: ZoneOf(hall),
		Now: s.clock.Now(), Grace: hallRefreshGrace})
	layoutOnly := repairs[:0]
	for _, r := range repairs {
		if layoutValue(r.From) && layoutValue(r.To) {
			layoutOnly = append(layoutOnly, r)
		}
	}
	_, err = s.seats.Repair(ctx, showID, token, layoutOnly, hall)
	return err
}

// layoutValue reports whether a seat value is one a layout decides: free, blocked or no
// field.
func layoutValue(v string) bool { return v == "" || v == SeatFree || v == seatBlocked }

// errRefreshBusy: the reconciliation lease stayed busy for hallRefreshWait.
var errRefreshBusy = errors.New("the reconciliation lease stayed busy; the next run refreshes the seat maps")
