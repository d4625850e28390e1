package orders

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"seatflow/services"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// hold builds the pending order of c (its number, its deadline: HoldFor from now, never
// after the sale closes) and holds its seats in the seat cache: the chosen seats, or a
// block best available picks, in one call of lua/order.lua under g (precheck.go) that
// also applies the purchase limit and the single-seat rule. A refusal found in Go
// before the hold (over the purchase limit, PRICE_CHANGED, no block to pick) is
// answered after the script's steps before the hold (refuseAfterLimits). On failure
// nothing stays held: a reply lost in an UNAVAILABLE is undone (owner-checked), and a
// seat a hall edit took out of the map is told as SEAT_NOT_IN_SHOW (seatsLeftHall).
// Errors: a *gateStop, RATE_LIMITED, SEAT_TAKEN, SOLD_OUT, NO_ADJACENT_SEATS,
// SINGLE_SEAT_GAP, LIMIT_EXCEEDED, PRICE_CHANGED, SEAT_NOT_IN_SHOW, UNAVAILABLE.
func (o *Orders) hold(ctx context.Context, c *creation, g *gate) (*services.Order, error) {
	show, req := c.show, c.req
	holdFor, orderNo := o.holdFor, req.offerNo
	if req.offerFor > 0 {
		holdFor = req.offerFor
	}
	if orderNo == "" {
		orderNo = services.NewOrderNo(c.now)
	}
	salesEnd := show.SaleClosesAt
	if req.counter != nil { // paid at once; the counter sells until the start
		holdFor, salesEnd = CounterHoldFor, show.StartsAt
	}
	deadline := c.now.Add(holdFor).Truncate(time.Second)
	if deadline.After(salesEnd) {
		deadline = salesEnd // nobody pays for a show whose sale has closed
	}
	order := &services.Order{OrderNo: orderNo, UserID: req.UserID, ShowID: show.ID, Status: services.OrderPending,
		Currency: show.Currency, CreatedAt: c.now, ExpiresAt: deadline, Channel: services.ChannelOnline}
	if req.counter != nil {
		order.Channel, order.SoldBy = services.ChannelBoxOffice, &req.counter.StaffID
	}
	var err error
	switch {
	case c.voucherErr != nil:
		return nil, o.refuseAfterLimits(ctx, c, g, order, c.voucherErr, "l", "")
	case c.withinPurchaseLimit() != nil:
		return nil, o.refuseAfterLimits(ctx, c, g, order, c.withinPurchaseLimit(), "o", "")
	case len(req.SeatIDs) > 0:
		err = o.holdChosen(ctx, c, g, order)
	default:
		err = o.holdBestAvailable(ctx, c, g, order)
	}
	if err != nil {
		if services.ErrorCode(err) == services.CodeUnavailable && len(order.Seats) > 0 {
			// the script may have run though its reply was lost: undo (owner-checked)
			o.releaseAfterFailure(order)
		}
		if seats.IsNotLoaded(err) {
			if gone := o.seatsLeftHall(ctx, show, order); gone != nil {
				return nil, gone
			}
		}
		return nil, err
	}
	if req.counter != nil {
		if err := req.counter.covers(order); err != nil {
			o.releaseAfterFailure(order)
			return nil, err
		}
	}
	if o.failHook != nil {
		if err := o.failHook("held"); err != nil {
			o.releaseAfterFailure(order)
			return nil, store.Unavailable("the database", err)
		}
	}
	return order, nil
}

// holdChosen holds the seats the buyer chose, all or none, in one Lua call, which also
// applies the show's single-seat rule to the seat values it holds over (seats/strand.go).
func (o *Orders) holdChosen(ctx context.Context, c *creation, g *gate, order *services.Order) error {
	show, hall, req := c.show, c.hall, c.req
	if err := price(show, hall, order, req.SeatIDs, typesOf(req, req.SeatIDs), c.voucher, req.ExpectedTotalMinor); err != nil {
		return o.refuseAfterLimits(ctx, c, g, order, err, "l", "")
	}
	rule, rows := seats.RuleArgs(hall, show.SingleSeatRule, req.SeatIDs)
	out, err := o.runOrder(ctx, c, g, order, rule, rows, "", 0)
	if err != nil {
		return err
	}
	order.HoldMark = out.Mark
	order.Stranded = labelsOf(hall, out.Stranded)
	return o.holdError(show, hall, out)
}

// refuseAfterLimits answers refusal, found in Go before the hold, where the hold would
// have: after the key's marker, the precheck and the rate limits, in one call of
// lua/order.lua that stops there (stop "l"; "o" over the purchase limit: no precheck,
// and the script's own LIMIT_EXCEEDED). zone is best available's zone for the precheck
// ("" none). With the limits counted already (a retry) it answers refusal at once.
func (o *Orders) refuseAfterLimits(ctx context.Context, c *creation, g *gate, order *services.Order, refusal error, stop, zone string) error {
	if g.counted {
		return refusal
	}
	g.stop = stop
	defer func() { g.stop = "" }()
	_, err := o.runOrder(ctx, c, g, &services.Order{OrderNo: order.OrderNo, Seats: order.Seats}, "", nil, zone, c.req.Quantity)
	if s := (*gateStop)(nil); errors.As(err, &s) && s.phase == "LIMITS" {
		return refusal
	}
	return err
}

// holdFlags says who a hold is for, as the waiting list's gate sees it: a waiting
// list's offer, or the public (the gate applies to every seat of the batch).
func holdFlags(req CreateOrderRequest) string {
	if req.offerNo != "" {
		return seats.HoldOffer
	}
	return seats.HoldPublic
}

// labelsOf returns the labels of seat ids in the hall ("F8"), in their order.
func labelsOf(hall *services.Hall, ids []int64) []string {
	if len(ids) == 0 {
		return nil
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strconv.FormatInt(id, 10)
		if s, ok := hall.Seat(id); ok {
			out[i] = s.Label
		}
	}
	return out
}

// holdError turns a refused hold into the contract's error.
func (o *Orders) holdError(show *services.Show, hall *services.Hall, out seats.HoldOutcome) error {
	switch {
	case out.OK():
		return nil
	case len(out.Taken) > 0:
		o.metrics.HoldConflicts.Inc()
		names := make([]string, len(out.Taken))
		for i, id := range out.Taken {
			names[i] = strconv.FormatInt(id, 10)
			if s, ok := hall.Seat(id); ok {
				names[i] = s.Label
			}
		}
		sort.Strings(names)
		return &services.Error{Code: services.CodeSeatTaken, Message: "already taken: " + strings.Join(names, ", "), Seats: names}
	case out.Gap:
		names := labelsOf(hall, out.Stranded)
		return &services.Error{Code: services.CodeSingleSeatGap, Seats: names, Message: "these seats would leave " +
			strings.Join(names, ", ") + " as a single empty seat; other seats in the same row leave none"}
	case out.Waitlist != "":
		return services.Errorf(services.CodeSoldOut, "zone %s is sold out: the seats that came back are offered to its waiting list first", out.Waitlist)
	case out.Limit:
		return services.Errorf(services.CodeLimitExceeded, "you hold or own %d seats for this show; the limit is %d per person", out.LimitNow, show.PurchaseLimit)
	default:
		return services.Errorf(services.CodeSoldOut, "zone %s is sold out", out.SoldOut)
	}
}

// holdBestAvailable picks a block of Quantity adjacent seats in the zone from the
// best-available snapshot and holds it, choosing again when another order took a seat of
// it meanwhile. Each attempt is one call of lua/order.lua; only the first counts the
// rate limits (a hold's refusal leaves the key unclaimed, so a retry claims it).
func (o *Orders) holdBestAvailable(ctx context.Context, c *creation, g *gate, order *services.Order) error {
	show, hall, req := c.show, c.hall, c.req
	snap := o.best.Of(show.ID)
	o.seats.Follow(show.ID) // the snapshot hears other processes' changes (seats.SeatEvents)
	read := func(ctx context.Context) (map[int64]string, error) { return o.seats.States(ctx, show.ID) }
	fresh := false
	// a plain pick is held only if, on the values it holds over, it strands nothing its
	// row could have spared (enforce); an accessible block is held as it is (warn)
	rule := seats.RuleEnforce
	if req.Accessible {
		rule = seats.RuleWarn
	}
	// the precheck refuses a zone with too few free seats (an accessible request in a
	// zone without wheelchair spaces is NO_ADJACENT_SEATS below); a block taken meanwhile
	// is chosen again, not refused
	g.precheck = false
	zone := req.Zone
	if req.Accessible && !zoneHasKind(hall, req.Zone, services.KindWheelchair) {
		zone = ""
	}
	if zone != "" && snap.Stale(hall) {
		// a read of the whole map is due: the script refuses a zone with too few free
		// seats first (and counts the limits), so a refusal costs one call, not a read too
		if err := o.refuseAfterLimits(ctx, c, g, order, nil, "l", zone); err != nil {
			return err
		}
	}
	for attempt := 0; attempt < 4; attempt++ {
		free := 0
		ids, err := snap.Choose(ctx, fresh, hall, read, func(freeSeats []bool, bits seats.FreeBits) []int64 {
			var p seats.Pick
			if req.Accessible {
				p = seats.ChooseBlock(hall, freeSeats, req.Zone, req.Quantity, true, false)
			} else {
				p = seats.ChoosePlain(hall, freeSeats, bits, req.Zone, req.Quantity, false)
			}
			free = p.Free
			return p.IDs
		})
		if err != nil {
			return err
		}
		if ids == nil {
			if !fresh {
				if zone != "" && !g.counted {
					// the script refuses a zone with too few free seats first, so the
					// sale's last seconds do not read the whole map for each refusal
					if err := o.refuseAfterLimits(ctx, c, g, order, nil, "l", zone); err != nil {
						return err
					}
				}
				fresh = true // the snapshot may be stale or over-marked: decide on the map as it is
				continue
			}
			var refusal error
			switch {
			case req.Accessible && !zoneHasKind(hall, req.Zone, services.KindWheelchair):
				refusal = services.Errorf(services.CodeNoAdjacentSeats, "zone %s has no wheelchair spaces", req.Zone)
			case free < req.Quantity:
				refusal = services.Errorf(services.CodeSoldOut, "zone %s has %d seats left", req.Zone, free)
			default:
				refusal = services.Errorf(services.CodeNoAdjacentSeats, "no %d seats side by side are left in zone %s", req.Quantity, req.Zone)
			}
			return o.refuseAfterLimits(ctx, c, g, order, refusal, "l", zone)
		}
		if err := price(show, hall, order, ids, typesOf(req, ids), c.voucher, req.ExpectedTotalMinor); err != nil {
			snap.Done(ids)
			return o.refuseAfterLimits(ctx, c, g, order, err, "l", zone)
		}
		ruleName, rows := seats.RuleArgs(hall, rule, ids)
		out, err := o.runOrder(ctx, c, g, order, ruleName, rows, zone, req.Quantity)
		snap.Done(ids)
		if err != nil {
			return err
		}
		if out.Gap {
			// the seats beside the block changed since the snapshot: read its rows again
			// (not the whole map) and choose again
			if err := o.refreshRows(ctx, snap, show, hall, ids); err != nil {
				return err
			}
			continue
		}
		if len(out.Taken) == 0 {
			order.HoldMark = out.Mark
			order.Stranded = labelsOf(hall, out.Stranded)
			return o.holdError(show, hall, out)
		}
		// another buyer took one of these seats between the read and the hold: note it
		// and look again; the snapshot follows the published changes, so only the last
		// attempt reads the whole map
		snap.Mark(out.Taken)
		fresh = attempt >= 2
	}
	o.metrics.HoldConflicts.Inc()
	return services.Errorf(services.CodeNoAdjacentSeats, "seats are selling fast; no block could be held, try again")
}

// refreshRows reads the rows of the seats ids (their runs of standard seats) from the
// seat cache and writes them into the best-available snapshot. Errors: UNAVAILABLE.
func (o *Orders) refreshRows(ctx context.Context, snap interface {
	Refresh(*services.Hall, map[int64]string)
}, show *services.Show, hall *services.Hall, ids []int64) error {
	var rowIDs []int64
	var seen []int
	for _, id := range ids {
		s, ok := hall.Seat(id)
		if !ok || slices.Contains(seen, s.Row) {
			continue
		}
		seen = append(seen, s.Row)
		for _, run := range hall.Runs(s.Row) {
			for _, i := range run {
				rowIDs = append(rowIDs, hall.Seats[i].ID)
			}
		}
	}
	if len(rowIDs) == 0 {
		return nil
	}
	states, _, err := o.seats.StatesOf(ctx, show.ID, rowIDs, 0)
	if err != nil {
		return err
	}
	snap.Refresh(hall, states)
	return nil
}

// releaseAfterFailure frees the holds of an order that was never committed.
func (o *Orders) releaseAfterFailure(order *services.Order) {
	ctx, cancel := context.WithTimeout(context.Background(), store.RedisTimeout)
	defer cancel()
	if _, err := o.seats.Release(ctx, order.ShowID, order.OrderNo, refsOf(order), false); err != nil {
		o.log.Error("holds of a failed order not released; reconciliation will free them", "order_no", order.OrderNo, "err", err)
	}
}

// price fills order.Seats and TotalMinor from the show's prices of each seat's ticket
// type (types[i] is ids[i]'s) in its zone (invariant 6), less the voucher v on the seats
// it covers (nil: none; applyVoucher), and compares a client's expected total with the
// discounted one. Errors: VOUCHER_INVALID, PRICE_CHANGED.
func price(show *services.Show, hall *services.Hall, order *services.Order, ids []int64, types []string, v *services.Voucher, expected *int64) error {
	order.Seats = order.Seats[:0]
	order.TotalMinor = 0
	for i, id := range ids {
		s, _ := hall.Seat(id)
		p, _ := show.TicketPrice(types[i], s.ZoneCode)
		order.Seats = append(order.Seats, services.OrderSeat{SeatID: id, Label: s.Label, ZoneCode: s.ZoneCode, TicketType: types[i], PriceMinor: p})
		order.TotalMinor += p
	}
	if _, err := applyVoucher(show, order, v); err != nil {
		return err
	}
	if expected != nil && *expected != order.TotalMinor {
		return services.Errorf(services.CodePriceChanged, "the total is %d, not %d", order.TotalMinor, *expected)
	}
	return nil
}

// refsOf returns the seat store's references to the order's seats, each its voucher
// when the order's voucher covers it.
func refsOf(order *services.Order) []seats.SeatRef {
	refs := make([]seats.SeatRef, len(order.Seats))
	for i, s := range order.Seats {
		refs[i] = seats.SeatRef{ID: s.SeatID, Zone: s.ZoneCode}
		if s.DiscountMinor != nil && order.VoucherID != nil {
			refs[i].Voucher = *order.VoucherID
		}
	}
	return refs
}

// zoneHasKind reports whether the hall has a seat of that kind (a wheelchair space) in
// the zone.
func zoneHasKind(hall *services.Hall, zone, kind string) bool {
	for _, s := range hall.Seats {
		if s.ZoneCode == zone && s.Kind == kind {
			return true
		}
	}
	return false
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
