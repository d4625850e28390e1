package orders

import (
	"context"
	"errors"
	"strings"

	"seatflow/services"
	"seatflow/services/catalog"
)

// HallMaps brings the seat maps of a hall's shows in line with its layout in MySQL
// (seats.Listing.RefreshHall).
type HallMaps interface {
	RefreshHall(ctx context.Context, hallID int64)
}

// seatsChanged refuses an order whose seats a hall edit changed since they were chosen,
// judged on the seats as locked inside the commit's transaction (catalog.LockSeats): a
// seat that left hall hallID, was deleted or blocked is SEAT_NOT_IN_SHOW, a seat now in
// another zone (another price) is PRICE_CHANGED; Seats names the labels. This is the
// check that keeps one physical seat one seat id in every live order (DESIGN.md,
// invariant 12). nil when every seat is as it was.
func seatsChanged(order *services.Order, hallID int64, locked map[int64]catalog.LockedSeat) error {
	var gone, rezoned []string
	for _, s := range order.Seats {
		cur, ok := locked[s.SeatID]
		switch {
		case !ok || !cur.SellableIn(hallID):
			gone = append(gone, s.Label)
		case cur.ZoneCode != s.ZoneCode:
			rezoned = append(rezoned, s.Label)
		}
	}
	if len(gone) > 0 {
		return &services.Error{Code: services.CodeSeatNotInShow, Seats: gone,
			Message: "the hall changed while you were booking; no longer a sellable seat of this show: " + strings.Join(gone, ", ") + "; pick again from the seat map"}
	}
	if len(rezoned) > 0 {
		return &services.Error{Code: services.CodePriceChanged, Seats: rezoned,
			Message: "the hall changed while you were booking; these seats are now in another zone, at another price: " + strings.Join(rezoned, ", ") + "; look at the seat map again"}
	}
	return nil
}

// hallChanged brings the show's seat maps in line after a commit found its seats changed
// by a hall edit: the released holds may have put back seats the edit had removed. It
// runs in the background (the refresh may wait for the reconciliation lease); without
// HallMaps the next reconciliation run does it.
func (o *Orders) hallChanged(ctx context.Context, hallID int64) {
	if o.hallMaps == nil {
		return
	}
	go o.hallMaps.RefreshHall(context.WithoutCancel(ctx), hallID)
}

// seatsLeftHall answers SEAT_NOT_IN_SHOW when a seat of order is no longer a sellable
// seat of the show's hall as MySQL has it now: the hold found the seat missing from the
// map because a hall edit took it out after this request read the (cached) hall. nil
// when the seats are all still there (or the hall cannot be read): the caller keeps its
// error.
func (o *Orders) seatsLeftHall(ctx context.Context, show *services.Show, order *services.Order) error {
	if len(order.Seats) == 0 {
		return nil
	}
	o.catalog.ForgetHall(show.HallID)
	hall, err := o.catalog.Hall(ctx, show.HallID)
	if err != nil {
		return nil
	}
	ids := seatIDsOf(order)
	err = checkSeatsInShow(show, hall, ids)
	var se *services.Error
	if errors.As(err, &se) {
		se.Message = "the hall changed while you were booking; " + se.Message + "; pick again from the seat map"
		return se
	}
	return nil
}
