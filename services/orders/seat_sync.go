package orders

import (
	"context"
	"time"

	"seatflow/services"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// The seat-sync outbox: when the Redis step after an order's committed state change
// (sell after pay; release after cancel, expire or refund) fails, the order is written
// to seat_syncs and retried with back-off until its seats in Redis match its status.
// Reconciliation is the backstop when even that write fails.

// seatSyncBackoff is the wait before retry attempt n (1, 2, 4 ... seconds, at most 5 min).
func seatSyncBackoff(attempts int) time.Duration {
	if attempts > 8 {
		attempts = 8
	}
	d := time.Second << attempts
	return min(d, 5*time.Minute)
}

// QueueSeatSync records that order's seats must still be brought in line with its
// status in the seat cache; cause is the Redis error. When the record cannot be written
// either, it logs and counts it: reconciliation repairs the seats.
func (o *Orders) QueueSeatSync(order *services.Order, cause error) {
	ctx, cancel := context.WithTimeout(context.Background(), store.DBTimeout)
	defer cancel()
	now := o.clock.Now()
	msg := cause.Error()
	if len(msg) > 300 {
		msg = msg[:300]
	}
	if err := store.QueueSeatSync(ctx, o.db, order.ID, msg, now, now.Add(seatSyncBackoff(0))); err != nil {
		o.metrics.SeatSyncs.WithLabelValues("lost").Inc()
		o.log.Error("seat cache step failed and its retry could not be queued; reconciliation will repair it",
			"order_no", order.OrderNo, "cause", cause, "err", err)
		return
	}
	o.metrics.SeatSyncs.WithLabelValues("queued").Inc()
	o.log.Warn("seat cache step failed; queued for retry", "order_no", order.OrderNo, "err", cause)
}

// SyncSeats makes the order's seats in the seat cache match its status in MySQL: sold
// when paid (its refunded seats released), released (owner-checked, so never another
// order's hold) when it ended.
// A pending order's seats are left alone. Errors: UNAVAILABLE.
func (o *Orders) SyncSeats(ctx context.Context, order *services.Order) error {
	switch order.Status {
	case services.OrderPaid:
		kept, gone := splitRefunded(order)
		if len(gone) > 0 {
			// seats a refund gave back are free again (owner-checked: never another order's)
			if _, err := o.seats.Release(ctx, order.ShowID, order.OrderNo, gone, true); err != nil {
				return err
			}
		}
		if len(kept) == 0 {
			return nil
		}
		conflicts, err := o.seats.Sell(ctx, order.ShowID, order.OrderNo, order.UserID, kept)
		if err != nil {
			return err
		}
		if len(conflicts) > 0 {
			o.log.Error("paid seats held by another order in the seat cache; reconciliation will repair them",
				"order_no", order.OrderNo, "seats", conflicts)
		}
		// a refund (a show cancelled meanwhile) may have released the seats just before
		// the sell took them back: if the order is no longer paid, release them again
		// (owner-checked, so never another order's seats)
		now, err := o.orderByID(ctx, order.ID)
		if err != nil || now.Status == services.OrderPaid {
			return nil // the reconciler is the backstop when the re-read fails
		}
		_, err = o.seats.Release(ctx, order.ShowID, order.OrderNo, kept, true)
		return err
	case services.OrderCancelled, services.OrderExpired, services.OrderRefunded:
		_, err := o.seats.Release(ctx, order.ShowID, order.OrderNo, refsOf(order), order.Status == services.OrderRefunded)
		return err
	}
	return nil
}

// RetrySeatSyncs retries the due rows of the seat-sync outbox, at most limit of them,
// and returns how many it completed. A row that fails again waits longer (1 s doubling
// to 5 min). Safe to run in several processes at once: every step is owner-checked and
// idempotent. Errors: UNAVAILABLE when MySQL cannot be read.
func (o *Orders) RetrySeatSyncs(ctx context.Context, limit int) (int, error) {
	now := o.clock.Now()
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	due, err := store.DueSeatSyncs(qctx, o.db, now, limit)
	if err != nil {
		return 0, store.Unavailable("the database", err)
	}
	done := 0
	for _, d := range due {
		order, err := o.orderByID(ctx, d.OrderID)
		if err == nil {
			err = o.SyncSeats(ctx, order)
		}
		wctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
		if err == nil {
			done++
			o.metrics.SeatSyncs.WithLabelValues("done").Inc()
			err = store.DeleteSeatSync(wctx, o.db, d.OrderID, d.Attempts)
		} else {
			o.metrics.SeatSyncs.WithLabelValues("failed").Inc()
			msg := err.Error()
			if len(msg) > 300 {
				msg = msg[:300]
			}
			err = store.PostponeSeatSync(wctx, o.db, d.OrderID, msg, o.clock.Now().Add(seatSyncBackoff(d.Attempts+1)))
		}
		cancel()
		if err != nil {
			return done, store.Unavailable("the database", err)
		}
	}
	return done, nil
}

// splitRefunded returns the seat references of order's seats no refund gave back (kept)
// and of those a refund gave back (gone).
func splitRefunded(order *services.Order) (kept, gone []seats.SeatRef) {
	for i, r := range refsOf(order) {
		if order.Seats[i].Refunded {
			gone = append(gone, r)
		} else {
			kept = append(kept, r)
		}
	}
	return kept, gone
}
