package orders

import (
	"context"
	"time"

	"seatflow/services"
)

// Offer asks for a waiting list's offer (API.md "Seat rules and the waiting list"): a
// pending order for UserID of the seats SeatIDs (a block best-available chose), under the
// order number OrderNo (services.NewOrderNo, written beside the waiting-list place
// first), holding them for HoldFor (the deadline is never after the sale closes).
// RoomEpoch is the epoch of the show's waiting room the place was joined in
// (services.Show.RoomEpoch then).
type Offer struct {
	UserID    int64
	ShowID    int64
	SeatIDs   []int64
	OrderNo   string
	HoldFor   time.Duration
	RoomEpoch int
}

// CreateOffer creates the pending order of a waiting list's offer through the order
// pipeline's own steps: show on sale, admission, seats of the show, companion rule, the
// Lua hold (purchase limit included), the MySQL transaction and the expiry task. It
// spends no rate-limit token: the place on the list is the buyer's request. While the
// show's waiting room is on, the place's admission is the one it was joined with: a
// place of an earlier epoch of the room (joined while it was off, or before it was
// last turned on) is refused NOT_ADMITTED. Errors: those of Create (NOT_ON_SALE,
// NOT_ADMITTED, SEAT_NOT_IN_SHOW, SEAT_TAKEN, LIMIT_EXCEEDED, SOLD_OUT, UNAVAILABLE,
// ...); every error leaves both stores as they were.
func (o *Orders) CreateOffer(ctx context.Context, in Offer) (*services.Order, error) {
	req := CreateOrderRequest{UserID: in.UserID, ShowID: in.ShowID, SeatIDs: in.SeatIDs, offerNo: in.OrderNo, offerFor: in.HoldFor}
	if err := req.validate(); err != nil {
		return nil, err
	}
	c, err := o.showOnSale(ctx, req)
	if err != nil {
		return nil, err
	}
	if c.show.WaitingRoom && in.RoomEpoch < c.show.RoomEpoch {
		return nil, &services.Error{Code: services.CodeNotAdmitted,
			Message: "this waiting-list place was joined before the show's waiting room was turned on"}
	}
	if err := o.inHall(ctx, c); err != nil {
		return nil, err
	}
	return o.place(ctx, c, &gate{counted: true}) // no key, no token, no precheck
}
