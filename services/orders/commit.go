package orders

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/mail"
	"seatflow/services/store"
)

// commit commits the held order of c in MySQL through the group commit (or alone when
// GroupCommit.MaxOrders is 1): the order's insert, its seats, its Idempotency-Key and
// the commit-time checks of persistBatch. claim is the create's Idempotency-Key lock
// (nil: none), which the batch keeps once the order committed (keepCommitted); held is
// the create's count as holding (startHold), ended once the order is queued. The
// transaction has a context of its own (store.DBTimeout): a batch serves many requests.
// Errors: as persistBatch's per-order outcomes (commitFailed maps them).
func (o *Orders) commit(c *creation, order *services.Order, claim *keyClaim, held *holdCount) error {
	if k := c.req.IdempotencyKey; k != "" {
		h := c.req.hash()
		order.IdempotencyKey, order.RequestHash = k, h[:] // written with the order (insertOrders)
	}
	p := &pendingCommit{order: order, show: c.show, hallID: c.show.HallID, limit: c.show.PurchaseLimit,
		claim: claim, offer: c.req.offerNo != "", email: c.req.Email, lang: c.req.Lang}
	if o.group == nil {
		p.done = make(chan error, 1)
		o.persistBatches([]*pendingCommit{p})
		return <-p.done
	}
	// the hop: submit queues p, and a leader goroutine of the group commit (lead, maybe
	// started by this very submit) runs persistBatches for a batch that holds it; this
	// create waits on p.done for the outcome
	return o.group.submit(p, held)
}

// commitFailed releases the holds of an order whose commit failed and answers the
// create: a hall edit's refusal (SEAT_NOT_IN_SHOW, PRICE_CHANGED) also refreshes the
// hall's seat maps; an Idempotency-Key that names an order already (errKeyTaken: Redis
// had forgotten the key) returns that order (a replay); a seat another live order
// occupies in MySQL (Redis had lost a hold) is SEAT_TAKEN naming those seats; other
// contract errors stay as they are, and the rest is UNAVAILABLE.
func (o *Orders) commitFailed(ctx context.Context, c *creation, order *services.Order, err error) (*services.Order, error) {
	req := c.req
	o.releaseAfterFailure(order)
	if code := services.ErrorCode(err); code == services.CodeSeatNotInShow || code == services.CodePriceChanged {
		o.hallChanged(ctx, c.show.HallID)
	}
	if errors.Is(err, errKeyTaken) {
		// the key's first order exists though Redis had forgotten the key: replay it
		if prior, rerr := o.replay(ctx, req.UserID, req.IdempotencyKey, req.hash()); prior != nil || rerr != nil {
			return prior, rerr
		}
		return nil, store.Unavailable("the idempotency key", err)
	}
	if store.DuplicateOn(err, liveSeatKey) {
		o.metrics.HoldConflicts.Inc()
		taken := o.liveElsewhere(ctx, order)
		return nil, &services.Error{Code: services.CodeSeatTaken, Message: "already taken: " + strings.Join(taken, ", "), Seats: taken, Err: err}
	}
	var e *services.Error
	if errors.As(err, &e) {
		return nil, err
	}
	return nil, store.Unavailable("the database", err)
}

// liveSeatKey is the unique key of a seat's one live order (invariant 1): the only
// duplicate that means SEAT_TAKEN.
const liveSeatKey = "uq_order_seats_live"

// liveElsewhere names the seats of order that MySQL records in another live order (the
// unique key refused the insert: Redis had lost a hold). All of the order's seats when
// the lookup fails.
func (o *Orders) liveElsewhere(ctx context.Context, order *services.Order) []string {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	live, err := store.LiveSeatIDsAmong(ctx, o.db, order.ShowID, seatIDsOf(order))
	if err != nil || len(live) == 0 {
		return Labels(order.Seats)
	}
	return labelsAmong(order, live)
}

// errRetryWithout rolls back a batch whose commit-time checks refused orders after
// their rows were inserted: the batch runs again without them.
var errRetryWithout = errors.New("orders refused after their insert")

// persistBatches commits the orders of batch and sends each its outcome on done: nil
// when its rows committed (their Idempotency-Key locks then left to expire:
// keepCommitted; their expiry scheduled once per deadline: scheduleExpiries), else its
// refusal or the error that failed the batch. A refused order never fails another: the
// batch runs again without the orders its checks refused, and a unique-key conflict (a
// seat or an Idempotency-Key that Redis no longer knew was taken) sends every order of
// the batch through a transaction of its own, where the conflict is that order's alone.
func (o *Orders) persistBatches(batch []*pendingCommit) {
	live := batch
	for len(live) > 0 {
		refused, err := o.persistBatch(live)
		rest := make([]*pendingCommit, 0, len(live))
		for _, p := range live {
			if e, ok := refused[p]; ok {
				p.done <- e
			} else {
				rest = append(rest, p)
			}
		}
		live = rest
		switch {
		case err == nil:
			if len(live) > 0 { // all refused before their insert: nothing committed
				o.metrics.CommitBatchSize.Observe(float64(len(live)))
			}
			keepCommitted(live)
			o.scheduleExpiries(live)
			for _, p := range live {
				p.done <- nil
			}
			return
		case errors.Is(err, errRetryWithout):
			o.metrics.CommitBatchRetries.WithLabelValues("refused").Inc()
		case len(live) > 1 && (store.DuplicateOn(err, liveSeatKey) || store.DuplicateOn(err, store.IdempotencyKeyUnique)):
			o.metrics.CommitBatchRetries.WithLabelValues("conflict").Inc()
			var wg sync.WaitGroup
			for _, p := range live {
				wg.Add(1)
				go func() {
					defer wg.Done()
					o.persistBatches([]*pendingCommit{p})
				}()
			}
			wg.Wait()
			return
		default:
			for _, p := range live {
				p.done <- err
			}
			return
		}
	}
}

// persistBatch is one transaction for the orders of batch (DESIGN.md, order pipeline
// step 5), with a fixed number of statements whatever the batch's size:
//  1. lock every seat of the batch and its house-seat rows (lockBatchSeats, one read)
//     and refuse the orders whose seats a hall edit changed (seatsChanged) or staff keep
//     (houseSeatTaken); they are left out of the inserts;
//  2. add the uses of the batch's vouchers (takeVoucherUses: one guarded UPDATE per
//     voucher; an order past max_uses is refused and the batch reruns without it), insert
//     the other orders with their Idempotency-Keys and their seats (insertOrders: two
//     multi-row INSERTs) and their voucher uses (one multi-row INSERT; none without a
//     voucher);
//  3. around a rebuild of the per-user counts, refuse orders over the purchase limit
//     (limitRefusals; their buyers' rows were locked before step 2, lockCountedBuyers);
//  4. queue each order's e-mail (createdMails: one multi-row INSERT into the outbox,
//     its facts written from what the batch knows, no read).
//
// Refusals of steps 2 and 3 come after the inserts: it returns them with errRetryWithout, and
// the transaction is rolled back (those of step 1 cost no retry). The refusals it returns are final answers; the error
// is the batch's (errRetryWithout, a unique-key conflict, errKeyTaken, the database's).
func (o *Orders) persistBatch(batch []*pendingCommit) (map[*pendingCommit]error, error) {
	ctx, cancel := context.WithTimeout(context.Background(), store.DBTimeout)
	defer cancel()
	step, err := o.idStep(ctx)
	if err != nil {
		return nil, err
	}
	var refused map[*pendingCommit]error
	err = store.InTx(ctx, o.db, func(tx *sqlx.Tx) error {
		refused = map[*pendingCommit]error{}
		locked, house, err := lockBatchSeats(ctx, tx, batch)
		if err != nil {
			return err
		}
		ok := make([]*pendingCommit, 0, len(batch))
		list := make([]*services.Order, 0, len(batch))
		for _, p := range batch {
			e := seatsChanged(p.order, p.hallID, locked)
			if e == nil {
				e = houseSeatTaken(p.order, house)
			}
			if e != nil {
				refused[p] = e
				continue
			}
			ok = append(ok, p)
			list = append(list, p.order)
		}
		if len(ok) == 0 {
			return nil
		}
		counted, err := o.lockCountedBuyers(ctx, tx, ok)
		if err != nil {
			return err
		}
		spent, err := takeVoucherUses(ctx, tx, ok)
		if err != nil {
			return err
		}
		if len(spent) > 0 {
			maps.Copy(refused, spent)
			return errRetryWithout
		}
		if err := insertOrders(ctx, tx, list, step); err != nil {
			return err
		}
		if err := store.InsertVoucherUses(ctx, tx, voucherUsesOf(ok)); err != nil {
			return err
		}
		over, err := limitRefusals(ctx, tx, counted)
		if err != nil {
			return err
		}
		if len(over) > 0 {
			maps.Copy(refused, over)
			return errRetryWithout
		}
		if err := mail.Queue(ctx, tx, o.clock.Now(), createdMails(ok, locked, o.ticketTypeNames(ctx))...); err != nil {
			return err
		}
		if o.failHook != nil {
			if err := o.failHook("insert"); err != nil {
				return err
			}
		}
		return nil
	})
	return refused, err
}

// createdMails are the e-mails of the orders of ps, committed with them (invariant 16):
// mail.OrderCreated, or mail.WaitlistOffer for a waiting list's offer (its one e-mail
// tells of the offer and its deadline), each with its facts (createdFacts) and, when the
// request carried them, the buyer's address and language, so queueing them reads
// nothing; none for a counter sale (paid at once, its e-mail is the tickets'). types names the ticket types by code (ticketTypeNames).
func createdMails(ps []*pendingCommit, locked map[int64]catalog.LockedSeat, types map[string]services.TicketType) []mail.Message {
	ms := make([]mail.Message, 0, len(ps))
	for _, p := range ps {
		if p.order.Channel == services.ChannelBoxOffice {
			continue // paid at once: its one e-mail is the tickets' (SellAtCounter)
		}
		kind := mail.OrderCreated
		if p.offer {
			kind = mail.WaitlistOffer
		}
		m := mail.Message{Kind: kind, UserID: p.order.UserID, OrderNo: p.order.OrderNo, ShowID: p.order.ShowID,
			Facts: createdFacts(p, locked, types)}
		if p.email != "" && p.lang != "" { // the session's copy of users' address and language
			m.To, m.Lang = p.email, p.lang
		}
		ms = append(ms, m)
	}
	return ms
}

// createdFacts are the facts of the e-mail of p's order as its batch writes it: the
// order as inserted (pending, no ticket code), its seats as the batch's lock read them
// (label, zone code and name, in row and column order: what mail.ReadFacts would read
// in the same transaction), and the show as the create read it (title, hall, start;
// the show cache, at most catalog.ShowCacheTTL old, with its cinema's name and zone),
// each seat's ticket type other than adult named from types. nil without the show, or
// with a seat of a type types lacks: Queue reads the facts then.
func createdFacts(p *pendingCommit, locked map[int64]catalog.LockedSeat, types map[string]services.TicketType) *mail.Facts {
	o, show := p.order, p.show
	if show == nil {
		return nil
	}
	seats := make([]catalog.LockedSeat, 0, len(o.Seats))
	for _, s := range o.Seats {
		seats = append(seats, locked[s.SeatID])
	}
	slices.SortFunc(seats, func(a, b catalog.LockedSeat) int {
		if a.RowNo != b.RowNo {
			return a.RowNo - b.RowNo
		}
		return a.ColNo - b.ColNo
	})
	f := &mail.Facts{
		Order: &mail.OrderFacts{No: o.OrderNo, ShowID: o.ShowID, Status: o.Status, TotalMinor: o.TotalMinor,
			Currency: o.Currency, ExpiresAt: o.ExpiresAt.UTC().Truncate(time.Microsecond), Voucher: o.Voucher, DiscountMinor: o.DiscountMinor},
		Show: &mail.ShowFacts{ID: show.ID, Title: show.Movie.Title, Hall: show.HallName, StartsAt: show.StartsAt.UTC(),
			Cinema: show.CinemaName, TimeZone: show.TimeZone},
	}
	typeOf := make(map[int64]string, len(o.Seats))
	for _, s := range o.Seats {
		typeOf[s.SeatID] = s.TicketType
	}
	for _, s := range seats {
		name := s.ZoneName
		if name == "" {
			name = s.ZoneCode
		}
		sf := mail.SeatFacts{Label: s.Label, Zone: s.ZoneCode, ZoneName: name}
		if code := typeOf[s.ID]; code != "" && code != services.TicketAdult {
			t, ok := types[code]
			if !ok {
				return nil
			}
			sf.TicketType, sf.TicketName, sf.TicketNameZh = code, t.NameEn, t.NameZh
		}
		f.Order.Seats = append(f.Order.Seats, sf)
	}
	return f
}

// ticketTypeNames returns the ticket types by code from the catalog's cached list (nil
// when it cannot be read: the e-mails' facts are read from MySQL then).
func (o *Orders) ticketTypeNames(ctx context.Context) map[string]services.TicketType {
	ts, err := o.catalog.TicketTypes(ctx)
	if err != nil {
		return nil
	}
	out := make(map[string]services.TicketType, len(ts))
	for _, t := range ts {
		out[t.Code] = t
	}
	return out
}

// idStep returns InsertOrders' idStep for this database, read once (AutoIncrementStep).
func (o *Orders) idStep(ctx context.Context) (int64, error) {
	o.idStepMu.Lock()
	defer o.idStepMu.Unlock()
	if o.idStepKnown {
		return o.idStepVal, nil
	}
	step, err := store.AutoIncrementStep(ctx, o.db)
	if err != nil {
		return 0, err
	}
	o.idStepVal, o.idStepKnown = step, true
	return step, nil
}

// lockCountedBuyers picks the orders of ps whose show's per-user counts were rebuilt
// around their hold (NeedsLimitCount; one Redis read per show): their buyers' live
// seats must be counted in MySQL, the purchase limit's second line (DESIGN.md, order
// pipeline, 3b). It locks those buyers' user rows (FOR UPDATE, in id order) before the
// batch inserts anything, so two transactions counting one buyer take turns, and the
// later one's count (a plain read: the transaction's snapshot starts after the lock)
// sees the earlier one's committed seats. Errors: the database's.
func (o *Orders) lockCountedBuyers(ctx context.Context, tx *sqlx.Tx, ps []*pendingCommit) ([]*pendingCommit, error) {
	type usersMark struct {
		mark     string
		redisNow time.Time
		err      error
	}
	marks := map[int64]usersMark{}
	var need []*pendingCommit
	var users []int64
	for _, p := range ps {
		m, seen := marks[p.order.ShowID]
		if !seen {
			m.mark, m.redisNow, m.err = o.seats.UsersMark(ctx, p.order.ShowID)
			marks[p.order.ShowID] = m
		}
		if m.err != nil || NeedsLimitCount(p.order.HoldMark, m.mark, m.redisNow) {
			need = append(need, p)
			users = append(users, p.order.UserID)
		}
	}
	if len(need) == 0 {
		return nil, nil
	}
	slices.Sort(users)
	if err := store.LockOrderBuyers(ctx, tx, slices.Compact(users)); err != nil {
		return nil, err
	}
	return need, nil
}

// limitRefusals counts, for the orders of need (lockCountedBuyers), the buyer's live
// seats of the show in MySQL (one query for the batch) and refuses with LIMIT_EXCEEDED
// each order that would take its buyer over the show's limit; a buyer's orders in the
// batch are admitted in queue order, so the first that fits commits.
// Errors: the database's.
func limitRefusals(ctx context.Context, tx *sqlx.Tx, need []*pendingCommit) (map[*pendingCommit]error, error) {
	if len(need) == 0 {
		return nil, nil
	}
	rows, err := store.LiveSeatsOfBuyers(ctx, tx, byShow(need, func(p *pendingCommit) []int64 { return []int64{p.order.UserID} }))
	if err != nil {
		return nil, err
	}
	live := map[[2]int64]int{}
	for _, r := range rows {
		live[[2]int64{r.ShowID, r.UserID}] = r.Live
	}
	// the count holds the batch's own rows: take them out, then admit the batch's orders
	// of each buyer in queue order while they fit, as if they had committed one by one
	for _, p := range need {
		live[[2]int64{p.order.ShowID, p.order.UserID}] -= len(p.order.Seats)
	}
	out := map[*pendingCommit]error{}
	for _, p := range need {
		k := [2]int64{p.order.ShowID, p.order.UserID}
		if have := live[k]; have+len(p.order.Seats) > p.limit {
			out[p] = services.Errorf(services.CodeLimitExceeded, "at most %d seats per person for this show; you have %d already", p.limit, have)
			continue
		}
		live[k] += len(p.order.Seats)
	}
	return out, nil
}

// insertOrders inserts orders with their seats and Idempotency-Keys
// (store.InsertOrders: two multi-row INSERTs, the keys in the orders' rows). A key of
// the same name may be left on an order of an expired use: for a single order that use
// is cleared and the insert tried again (only then: an UPDATE that finds nothing would
// lock a gap of the index, and concurrent creates would deadlock on those gaps); a batch
// returns the duplicate, and persistBatches commits its orders one by one. Errors:
// errKeyTaken (the key's first order exists), the database's (a seat another live order
// occupies: 1062 on liveSeatKey).
func insertOrders(ctx context.Context, tx *sqlx.Tx, orders []*services.Order, idStep int64) error {
	err := store.InsertOrders(ctx, tx, orders, store.SeatsLive, idStep)
	if !store.DuplicateOn(err, store.IdempotencyKeyUnique) || len(orders) > 1 {
		return err
	}
	o := orders[0]
	if err := store.ClearIdempotencyKeyBefore(ctx, tx, o.UserID, o.IdempotencyKey, o.CreatedAt.Add(-IdempotencyTTL)); err != nil {
		return err
	}
	if err = store.InsertOrders(ctx, tx, orders, store.SeatsLive, idStep); store.DuplicateOn(err, store.IdempotencyKeyUnique) {
		return errKeyTaken
	}
	return err
}

// byShow groups ids(p) of the orders of ps by their show, for the storage layer's
// per-show conditions (store.LiveSeatsOfBuyers).
func byShow(ps []*pendingCommit, ids func(p *pendingCommit) []int64) map[int64][]int64 {
	per := map[int64][]int64{}
	for _, p := range ps {
		per[p.order.ShowID] = append(per[p.order.ShowID], ids(p)...)
	}
	return per
}

// batchSeatIDs returns the seat ids of every order of the batch, sorted, each once.
func batchSeatIDs(batch []*pendingCommit) []int64 {
	var ids []int64
	for _, p := range batch {
		ids = append(ids, seatIDsOf(p.order)...)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// lockBatchSeats reads every seat of the batch under a shared lock, in id order, with
// the house-seat rows of the batch's shows for those seats (store.ShareLockBatchSeats,
// one statement): the seats by id (invariant 12: a hall edit locks them for update, so
// whichever commits first, the other sees it; catalog.LockSeats) and the (show, seat)
// pairs staff keep as house seats. The house-seat part is a locking read too, so it
// reads the latest committed rows whatever the snapshot, and waits for a house block
// (staff.ShowSeats.Block) that has inserted its rows and not yet committed; a block that
// comes after it waits on the batch's shared locks (or, when its locking read of the
// seats' live orders came first, deadlocks with the batch, and store.InTx runs the
// victim again, which then sees the other's rows). The seat cache alone cannot tell:
// after a Redis flush a map is rebuilt from MySQL, and a hold and a block may both pass
// it. Errors: the database's.
func lockBatchSeats(ctx context.Context, tx *sqlx.Tx, batch []*pendingCommit) (map[int64]catalog.LockedSeat, map[[2]int64]bool, error) {
	ids := batchSeatIDs(batch)
	locked := make(map[int64]catalog.LockedSeat, len(ids))
	if len(ids) == 0 {
		return locked, nil, nil
	}
	shows := make([]int64, 0, 1)
	for _, p := range batch {
		shows = append(shows, p.order.ShowID)
	}
	slices.Sort(shows)
	rows, err := store.ShareLockBatchSeats(ctx, tx, ids, slices.Compact(shows))
	if err != nil {
		return nil, nil, err
	}
	var house map[[2]int64]bool
	for _, r := range rows {
		locked[r.ID] = r.LockedSeat
		if r.HouseShowID != nil {
			if house == nil {
				house = map[[2]int64]bool{}
			}
			house[[2]int64{*r.HouseShowID, r.ID}] = true
		}
	}
	return locked, house, nil
}

// houseSeatTaken answers SEAT_TAKEN when staff keep a seat of order as a house seat of
// its show (house: lockBatchSeats' pairs), nil otherwise.
func houseSeatTaken(order *services.Order, house map[[2]int64]bool) error {
	var labels []string
	for _, s := range order.Seats {
		if house[[2]int64{order.ShowID, s.SeatID}] {
			labels = append(labels, s.Label)
		}
	}
	if len(labels) == 0 {
		return nil
	}
	return &services.Error{Code: services.CodeSeatTaken, Seats: labels, Message: "already taken: " + strings.Join(labels, ", ")}
}
