package orders

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/mail"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// ExchangeRequest asks to move the live seats of order OrderNo, whose buyer is UserID,
// onto SeatIDs: as many seats, in the same zones (API.md "Exchange"). Seats the order
// has already and lists again stay as they are.
type ExchangeRequest struct {
	UserID  int64
	OrderNo string
	SeatIDs []int64
}

// errExchangeCrash is what a failHook's error at "exchanged" stands for: the process died
// between the seat cache step and the MySQL transaction (tests of convergence). A
// retryable MySQL error (store.IsRetryable) from the hook is returned as it is instead:
// the transaction fails as a deadlock victim's would, and the cache step is given back.
var errExchangeCrash = errors.New("stopped between the seat cache and the database")

// Exchange moves a pending or paid order of a show not yet started onto other seats and
// returns it on them (API.md "Exchange"; DESIGN.md "Exchanging seats"). In one MySQL
// transaction that locks the order's row (so no transition of it commits meanwhile)
// and its live seats: the plan (matchExchange: the seats it lets go, paired zone by zone
// with the seats it takes), the new seats' share lock (invariant 12), then one call of
// lua/exchange.lua (SeatStore.Exchange) that holds the new seats for the order, sold
// when it is paid, before it frees the old ones owner-checked, then the rows: each old
// row ends (live NULL, exchanged_at), each new row is live with its old seat's ticket
// type, price and voucher saving (store.MoveOrderSeat), the voucher's uses move with them, a paid order's
// ticket code is drawn anew (the old tickets no longer admit: the reference's signature
// names the seats, the code is gone), an audit entry and the order_exchanged e-mail.
// The total, the purchase-limit count and the voucher's uses do not change; refunded
// seats stay refunded. A failure after the script gives the cache step back
// (undoExchange); a crash there is reconciliation's (MySQL is the truth).
// Errors: INVALID_REQUEST (shape, count, zones, no seat changes, a seat refunded from the
// order), NOT_FOUND (unknown, or another user's), ORDER_STATE (ended, past its deadline,
// show started or cancelled), SEAT_NOT_IN_SHOW, SEAT_TAKEN (with Seats), SINGLE_SEAT_GAP,
// UNAVAILABLE.
func (o *Orders) Exchange(ctx context.Context, req ExchangeRequest) (*services.Order, error) {
	if err := validateExchange(req.SeatIDs); err != nil {
		return nil, err
	}
	order, err := o.Get(ctx, req.UserID, req.OrderNo)
	if err != nil {
		return nil, err
	}
	if !order.Live() {
		return nil, services.Errorf(services.CodeOrderState, "the order is %s: its seats can no longer be changed", order.Status)
	}
	show, err := o.catalog.Show(ctx, order.ShowID)
	if err != nil {
		return nil, err
	}
	now := o.clock.Now()
	if err := exchangeOpen(show, now); err != nil {
		return nil, err
	}
	hall, err := o.catalog.Hall(ctx, show.HallID)
	if err != nil {
		return nil, err
	}
	if err := checkSeatsInShow(show, hall, req.SeatIDs); err != nil {
		return nil, err
	}
	if err := seats.CheckCompanions(hall, req.SeatIDs); err != nil {
		return nil, err
	}
	x := &exchange{order: order, show: show, hall: hall, ids: req.SeatIDs, now: now}
	if err := o.runExchange(ctx, x); err != nil {
		return nil, err
	}
	out, err := o.ByNo(ctx, order.OrderNo)
	if err != nil {
		return nil, err
	}
	// the seats this exchange committed: a second exchange of the order may have
	// committed since, and its answer is its own
	putSeats(map[int64]*services.Order{out.ID: out}, x.seats)
	out.Stranded = x.stranded
	return out, nil
}

// validateExchange checks the request's seats: 1..MaxSeatsPerRequest positive ids, each
// once (INVALID_REQUEST).
func validateExchange(ids []int64) error {
	if len(ids) == 0 || len(ids) > MaxSeatsPerRequest {
		return services.Errorf(services.CodeInvalidRequest, "seat_ids must list 1 to %d seats", MaxSeatsPerRequest)
	}
	seen := make(map[int64]bool, len(ids))
	for _, id := range ids {
		if id <= 0 {
			return services.Errorf(services.CodeInvalidRequest, "seat id %d is not a positive integer", id)
		}
		if seen[id] {
			return services.Errorf(services.CodeInvalidRequest, "seat %d is listed twice", id)
		}
		seen[id] = true
	}
	return nil
}

// exchangeOpen refuses an exchange once the show started or was cancelled (ORDER_STATE).
func exchangeOpen(show *services.Show, now time.Time) error {
	switch {
	case show.Status == services.ShowCancelled:
		return services.Errorf(services.CodeOrderState, "the show was cancelled: seats can no longer be changed")
	case !now.Before(show.StartsAt):
		return services.Errorf(services.CodeOrderState, "the show has started: seats can no longer be changed")
	}
	return nil
}

// ExchangeOpen reports whether a buyer may still change the seats of order (pending or
// paid, its show neither started nor cancelled at now): the order page offers it then.
func ExchangeOpen(order *services.Order, show *services.Show, now time.Time) bool {
	return order.Live() && exchangeOpen(show, now) == nil &&
		(order.Status != services.OrderPending || now.Before(order.ExpiresAt))
}

// exchange is one exchange on its way: the order as read, its show and hall, the seats
// asked for, and what the transaction decided.
type exchange struct {
	order    *services.Order
	show     *services.Show
	hall     *services.Hall
	ids      []int64
	now      time.Time
	sold     bool           // the order is paid: its new seats are sold
	pairs    []exchangePair // old seat -> new seat
	ran      bool           // the script may have run
	stranded []string
	// seats: the order's seats as the transaction leaves them (read before its commit),
	// the answer's seats even when another change of the order commits right after
	seats []store.OrderSeatRow
}

// exchangePair is one seat the order lets go (From, as its row was) and the seat that
// takes its place (To: its seat, label and zone; the rest is From's).
type exchangePair struct {
	From services.OrderSeat
	To   services.OrderSeat
}

// matchExchange pairs the order's live seats live with the seats ids asked for: seats in
// both stay; the others are matched zone by zone, each in row and column order, so every
// new seat carries the ticket type, price and voucher saving of an old seat of its zone.
// Errors: INVALID_REQUEST (another number of seats, other zones, nothing changes).
func matchExchange(hall *services.Hall, live []services.OrderSeat, ids []int64) ([]exchangePair, error) {
	if len(ids) != len(live) {
		return nil, services.Errorf(services.CodeInvalidRequest, "choose %d seats, as many as the order has (not %d)", len(live), len(ids))
	}
	keep := make(map[int64]bool, len(live))
	for _, s := range live {
		keep[s.SeatID] = true
	}
	outByZone := map[string][]services.OrderSeat{}
	for _, s := range live {
		if !slices.Contains(ids, s.SeatID) {
			outByZone[s.ZoneCode] = append(outByZone[s.ZoneCode], s)
		}
	}
	inByZone := map[string][]*services.Seat{}
	for _, id := range ids {
		if keep[id] {
			continue
		}
		s, _ := hall.Seat(id)
		inByZone[s.ZoneCode] = append(inByZone[s.ZoneCode], s)
	}
	var zones []string
	for z := range outByZone {
		zones = append(zones, z)
	}
	for z := range inByZone {
		if _, ok := outByZone[z]; !ok {
			zones = append(zones, z)
		}
	}
	sort.Strings(zones)
	var pairs []exchangePair
	for _, z := range zones {
		out, in := outByZone[z], inByZone[z]
		if len(out) != len(in) {
			return nil, services.Errorf(services.CodeInvalidRequest, "choose seats in the same zones as the order's: %d in zone %s, not %d", len(out), z, len(in))
		}
		sort.Slice(in, func(i, j int) bool {
			return in[i].Row < in[j].Row || in[i].Row == in[j].Row && in[i].Col < in[j].Col
		})
		for i := range out {
			to := out[i]
			to.SeatID, to.Label, to.ZoneCode = in[i].ID, in[i].Label, in[i].ZoneCode
			pairs = append(pairs, exchangePair{From: out[i], To: to})
		}
	}
	if len(pairs) == 0 {
		return nil, services.Errorf(services.CodeInvalidRequest, "these are the order's seats already: choose at least one other seat")
	}
	return pairs, nil
}

// runExchange is Exchange's transaction (see there). The script is not part of a
// transaction's retry: when anything after it fails, the transaction is rolled back and
// the cache step given back (undoExchange); a deadlock victim (or a lock wait timeout)
// then runs again from the start, at most store.TxAttempts times, as does a transaction
// whose script found the seat map missing, after loading it outside the transaction.
func (o *Orders) runExchange(ctx context.Context, x *exchange) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), store.DBTimeout+store.RedisTimeout)
	defer cancel()
	for attempt := 0; ; attempt++ {
		undone, err := o.exchangeOnce(ctx, x)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, errExchangeCrash):
			return store.Unavailable("the database", err)
		case seats.IsNotLoaded(err) && attempt+1 < store.TxAttempts:
			// the seat map is missing (a flush, a failover): load it outside the
			// transaction, now rolled back, and run it again
			if lerr := o.seats.Load(ctx, x.show.ID); lerr != nil {
				return lerr
			}
			continue
		case store.IsRetryable(err) && undone && attempt+1 < store.TxAttempts:
			store.RetryPause(attempt)
			continue
		case services.ErrorCode(err) != "":
			return err
		}
		return store.Unavailable("the database", err)
	}
}

// exchangeOnce runs one attempt of Exchange's transaction and reports, on failure,
// whether the seat cache is as it was (the script did not run, or was given back).
func (o *Orders) exchangeOnce(ctx context.Context, x *exchange) (bool, error) {
	x.ran = false
	tx, err := o.db.BeginTxx(ctx, nil)
	if err != nil {
		return true, err
	}
	defer func() { _ = tx.Rollback() }()
	err = o.exchangeInTx(ctx, x, tx)
	if err == nil {
		err = tx.Commit()
	}
	if err == nil || errors.Is(err, errExchangeCrash) || !x.ran {
		return true, err
	}
	_ = tx.Rollback() // first: the undo's hold must not wait for this transaction
	return o.undoExchange(x), err
}

// exchangeInTx runs the steps of Exchange inside tx.
func (o *Orders) exchangeInTx(ctx context.Context, x *exchange, tx *sqlx.Tx) error {
	order := x.order
	st, err := store.LockOrderState(ctx, tx, order.ID)
	if err != nil {
		return err
	}
	switch {
	case st.Status != services.OrderPending && st.Status != services.OrderPaid:
		return services.Errorf(services.CodeOrderState, "the order is %s: its seats can no longer be changed", st.Status)
	case st.Status == services.OrderPending && !x.now.Before(st.ExpiresAt):
		return services.Errorf(services.CodeOrderState, "the order is past its payment deadline")
	}
	x.sold = st.Status == services.OrderPaid
	live, err := store.LockLiveOrderSeats(ctx, tx, order.ID)
	if err != nil {
		return err
	}
	if x.pairs, err = matchExchange(x.hall, live, x.ids); err != nil {
		return err
	}
	in := &services.Order{ShowID: order.ShowID}
	inIDs := make([]int64, len(x.pairs))
	for i, p := range x.pairs {
		in.Seats, inIDs[i] = append(in.Seats, p.To), p.To.SeatID
	}
	if ended, err := store.EndedOrderSeatsAmong(ctx, tx, order.ID, inIDs); err != nil {
		return err
	} else if len(ended) > 0 {
		return services.Errorf(services.CodeInvalidRequest, "seat %s left this order by a refund; choose another seat", strings.Join(labelsOf(x.hall, ended), ", "))
	}
	rows, err := store.ShareLockBatchSeats(ctx, tx, inIDs, []int64{order.ShowID})
	if err != nil {
		return err
	}
	locked := make(map[int64]catalog.LockedSeat, len(rows))
	house := map[[2]int64]bool{}
	for _, r := range rows {
		locked[r.ID] = r.LockedSeat
		if r.HouseShowID != nil {
			house[[2]int64{*r.HouseShowID, r.ID}] = true
		}
	}
	if err := seatsChanged(in, x.hall.ID, locked); err != nil {
		return err
	}
	if err := houseSeatTaken(in, house); err != nil {
		return err
	}
	if err := o.exchangeInCache(ctx, x); err != nil {
		return err
	}
	if o.failHook != nil {
		if err := o.failHook("exchanged"); err != nil {
			if store.IsRetryable(err) {
				return err // a deadlock victim's answer after the script: rolled back, given back
			}
			return errExchangeCrash
		}
	}
	if err := o.writeExchange(ctx, x, tx); err != nil {
		return err
	}
	x.seats, err = store.OrderSeatsOf(ctx, tx, []int64{order.ID})
	return err
}

// exchangeInCache runs lua/exchange.lua for x's pairs and maps a refusal to the
// contract's error (SEAT_TAKEN naming the seats, SINGLE_SEAT_GAP).
func (o *Orders) exchangeInCache(ctx context.Context, x *exchange) error {
	in, out := exchangeRefs(x.pairs)
	inIDs := make([]int64, len(in))
	for i, r := range in {
		inIDs[i] = r.ID
	}
	rule, rows := seats.RuleArgs(x.hall, x.show.SingleSeatRule, inIDs)
	x.ran = true
	// inside the transaction: a missing map is not loaded here (the load's locking reads
	// would wait for this transaction's locks); runExchange loads it after the rollback
	res, err := o.seats.ExchangeInTx(ctx, x.show.ID, x.order.OrderNo, x.order.UserID, x.sold, in, out, rule, rows)
	if seats.IsNotLoaded(err) {
		x.ran = false // the script found no map and wrote nothing
	}
	if err != nil {
		return err
	}
	if !res.Hold.OK() {
		x.ran = false // a refusal writes nothing
		return o.holdError(x.show, x.hall, res.Hold)
	}
	x.stranded = labelsOf(x.hall, res.Hold.Stranded)
	return nil
}

// exchangeRefs returns the seat references of the seats x takes (in) and lets go (out).
func exchangeRefs(pairs []exchangePair) (in, out []seats.SeatRef) {
	for _, p := range pairs {
		in = append(in, seats.SeatRef{ID: p.To.SeatID, Zone: p.To.ZoneCode})
		out = append(out, seats.SeatRef{ID: p.From.SeatID, Zone: p.From.ZoneCode})
	}
	return in, out
}

// writeExchange writes x in tx: the rows, the voucher uses, a paid order's new ticket
// code, the audit entry and the e-mail (invariant 16).
func (o *Orders) writeExchange(ctx context.Context, x *exchange, tx *sqlx.Tx) error {
	order := x.order
	for _, p := range x.pairs {
		moved, err := store.MoveOrderSeat(ctx, tx, order.ID, order.ShowID, p.From.SeatID, p.To, x.now)
		if errors.Is(err, store.ErrSeatLive) {
			return &services.Error{Code: services.CodeSeatTaken, Seats: []string{p.To.Label}, Message: "already taken: " + p.To.Label}
		}
		if err != nil {
			return err
		}
		if !moved {
			return services.Errorf(services.CodeUnavailable, "seat %s of the order changed meanwhile; try again", p.From.Label)
		}
		if err := store.MoveVoucherUse(ctx, tx, order.ID, p.From.SeatID, p.To.SeatID); err != nil {
			return err
		}
	}
	if x.sold {
		if err := store.DeleteTicketCode(ctx, tx, order.ID); err != nil {
			return err
		}
		if _, err := drawTicketCode(ctx, tx, o.ticketRand, order.ID, x.now.UTC()); err != nil {
			return err
		}
	}
	var from, to []string
	for _, p := range x.pairs {
		from, to = append(from, p.From.Label), append(to, p.To.Label)
	}
	type seatsMoved struct {
		Seats []string `json:"seats"`
	}
	if err := o.audit.Record(ctx, tx, order.UserID, "order.exchange", "order", order.OrderNo,
		seatsMoved{from}, seatsMoved{to}); err != nil {
		return err
	}
	msg := mail.Message{Kind: mail.OrderExchanged, Data: map[string]string{mail.DataOldSeats: strings.Join(from, ", ")},
		Key: string(mail.OrderExchanged) + ":" + order.OrderNo + ":" + strconv.FormatInt(x.now.UnixMicro(), 10)}
	return mail.Queue(ctx, tx, x.now, orderMail(order, msg))
}

// undoExchange gives back a cache step whose transaction did not commit and reports
// whether it did: the same script the other way round (the old seats taken back while
// they are free, then the new ones freed owner-checked). When the old seats were taken
// meanwhile that script changes nothing (false); the new seats are then freed on their
// own (owner-checked: MySQL never gave them to the order, so a hold of them would turn
// buyers away from free seats), and reconciliation gives the old seats back to the order
// from MySQL, where it still has them (their taker's order cannot commit on them).
func (o *Orders) undoExchange(x *exchange) bool {
	ctx, cancel := context.WithTimeout(context.Background(), store.RedisTimeout)
	defer cancel()
	in, out := exchangeRefs(x.pairs)
	res, err := o.seats.Exchange(ctx, x.show.ID, x.order.OrderNo, x.order.UserID, x.sold, out, in, "", nil)
	if err == nil && res.Hold.OK() {
		return true
	}
	freed, rerr := o.seats.Release(ctx, x.show.ID, x.order.OrderNo, in, x.sold)
	o.log.Error("exchange not given back in the seat cache; its new seats freed, reconciliation will repair the old ones",
		"order_no", x.order.OrderNo, "err", err, "taken", res.Hold.Taken, "freed", freed, "release_err", rerr)
	return false
}
