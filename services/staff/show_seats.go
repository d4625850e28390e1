package staff

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/redis/go-redis/v9"

	"seatflow/lua"
	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/catalog"
	"seatflow/services/orders"
	"seatflow/services/seats"
	"seatflow/services/store"
)

// StateHouse is the state staff see for a house seat: blocked for this show by staff,
// never sold online (buyers see it as blocked).
const StateHouse = "house"

// ShowSeats is what staff do with one show's seats: the seat map with each seat's order
// and buyer, house seats (Block, Unblock) and the release of a stuck hold (Release).
// Every write is audited (invariant 11).
type ShowSeats struct {
	db      *sqlx.DB
	catalog *catalog.Catalog
	seats   *seats.SeatStore
	orders  *orders.Orders
	audit   *audit.Audit
	clock   services.Clock
	grace   time.Duration
	house   *redis.Script
	// pause, when set by tests, is called at named points ("block-commit": a block's
	// seats are blocked in the seat cache and its transaction is about to commit).
	pause func(stage string)
}

// NewShowSeats wires the staff seat service over the order service's stores. grace is
// how old an order number must be before a hold without its order counts as stuck (the
// order's create transaction may still be in flight); 0 means 60 seconds, as
// reconciliation uses.
func NewShowSeats(db *sqlx.DB, orders *orders.Orders, audit *audit.Audit, grace time.Duration) *ShowSeats {
	if grace <= 0 {
		grace = 60 * time.Second
	}
	return &ShowSeats{db: db, catalog: orders.Catalog(), seats: orders.Seats(), orders: orders, audit: audit,
		clock: orders.Clock(), grace: grace, house: redis.NewScript(lua.House)}
}

// SetPauseHook makes the service call hook at named points; tests use it to act while
// a block is half way ("block-commit": its seats blocked in the seat cache, its
// transaction not yet committed) and to count a block's tries InnoDB refused
// ("block-retry": a deadlock or lock wait timeout, tried again).
func (s *ShowSeats) SetPauseHook(hook func(stage string)) { s.pause = hook }

// StaffSeat is one seat of a show as staff see it. State is what buyers are shown now
// (from the seat cache in Redis): free, held, sold, blocked (never sold: the hall's
// layout) or house. OrderNo is the order holding or owning the seat (the seat cache's
// owner, else MySQL's live order), with its status in MySQL (OrderStatus, "" when MySQL
// has no such order) and its buyer's email. DBState and DBOrderNo are the seat as MySQL
// records it; Mismatch is a sentence naming both when they disagree ("" when they
// agree). Stuck: held or sold in the seat cache by an order that is not live in MySQL
// and older than the grace period, with no other live order for the seat: Release frees
// it. Cancellable: held by a pending order that has the seat in MySQL: Release cancels
// that order.
type StaffSeat struct {
	services.Seat
	State       string
	OrderNo     string
	OrderStatus string
	BuyerEmail  string
	DBState     string
	DBOrderNo   string
	Mismatch    string
	Stuck       bool
	Cancellable bool
}

// StaffSeatMap is a show's seat map for staff: the show (with zones and prices), its
// hall, every seat of the hall in hall order, seats per State, and whether house seats
// may change now (Editable: the show is neither cancelled nor started).
type StaffSeatMap struct {
	Show     *services.Show
	Hall     *services.Hall
	Seats    []StaffSeat
	Counts   map[string]int
	Editable bool
}

// seatOrder is an order as the staff seat map shows it.
type seatOrder = store.ShowSeatHolder

// Map returns the staff seat map of show showID (draft shows too): the seat cache's
// state of every seat (loaded from MySQL when missing) next to MySQL's live orders and
// house seats, read in one joined query. Errors: NOT_FOUND, UNAVAILABLE.
func (s *ShowSeats) Map(ctx context.Context, showID int64) (*StaffSeatMap, error) {
	show, err := s.catalog.Show(ctx, showID)
	if err != nil {
		return nil, err
	}
	hall, err := s.catalog.Hall(ctx, show.HallID)
	if err != nil {
		return nil, err
	}
	raw, err := s.seats.States(ctx, showID)
	if err != nil {
		return nil, err
	}
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	rows, err := store.ShowSeatHolders(qctx, s.db, showID, StateHouse)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	live := map[int64]seatOrder{}
	house := map[int64]bool{}
	orders := map[string]seatOrder{}
	for _, r := range rows {
		if r.Status == StateHouse {
			house[r.SeatID] = true
			continue
		}
		live[r.SeatID] = r
		orders[r.OrderNo] = r
	}
	if err := s.addOrders(qctx, raw, orders); err != nil {
		return nil, err
	}
	now := s.clock.Now()
	m := &StaffSeatMap{Show: show, Hall: hall, Counts: map[string]int{},
		Editable: editable(show.Status, show.StartsAt, now) == nil}
	for _, st := range hall.Seats {
		m.Seats = append(m.Seats, s.staffSeat(st, raw, live[st.ID], house[st.ID], orders, now))
		m.Counts[m.Seats[len(m.Seats)-1].State]++
	}
	return m, nil
}

// addOrders reads the orders the seat cache names that MySQL's live seats did not
// (orders that ended, or unknown numbers) into orders.
func (s *ShowSeats) addOrders(ctx context.Context, raw map[int64]string, orders map[string]seatOrder) error {
	var nos []string
	for _, v := range raw {
		if _, no, _ := seats.SeatValue(v); no != "" {
			if _, ok := orders[no]; !ok {
				orders[no] = seatOrder{OrderNo: no}
				nos = append(nos, no)
			}
		}
	}
	if len(nos) == 0 {
		return nil
	}
	found, err := store.SeatHolderOrders(ctx, s.db, nos)
	if err != nil {
		return store.Unavailable("the database", err)
	}
	for _, f := range found {
		orders[f.OrderNo] = f
	}
	return nil
}

// staffSeat builds one seat of the staff map from the seat cache's value and MySQL's.
func (s *ShowSeats) staffSeat(st services.Seat, raw map[int64]string, live seatOrder, house bool, orders map[string]seatOrder, now time.Time) StaffSeat {
	out := StaffSeat{Seat: st}
	// MySQL's view, as SnapshotFromDB builds it
	switch {
	case !st.Sellable():
		out.DBState = services.StateBlocked
	case live.OrderNo != "" && live.Status == services.OrderPaid:
		out.DBState, out.DBOrderNo = services.StateSold, live.OrderNo
	case live.OrderNo != "":
		out.DBState, out.DBOrderNo = services.StateHeld, live.OrderNo
	case house:
		out.DBState = StateHouse
	default:
		out.DBState = services.StateFree
	}
	v, loaded := raw[st.ID]
	state, no, _ := seats.SeatValue(v)
	switch {
	case !loaded:
		state = "" // described below; the map shows MySQL's state
	case state == services.StateBlocked && st.Sellable() && house:
		state = StateHouse
	case state == "":
		state = services.StateHeld // an unreadable value is never shown as free
	}
	out.State, out.OrderNo = state, no
	if !loaded {
		out.State, out.OrderNo = out.DBState, out.DBOrderNo
	}
	if o, ok := orders[out.OrderNo]; ok && out.OrderNo != "" {
		out.OrderStatus, out.BuyerEmail = o.Status, o.Email
	}
	cacheSays, dbSays := describeStaff(state, no), describeStaff(out.DBState, out.DBOrderNo)
	if !loaded {
		cacheSays = "missing"
	}
	if cacheSays != dbSays {
		out.Mismatch = "seat cache: " + cacheSays + "; database: " + dbSays
	}
	if state == services.StateHeld || state == services.StateSold {
		ownsInDB := out.DBOrderNo == no
		live := out.OrderStatus == services.OrderPending || out.OrderStatus == services.OrderPaid
		out.Cancellable = ownsInDB && out.OrderStatus == services.OrderPending
		young := out.OrderStatus == "" && seats.InFlight(no, now, s.grace)
		out.Stuck = !(ownsInDB && live) && out.DBOrderNo == "" && !young
	}
	return out
}

// describeStaff names a seat state and its order for people ("held by order X").
func describeStaff(state, orderNo string) string {
	switch {
	case state == services.StateHeld && orderNo != "":
		return "held by order " + orderNo
	case state == services.StateSold && orderNo != "":
		return "sold to order " + orderNo
	case state == StateHouse:
		return "house seat"
	}
	return state
}
