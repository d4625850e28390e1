package orders

import (
	"context"
	"errors"
	"strings"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/store"
)

// HallMaps brings the seat maps of a hall's shows in line with its layout in MySQL
// (seats.Shows.RefreshHall).
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

// houseSeatRefusals answers SEAT_TAKEN for each order of ps of which staff keep a seat
// as a house seat of its show (one read for the batch). It runs after the orders' rows
// are inserted, as a plain read that takes no locks: a house block locks the seats' live
// order rows for update before it inserts its own (staff.ShowSeats.Block), so an order
// inserting after that waits for the block's commit and this read, the transaction's
// first snapshot, sees the block; a block that comes later finds the orders' rows. The
// seat cache alone cannot tell: after a Redis flush the map is rebuilt from MySQL and a
// hold and a block may both pass it. Errors: the database's.
func houseSeatRefusals(ctx context.Context, tx *sqlx.Tx, ps []*pendingCommit) (map[*pendingCommit]error, error) {
	rows, err := store.HouseSeatsAmong(ctx, tx, byShow(ps, func(p *pendingCommit) []int64 { return seatIDsOf(p.order) }))
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	house := map[int64][]int64{}
	for _, r := range rows {
		house[r.ShowID] = append(house[r.ShowID], r.SeatID)
	}
	out := map[*pendingCommit]error{}
	for _, p := range ps {
		if labels := labelsAmong(p.order, house[p.order.ShowID]); len(labels) > 0 {
			out[p] = &services.Error{Code: services.CodeSeatTaken, Seats: labels, Message: "already taken: " + strings.Join(labels, ", ")}
		}
	}
	return out, nil
}

// labelsAmong returns the labels of the order's seats whose ids are in ids, in the
// order's seat order.
func labelsAmong(order *services.Order, ids []int64) []string {
	in := make(map[int64]bool, len(ids))
	for _, id := range ids {
		in[id] = true
	}
	var out []string
	for _, s := range order.Seats {
		if in[s.SeatID] {
			out = append(out, s.Label)
		}
	}
	return out
}

// seatIDsOf returns the ids of the order's seats, in its seat order.
func seatIDsOf(order *services.Order) []int64 {
	ids := make([]int64, len(order.Seats))
	for i, s := range order.Seats {
		ids[i] = s.SeatID
	}
	return ids
}
