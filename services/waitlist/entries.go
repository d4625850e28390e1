package waitlist

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/orders"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// OfferFor is how long an offer holds its seats for the buyer to pay (API.md: 10 minutes).
const OfferFor = 10 * time.Minute

// Entry states as the API gives them. waiting, offered, left and closed are stored; an
// offer whose order was paid reads accepted, and one whose order expired or was
// cancelled reads lapsed.
const (
	StatusWaiting  = "waiting"
	StatusOffered  = "offered"
	StatusAccepted = "accepted"
	StatusLapsed   = "lapsed"
	StatusLeft     = "left"
	StatusClosed   = "closed"
)

// Entry is one place on a show's waiting list. Zone is "" for any zone. Position
// counts the places waiting ahead of it plus one (0 when it is not waiting). OrderNo
// and OfferExpiresAt describe the offer (status offered, accepted or lapsed). Times UTC.
type Entry = store.WaitlistEntry

// Lists keeps the waiting lists: join, read, leave, the staff list, and serving offers
// (serve.go).
type Lists struct {
	db      *sqlx.DB
	catalog *catalog.Catalog
	seats   *seats.SeatStore
	orders  *orders.Orders
	clock   services.Clock
	log     *slog.Logger
	kick    chan int64 // shows to serve soon (runner.go)
	listed  sync.Map   // showKey -> struct{}: shows with open places, so other shows' seat changes cost nothing
	// followFn makes this process hear a listed show's seat changes (SetFollow)
	followFn func(showID int64)
	offerOK  func(e *Entry, o *services.Order)
}

// NewLists wires the waiting lists over the order service (whose catalog, seat store
// and clock it shares).
func NewLists(db *sqlx.DB, o *orders.Orders, log *slog.Logger) *Lists {
	if log == nil {
		log = slog.Default()
	}
	return &Lists{db: db, catalog: o.Catalog(), seats: o.Seats(), orders: o, clock: o.Clock(), log: log,
		kick: make(chan int64, 256), offerOK: func(*Entry, *services.Order) {}}
}

// OnOffer sets f to be told of every offer made in this process (tests record them).
func (l *Lists) OnOffer(f func(e *Entry, o *services.Order)) { l.offerOK = f }

// Join puts userID on the waiting list of showID for quantity seats of zone ("" any
// zone) and returns the place. The show must be on sale; while its waiting room is on,
// admissionToken must admit the buyer as an order would (Orders.CheckAdmission), and
// the place keeps the room's epoch: it gets offers only while the room stays in it (or
// is off). Quantity is 1..its purchase
// limit, counting the seats the buyer already holds or owns; the seats asked for must
// be sold out (no block of quantity seats side by side is free now: otherwise the buyer
// should book them). The list is served at once, in case seats came back meanwhile.
// Errors: NOT_FOUND, NOT_ON_SALE, NOT_ADMITTED, INVALID_REQUEST (a quantity or zone out
// of range), LIMIT_EXCEEDED, CONFLICT (already on the list; seats are free),
// UNAVAILABLE. Every error changes nothing.
func (l *Lists) Join(ctx context.Context, userID, showID int64, quantity int, zone, admissionToken string) (*Entry, error) {
	show, err := l.catalog.CachedShow(ctx, showID)
	if err != nil {
		return nil, err
	}
	now := l.clock.Now()
	if !show.OnSaleAt(now) {
		return nil, services.Errorf(services.CodeNotOnSale, "this show's waiting list is open only while its sale is")
	}
	if err := l.orders.CheckAdmission(show, userID, admissionToken, now); err != nil {
		return nil, err // the waiting room cannot be walked around through the list
	}
	if quantity < 1 || quantity > show.PurchaseLimit {
		return nil, services.Errorf(services.CodeInvalidRequest, "quantity must be a whole number from 1 to %d (the show's purchase limit)", show.PurchaseLimit)
	}
	if _, ok := show.ZonePrice(zone); zone != "" && !ok {
		return nil, services.Errorf(services.CodeInvalidRequest, "zone %q is not a zone of this show", zone)
	}
	hall, err := l.catalog.Hall(ctx, show.HallID)
	if err != nil {
		return nil, err
	}
	states, err := l.seats.States(ctx, showID)
	if err != nil {
		return nil, err
	}
	free := seats.FreeOf(hall, states)
	if z, ids := pickFor(show, hall, free, seats.NewFreeBits(hall, free), zone, quantity); ids != nil {
		return nil, services.Errorf(services.CodeConflict, "there are free seats side by side for %d in %s: book them instead of waiting", quantity, zoneName(show, z))
	}
	qctx0, cancel0 := context.WithTimeout(ctx, store.DBTimeout)
	owned, err := store.WaitlistBuyerLiveSeats(qctx0, l.db, userID, showID)
	cancel0()
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	if owned+quantity > show.PurchaseLimit {
		return nil, services.Errorf(services.CodeLimitExceeded, "you hold or own %d seats for this show; the limit is %d per person, so an offer of %d could not be made", owned, show.PurchaseLimit, quantity)
	}
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	err = store.InsertWaitlistEntry(qctx, l.db, showID, userID, quantity, zone, show.RoomEpoch, now.UTC())
	if store.DuplicateOn(err, "uq_waitlist_open") {
		return nil, services.Errorf(services.CodeConflict, "you are already on this show's waiting list")
	}
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	l.Kick(showID)
	return l.Mine(ctx, userID, showID)
}

// Mine returns userID's latest place on showID's list (the open one, else the last
// that ended), with its position while it waits. Errors: NOT_FOUND (never joined),
// UNAVAILABLE.
func (l *Lists) Mine(ctx context.Context, userID, showID int64) (*Entry, error) {
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	e, err := store.LatestWaitlistEntry(qctx, l.db, showID, userID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, services.Errorf(services.CodeNotFound, "you are not on this show's waiting list")
	}
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	if err := l.derive(qctx, e); err != nil {
		return nil, err
	}
	return e, nil
}

// derive turns the stored status into the API's (an offer's order decides accepted or
// lapsed; a waiting place of a show no longer on sale reads closed) and counts the
// position of a waiting place.
func (l *Lists) derive(ctx context.Context, e *Entry) error {
	show, err := l.catalog.CachedShow(ctx, e.ShowID)
	if err != nil {
		return err
	}
	switch e.Status {
	case StatusOffered:
		switch {
		case e.OrderStatus == "":
			// the offer is being made (its number is written before its order): the
			// place is at the front, still waiting
			e.Status, e.OrderNo, e.Position = StatusWaiting, "", 1
		case e.OrderStatus == services.OrderPaid:
			e.Status = StatusAccepted
		case e.OrderStatus == services.OrderPending:
		case ended(show, l.clock.Now()) || e.OrderStatus == services.OrderRefunded:
			e.Status = StatusClosed // the show was cancelled (its orders ended with it)
		default:
			e.Status = StatusLapsed // expired, or cancelled by the buyer
		}
	case StatusWaiting:
		if ended(show, l.clock.Now()) {
			e.Status = StatusClosed
			return nil
		}
		e.Position, err = store.WaitlistPosition(ctx, l.db, e.ShowID, e.ID)
		if err != nil {
			return store.Unavailable("the database", err)
		}
	}
	return nil
}

// Leave takes userID off showID's list. A pending offer is cancelled with it, so its
// seats go to the next place at once. Errors: NOT_FOUND (no open place), UNAVAILABLE.
func (l *Lists) Leave(ctx context.Context, userID, showID int64) (*Entry, error) {
	e, err := l.Mine(ctx, userID, showID)
	if err != nil {
		return nil, err
	}
	if e.Status != StatusWaiting && e.Status != StatusOffered && e.Status != StatusClosed {
		return nil, services.Errorf(services.CodeNotFound, "you are not on this show's waiting list")
	}
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	if err := store.LeaveWaitlistEntry(qctx, l.db, e.ID, l.clock.Now().UTC()); err != nil {
		return nil, store.Unavailable("the database", err)
	}
	// an offer made since the read above is cancelled too (one still being made is
	// cancelled by its server when it sees the place left)
	no, err := store.WaitlistEntryOrderNo(qctx, l.db, e.ID)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	if no != "" {
		if _, err := l.orders.Cancel(ctx, userID, no); err != nil {
			if c := services.ErrorCode(err); c != services.CodeOrderState && c != services.CodeNotFound {
				return nil, err
			}
		}
	}
	return l.Mine(ctx, userID, showID)
}

// zoneName is the name of a show's zone code (the code when the show has no such zone).
func zoneName(show *services.Show, code string) string {
	for _, z := range show.Zones {
		if z.Code == code {
			return z.Name
		}
	}
	return code
}

// List returns every place of showID's list in order (staff), positions of the waiting
// ones counted. Errors: UNAVAILABLE.
func (l *Lists) List(ctx context.Context, showID int64) ([]*Entry, error) {
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	out, err := store.WaitlistEntriesOfShow(qctx, l.db, showID)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	show, err := l.catalog.CachedShow(ctx, showID)
	if err != nil {
		return nil, err
	}
	over := ended(show, l.clock.Now())
	pos := 0
	for _, e := range out {
		if e.Status == StatusWaiting && !over {
			pos++
			e.Position = pos
			continue
		}
		if e.Status == StatusWaiting {
			e.Status = StatusClosed
			continue
		}
		if err := l.derive(ctx, e); err != nil {
			return nil, err
		}
	}
	return out, nil
}
