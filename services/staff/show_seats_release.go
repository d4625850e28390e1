package staff

import (
	"context"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/mail"
	"seatflow/services/orders"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// Release actions: what Release did to free a seat.
const (
	ReleaseOrderCancelled = "order_cancelled" // the pending order holding the seat was cancelled (all its seats freed)
	ReleaseHoldReleased   = "hold_released"   // a stuck hold (no live order in MySQL) was freed in the seat cache
)

// SeatRelease is what Release did: Action (Release*), the order it was about and the
// labels of the seats it freed.
type SeatRelease struct {
	Action  string
	OrderNo string
	Seats   []string
}

// SeatReleaseAudit is how a released stuck hold appears in the audit log.
type SeatReleaseAudit struct {
	ShowID  string `json:"show_id"`
	SeatID  string `json:"seat_id"`
	Label   string `json:"label"`
	State   string `json:"state"`
	OrderNo string `json:"order_no,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// Release frees seat seatID of show showID that order orderNo holds (the owner staff
// saw on the seat map) for staff member actorID, with a reason (required, at most
// MaxReasonLen characters, CheckReason). When orderNo is a pending order that has the seat in MySQL,
// the order is cancelled (every seat of it is freed; audited as order.cancel). When no
// live order has the seat in MySQL (a stuck hold), the seat cache's hold is released by
// a compare-and-set on orderNo (lua/release.lua), so a seat another order holds now is
// never freed; audited as seat.release with the seat before and after.
// Errors: INVALID_REQUEST (no reason, one CheckReason refuses, no order number), NOT_FOUND
// (show, or a seat not of its hall), ORDER_STATE (the seat is sold to a paid order:
// refund it instead; or the order ended meanwhile), CONFLICT (the seat is not held by
// orderNo now; its order may still be being created; MySQL has the seat in another
// live order), UNAVAILABLE.
func (s *ShowSeats) Release(ctx context.Context, actorID, showID, seatID int64, orderNo, reason string) (*SeatRelease, error) {
	reason, orderNo = strings.TrimSpace(reason), strings.TrimSpace(orderNo)
	switch {
	case reason == "":
		return nil, services.Errorf(services.CodeInvalidRequest, "give a reason for releasing the seat")
	case orderNo == "" || len(orderNo) > 32:
		return nil, services.Errorf(services.CodeInvalidRequest, "order_no must name the order holding the seat")
	}
	if err := CheckReason(reason); err != nil {
		return nil, err
	}
	show, err := s.catalog.Show(ctx, showID)
	if err != nil {
		return nil, err
	}
	hall, err := s.catalog.Hall(ctx, show.HallID)
	if err != nil {
		return nil, err
	}
	seat, ok := hall.Seat(seatID)
	if !ok {
		return nil, services.Errorf(services.CodeNotFound, "seat %d is not a seat of this show's hall", seatID)
	}
	raw, err := s.seats.States(ctx, showID)
	if err != nil {
		return nil, err
	}
	state, owner, _ := seats.SeatValue(raw[seatID])
	if owner != orderNo {
		return nil, services.Errorf(services.CodeConflict, "seat %s is not held by order %s (it is %s now); nothing was released",
			seat.Label, orderNo, seats.OrMissing(describeStaff(state, owner)))
	}
	order, err := s.orders.ByNo(ctx, orderNo)
	if err != nil && services.ErrorCode(err) != services.CodeNotFound {
		return nil, err
	}
	if order != nil && order.ShowID == showID && order.Live() && orderHasSeat(order, seatID) {
		if order.Status == services.OrderPaid {
			return nil, services.Errorf(services.CodeOrderState, "seat %s is sold to paid order %s: refund the order to free it", seat.Label, orderNo)
		}
		return s.cancelHolding(ctx, actorID, order, seat, reason)
	}
	if order == nil && seats.InFlight(orderNo, s.clock.Now(), s.grace) {
		return nil, services.Errorf(services.CodeConflict, "order %s was made moments ago and may still be being saved; try again in a minute", orderNo)
	}
	if other, err := s.liveOrderOf(ctx, showID, seatID); err != nil {
		return nil, err
	} else if other != "" {
		return nil, services.Errorf(services.CodeConflict, "the database records seat %s in live order %s; reconciliation sets the seat cache right, nothing was released", seat.Label, other)
	}
	return s.releaseStuck(ctx, actorID, show, seat, state, orderNo, reason)
}

// cancelHolding cancels the pending order that holds the seat; its audit entry
// (order.cancel) and the buyer's e-mail commit with the cancel. An order that moved off
// the seat meanwhile (Orders.Exchange; the exchange holds the order's row until it
// commits) is not cancelled: CONFLICT, nothing written.
func (s *ShowSeats) cancelHolding(ctx context.Context, actorID int64, order *services.Order, seat *services.Seat, reason string) (*SeatRelease, error) {
	now := s.clock.Now()
	before := auditOrder(order)
	after := before
	after.Status, after.CancelledAt, after.CancelReason = services.OrderCancelled, &now, &reason
	stillHolds := func(ctx context.Context, tx *sqlx.Tx) error {
		moved, err := store.OrderSeatExchanged(ctx, tx, order.ID, seat.ID)
		if err != nil {
			return err
		}
		if moved {
			return services.Errorf(services.CodeConflict, "order %s moved off seat %s meanwhile; nothing was cancelled", order.OrderNo, seat.Label)
		}
		return nil
	}
	won, err := s.orders.End(ctx, order, orders.Change{To: services.OrderCancelled, Reason: reason, At: now, Then: stillHolds,
		Mail:  &mail.Message{Kind: mail.OrderCancelled, Data: map[string]string{mail.DataReason: mail.ReasonStaff, mail.DataNote: reason}},
		Audit: &orders.ChangeAudit{Log: s.audit, Actor: actorID, Action: "order.cancel", Before: before, After: after}})
	if err != nil {
		return nil, err
	}
	if !won {
		fresh, err := s.orders.ByNo(ctx, order.OrderNo)
		if err != nil {
			return nil, err
		}
		return nil, services.Errorf(services.CodeOrderState, "order %s is %s now; nothing was cancelled", order.OrderNo, fresh.Status)
	}
	s.orders.Metrics().OrdersCancelled.Inc()
	return &SeatRelease{Action: ReleaseOrderCancelled, OrderNo: order.OrderNo, Seats: orders.Labels(order.Seats)}, nil
}

// releaseStuck frees a hold without a live order: the audit entry is written in a
// transaction that commits only when the owner-checked release freed the seat. A
// deadlock victim runs again (store.InTx), without releasing a second time.
func (s *ShowSeats) releaseStuck(ctx context.Context, actorID int64, show *services.Show, seat *services.Seat, state, orderNo, reason string) (*SeatRelease, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), store.DBTimeout)
	defer cancel()
	sid, seatID := strconv.FormatInt(show.ID, 10), strconv.FormatInt(seat.ID, 10)
	released := false
	err := store.InTx(ctx, s.db, func(tx *sqlx.Tx) error {
		if err := s.audit.Record(ctx, tx, actorID, "seat.release", "show_seat", sid+":"+seatID,
			SeatReleaseAudit{ShowID: sid, SeatID: seatID, Label: seat.Label, State: state, OrderNo: orderNo},
			SeatReleaseAudit{ShowID: sid, SeatID: seatID, Label: seat.Label, State: services.StateFree, Reason: reason}); err != nil {
			return err
		}
		if released { // an attempt before this one freed the seat; its commit failed
			return nil
		}
		n, err := s.seats.Release(ctx, show.ID, orderNo, []seats.SeatRef{{ID: seat.ID, Zone: seat.ZoneCode}}, true)
		if err != nil {
			return err
		}
		if n == 0 {
			return services.Errorf(services.CodeConflict, "seat %s is no longer held by order %s; nothing was released", seat.Label, orderNo)
		}
		released = true
		return nil
	})
	switch {
	case err == nil:
		return &SeatRelease{Action: ReleaseHoldReleased, OrderNo: orderNo, Seats: []string{seat.Label}}, nil
	case released:
		s.orders.Log().Error("stuck hold released but its audit entry was not written", "show_id", show.ID,
			"seat_id", seat.ID, "order_no", orderNo, "err", err)
		return nil, store.Unavailable("the database", err)
	case services.ErrorCode(err) != "":
		return nil, err
	}
	return nil, store.Unavailable("the database", err)
}

// liveOrderOf returns the order number of the live order MySQL records for the seat, or "".
func (s *ShowSeats) liveOrderOf(ctx context.Context, showID, seatID int64) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	nos, err := store.LiveOrderNosOfSeat(ctx, s.db, showID, seatID)
	if err != nil {
		return "", store.Unavailable("the database", err)
	}
	if len(nos) == 0 {
		return "", nil
	}
	return nos[0], nil
}

func orderHasSeat(o *services.Order, seatID int64) bool {
	for _, s := range o.Seats {
		if s.SeatID == seatID {
			return true
		}
	}
	return false
}
