package waitlist

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"seatflow/services"
	"seatflow/services/orders"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// serveLockWait is how long Serve waits for another instance serving the same show.
const serveLockWait = 10 * time.Second

// Serve serves showID's waiting list once: under a MySQL named lock (one server per
// show across instances; a crashed holder's lock ends with its connection) it ends
// places whose offer's order ended, returns to waiting the places whose offer never
// committed (the holder died), closes every place of a show no longer on sale, and then
// walks the waiting places in order: the first whose quantity fits (best-available finds
// a block, any block, stranding nothing if it can) gets an offer (orders.CreateOffer),
// and so on while seats are left. A place that does not fit is passed, never removed. A
// block another buyer took meanwhile is chosen again on a fresh read. While the show's
// waiting room is on, a place of an earlier epoch of the room (joined while it was off,
// or before it was last turned on: no admission) gets no offer and keeps no seats back
// from the public (it waits, with its rank, until the room is off). It returns how many
// offers it made. Errors: UNAVAILABLE.
func (l *Lists) Serve(ctx context.Context, showID int64) (int, error) {
	conn, err := l.db.Connx(ctx)
	if err != nil {
		return 0, store.Unavailable("the database", err)
	}
	defer conn.Close()
	lock := fmt.Sprintf("seatflow.waitlist.%d", showID)
	got, err := store.GetNamedLock(ctx, conn, lock, serveLockWait)
	if err != nil {
		return 0, store.Unavailable("the database", err)
	}
	if !got {
		return 0, store.Unavailable("the waiting list", fmt.Errorf("show %d is being served elsewhere", showID))
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.Background(), store.DBTimeout)
		defer cancel()
		store.ReleaseNamedLock(rctx, conn, lock)
	}()
	show, err := l.catalog.Show(ctx, showID)
	if err != nil {
		return 0, err
	}
	now := l.clock.Now()
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	if err := store.EndSettledWaitlistOffers(qctx, l.db, showID, now.UTC()); err != nil {
		return 0, store.Unavailable("the database", err)
	}
	// an offer is created under this lock: one without an order died with its server
	if err := store.ReturnOrderlessWaitlistOffers(qctx, l.db, showID, now.UTC()); err != nil {
		return 0, store.Unavailable("the database", err)
	}
	if !show.OnSaleAt(now) {
		if err := l.setGate(ctx, showID, nil); err != nil {
			return 0, err
		}
		if !ended(show, now) {
			return 0, nil // a sale closed for now (it may open again): the places keep waiting
		}
		if err := store.CloseWaitingWaitlistEntries(qctx, l.db, showID, now.UTC()); err != nil {
			return 0, store.Unavailable("the database", err)
		}
		return 0, nil
	}
	waiting, err := store.WaitingWaitlistEntries(qctx, l.db, showID)
	if err != nil {
		return 0, store.Unavailable("the database", err)
	}
	if len(waiting) == 0 {
		return 0, l.setGate(ctx, showID, nil)
	}
	hall, err := l.catalog.Hall(ctx, show.HallID)
	if err != nil {
		return 0, err
	}
	read := func() ([]bool, error) {
		states, err := l.seats.States(ctx, showID)
		if err != nil {
			return nil, err
		}
		return seats.FreeOf(hall, states), nil
	}
	free, err := read()
	if err != nil {
		return 0, err
	}
	fb := seats.NewFreeBits(hall, free)
	offers := 0
	var passed []*Entry // still waiting after this serve, in order
	defer func() {
		if err := l.setGate(ctx, showID, gateOf(show, hall, free, passed)); err != nil {
			l.log.Warn("waiting list gate not written; the next serve writes it", "show_id", showID, "err", err)
		}
	}()
	for _, e := range waiting {
		if !admitted(show, e) {
			continue
		}
		waits := true
		for attempt := 0; ; attempt++ {
			_, ids := pickFor(show, hall, free, fb, e.Zone, e.Quantity)
			if ids == nil {
				break // does not fit: the next place may
			}
			if attempt == 3 {
				// buyers keep taking the blocks this place fits: serve again soon
				// rather than pass it for a later place
				l.Kick(showID)
				return offers, nil
			}
			o, err := l.offer(ctx, e, ids)
			if err == nil {
				offers++
				for _, i := range seats.Indexes(hall, ids) {
					free[i] = false
					fb.Set(hall, i, false)
				}
				e.Status, e.OrderNo = StatusOffered, o.OrderNo
				l.offerOK(e, o)
				waits = false
				break
			}
			switch services.ErrorCode(err) {
			case services.CodeSeatTaken, services.CodeSoldOut, services.CodeSingleSeatGap:
				if free, err = read(); err != nil { // another buyer was quicker: look again
					return offers, err
				}
				fb = seats.NewFreeBits(hall, free)
				continue
			case services.CodeLimitExceeded, services.CodeOrderState, services.CodeNotAdmitted:
				// the buyer holds or owns too many seats now, or left, or the room was
				// turned on since this read: pass the place (and keep no seats for it)
				waits = false
			case services.CodeNotOnSale:
				return offers, nil // the next serve closes the list
			default:
				return offers, err
			}
			break
		}
		if waits {
			passed = append(passed, e)
		}
	}
	return offers, nil
}

// gateOf is the gate the places still waiting need (zone code -> the zone's free count
// from which the public may no longer hold its seats). The serve just offered every
// place that fits, so the seats free now fit none of those left: they stay on sale, and
// the gate keeps for the list only seats that come back after it. A zone's gate is one
// more than its free seats now, and at least the fewest seats a place wanting that zone
// (or any) asks for plus the zone's free seats that are not standard (wheelchair spaces
// and companion seats, which offers never take). The next seat that comes back closes
// the zone until the next serve (a few milliseconds later, on its event) decides.
func gateOf(show *services.Show, hall *services.Hall, free []bool, waiting []*Entry) map[string]int {
	gate := map[string]int{}
	for _, z := range show.Zones {
		least := 0
		for _, e := range waiting {
			if (e.Zone == "" || e.Zone == z.Code) && (least == 0 || e.Quantity < least) {
				least = e.Quantity
			}
		}
		if least == 0 {
			continue
		}
		freeNow := 0
		for i, s := range hall.Seats {
			if free[i] && s.ZoneCode == z.Code {
				freeNow++
				if s.Kind != services.KindStandard {
					least++
				}
			}
		}
		gate[z.Code] = max(least, freeNow+1)
	}
	return gate
}

// admitted reports whether place e may get an offer of show as its waiting room stands:
// the room is off, or the place was joined in the room's current epoch.
func admitted(show *services.Show, e *Entry) bool {
	return !show.WaitingRoom || e.RoomEpoch >= show.RoomEpoch
}

// ended reports whether show's places end: it was cancelled or has started.
func ended(show *services.Show, now time.Time) bool {
	return show.Stored() == services.ShowCancelled || !now.Before(show.StartsAt)
}

// gateTTL bounds a gate nobody rewrites (every server of the show gone): it ends, and
// the seats are on sale again.
const gateTTL = time.Minute

// setGate replaces the show's gate (seats.SeatStore.WaitlistGateKey) in one MULTI; an
// empty gate deletes it. Errors: UNAVAILABLE.
func (l *Lists) setGate(ctx context.Context, showID int64, gate map[string]int) error {
	key := l.seats.WaitlistGateKey(showID)
	rctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
	defer cancel()
	_, err := l.seats.Redis().TxPipelined(rctx, func(p redis.Pipeliner) error {
		p.Del(rctx, key)
		if len(gate) > 0 {
			args := make([]any, 0, 2*len(gate))
			for z, n := range gate {
				args = append(args, z, n)
			}
			p.HSet(rctx, key, args...)
			p.Expire(rctx, key, gateTTL)
		}
		return nil
	})
	if err != nil {
		return store.Unavailable("the seat cache", err)
	}
	return nil
}

// offer writes the offer's order number on the place, then creates the order; a failed
// create takes the number back (the place waits on, with its rank). Errors: those of
// orders.CreateOffer, ORDER_STATE when the place is no longer waiting.
func (l *Lists) offer(ctx context.Context, e *Entry, ids []int64) (*services.Order, error) {
	now := l.clock.Now()
	no := services.NewOrderNo(now)
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	n, err := store.OfferWaitlistEntry(qctx, l.db, e.ID, no, now.UTC())
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	if n == 0 {
		return nil, services.Errorf(services.CodeOrderState, "place %d is no longer waiting", e.ID)
	}
	o, err := l.orders.CreateOffer(ctx, orders.Offer{UserID: e.UserID, ShowID: e.ShowID, SeatIDs: ids, OrderNo: no, HoldFor: OfferFor, RoomEpoch: e.RoomEpoch})
	if err == nil {
		// the buyer may have left while the order was made: Leave cancels an offer it
		// finds, and this cancels one it could not find yet
		if status, qerr := store.WaitlistEntryStatus(ctx, l.db, e.ID); qerr == nil && status != "offered" {
			if _, cerr := l.orders.Cancel(ctx, e.UserID, o.OrderNo); cerr != nil {
				l.log.Warn("waiting list: an offer to a place just left was not cancelled; it expires", "order_no", o.OrderNo, "err", cerr)
			}
			return nil, services.Errorf(services.CodeOrderState, "place %d was left while its offer was made", e.ID)
		}
	}
	if err != nil {
		bctx, cancel := context.WithTimeout(context.Background(), store.DBTimeout)
		defer cancel()
		if uerr := store.WithdrawWaitlistOffer(bctx, l.db, e.ID, no); uerr != nil {
			l.log.Warn("waiting list: an offer that failed keeps its number until the next serve", "entry", e.ID, "err", uerr)
		}
		return nil, err
	}
	l.log.Info("waiting list offer", "show_id", e.ShowID, "entry", e.ID, "order_no", o.OrderNo, "seats", len(ids))
	return o, nil
}

// pickFor chooses the block a place of quantity seats of zone ("" any: the show's zones
// in their order) would be offered, as best-available does (plain seats, stranding
// nothing when it can). It returns the zone and the seat ids, or nil when none fits.
func pickFor(show *services.Show, hall *services.Hall, free []bool, fb seats.FreeBits, zone string, quantity int) (string, []int64) {
	for _, z := range show.Zones {
		if zone != "" && z.Code != zone {
			continue
		}
		if p := seats.ChoosePlain(hall, free, fb, z.Code, quantity, false); p.IDs != nil {
			return z.Code, p.IDs
		}
	}
	return "", nil
}

// showKey is the id as the runner's set keeps it.
func showKey(id int64) string { return strconv.FormatInt(id, 10) }
