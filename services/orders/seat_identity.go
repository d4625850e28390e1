package orders

import (
	"context"
	"strings"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/catalog"
)

// HallMaps brings the seat maps of a hall's shows in line with its layout in MySQL
// (seats.Shows.RefreshHall).
type HallMaps interface {
	RefreshHall(ctx context.Context, hallID int64)
}

// checkSeatsAtCommit locks the order's seats inside tx (catalog.LockSeats) and refuses
// the commit when a hall edit changed one since the seats were chosen: a seat that left
// hall hallID, was deleted or blocked is SEAT_NOT_IN_SHOW, a seat now in another zone
// (another price) is PRICE_CHANGED; Seats names the labels. This is the check that
// keeps one physical seat one seat id in every live order (DESIGN.md, invariant 12).
// Errors: those two, or the database's.
func checkSeatsAtCommit(ctx context.Context, tx *sqlx.Tx, order *services.Order, hallID int64) error {
	ids := make([]int64, len(order.Seats))
	for i, s := range order.Seats {
		ids[i] = s.SeatID
	}
	now, err := catalog.LockSeats(ctx, tx, ids)
	if err != nil {
		return err
	}
	var gone, rezoned []string
	for _, s := range order.Seats {
		cur, ok := now[s.SeatID]
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
