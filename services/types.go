package services

import (
	"math"
	"sort"
	"sync"
	"time"
)

// Roles of a user account.
const (
	RoleCustomer = "customer"
	RoleStaff    = "staff"
	RoleAdmin    = "admin"
)

// Show statuses (DESIGN.md, Words).
const (
	ShowDraft     = "draft"
	ShowScheduled = "scheduled"
	ShowOnSale    = "on_sale"
	ShowClosed    = "closed"
	ShowCancelled = "cancelled"
)

// Order statuses: pending -> paid | cancelled | expired; paid -> refunded.
const (
	OrderPending   = "pending"
	OrderPaid      = "paid"
	OrderCancelled = "cancelled"
	OrderExpired   = "expired"
	OrderRefunded  = "refunded"
)

// Seat kinds. Blocked seats are never sold.
const (
	KindStandard   = "standard"
	KindWheelchair = "wheelchair"
	KindCompanion  = "companion"
	KindBlocked    = "blocked"
)

// Seat states as shown on a seat map.
const (
	StateFree    = "free"
	StateHeld    = "held"
	StateSold    = "sold"
	StateBlocked = "blocked"
)

// User is an account. Role is one of the Role* constants. Lang is the language the
// user's e-mails are written in (users.lang: "en" or "zh-Hans"), read with a session or
// a login; "" where a read left it out.
type User struct {
	ID    int64  `db:"id"`
	Email string `db:"email"`
	Name  string `db:"name"`
	Role  string `db:"role"`
	Lang  string `db:"lang"`
}

// Movie is a film that shows screen.
type Movie struct {
	ID         int64  `db:"id"`
	Title      string `db:"title"`
	RuntimeMin int    `db:"runtime_min"`
	Rating     string `db:"rating"`
	Synopsis   string `db:"synopsis"`
}

// Zone is a price zone of a hall, with the show's price when read for a show.
// PriceMinor is in minor units of the show's currency; SeatsLeft counts free seats.
type Zone struct {
	ID         int64  `db:"id"`
	Code       string `db:"code"`
	Name       string `db:"name"`
	PriceMinor int64  `db:"price_minor"`
	SeatsLeft  int    `db:"-"`
}

// Seat is one position of a hall: Row and Col are 1-based grid coordinates (aisles are
// gaps in Col), Label is what a moviegoer reads (e.g. "F7").
type Seat struct {
	ID       int64  `db:"id"`
	HallID   int64  `db:"hall_id"`
	ZoneID   int64  `db:"zone_id"`
	ZoneCode string `db:"zone_code"`
	Row      int    `db:"row_no"`
	Col      int    `db:"col_no"`
	Label    string `db:"label"`
	Kind     string `db:"kind"`
}

// Sellable reports whether the seat may ever be sold (it is not blocked).
func (s Seat) Sellable() bool { return s.Kind != KindBlocked }

// Hall is an auditorium with its fixed layout: Rows x Cols grid, its zones and seats.
type Hall struct {
	ID       int64  `db:"id"`
	CinemaID int64  `db:"cinema_id"`
	Name     string `db:"name"`
	Rows     int    `db:"rows_n"`
	Cols     int    `db:"cols_n"`
	Zones    []Zone `db:"-"`
	Seats    []Seat `db:"-"`
	byID     map[int64]*Seat
	pos      map[int64]int        // seat id -> its index in Seats
	rows     map[string][][]int32 // zone code -> its rows, nearest the sweet spot first (bestavailable.go), each its seats' indexes in column order
	// the single-seat rule's grid (seats/strand.go): a standard seat's standard
	// neighbours in its row (index in Seats, -1: aisle, gap, other kind or row end),
	// and per row number its runs of standard seats side by side
	left, right []int32
	runs        map[int][][]int32
	// best-available's bitsets (seats/free_bits.go): per zone and zone row (rows), bit p
	// set when seats p and p+1 of the row are side by side; and where each seat sits
	joined map[string][][]uint64
	cols   map[string][][]int32 // per zone row (rows), its seats' columns in order
	pen    map[string][]float64 // per zone row, its RowPenalty
	where  []RowPos
	memo   *rowMemo // RowMemo's strings, per row number
}

// rowMemo holds strings built once per hall and row (RowMemo).
type rowMemo struct {
	mu sync.Mutex
	m  map[int]string
}

// RowMemo returns build's string for row, built once per indexed hall (a hall is never
// changed once indexed: an edit makes a new one); a hall not indexed builds it each time.
func (h *Hall) RowMemo(row int, build func() string) string {
	if h.memo == nil {
		return build()
	}
	h.memo.mu.Lock()
	defer h.memo.mu.Unlock()
	if s, ok := h.memo.m[row]; ok {
		return s
	}
	s := build()
	h.memo.m[row] = s
	return s
}

// RowPos is where a seat sits among its zone's rows (Hall.ZoneRows): the zone, the row's
// index there and the seat's position in it.
type RowPos struct {
	Zone     string
	Row, Pos int32
}

// Seat returns the hall's seat with that id, or false.
func (h *Hall) Seat(id int64) (*Seat, bool) {
	s, ok := h.byID[id]
	return s, ok
}

// SeatIndex returns the index in Seats of the seat with that id, or false.
func (h *Hall) SeatIndex(id int64) (int, bool) {
	i, ok := h.pos[id]
	return i, ok
}

// ZoneRows returns the rows of a zone that best-available scans, nearest the sweet spot
// first, each the indexes in Seats of its seats in column order.
func (h *Hall) ZoneRows(zone string) [][]int32 { return h.rows[zone] }

// Index builds the hall's lookups: seats by id, and per zone the rows of seats in
// column order that best-available scans.
func (h *Hall) Index() {
	h.byID = make(map[int64]*Seat, len(h.Seats))
	h.pos = make(map[int64]int, len(h.Seats))
	for i := range h.Seats {
		h.byID[h.Seats[i].ID] = &h.Seats[i]
		h.pos[h.Seats[i].ID] = i
	}
	order := make([]int32, len(h.Seats))
	for i := range order {
		order[i] = int32(i)
	}
	sort.SliceStable(order, func(a, b int) bool {
		sa, sb := &h.Seats[order[a]], &h.Seats[order[b]]
		if sa.Row != sb.Row {
			return sa.Row < sb.Row
		}
		return sa.Col < sb.Col
	})
	h.indexRuns(order)
	h.memo = &rowMemo{m: map[int]string{}}
	h.rows = map[string][][]int32{}
	last := map[string]int{}
	for _, i := range order {
		s := &h.Seats[i]
		rows := h.rows[s.ZoneCode]
		if n := len(rows); n == 0 || last[s.ZoneCode] != s.Row {
			rows = append(rows, nil)
			last[s.ZoneCode] = s.Row
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], i)
		h.rows[s.ZoneCode] = rows
	}
	for _, rows := range h.rows {
		sort.SliceStable(rows, func(a, b int) bool {
			return h.RowPenalty(h.Seats[rows[a][0]].Row) < h.RowPenalty(h.Seats[rows[b][0]].Row)
		})
	}
	h.joined = make(map[string][][]uint64, len(h.rows))
	h.cols = make(map[string][][]int32, len(h.rows))
	h.pen = make(map[string][]float64, len(h.rows))
	h.where = make([]RowPos, len(h.Seats))
	for zone, rows := range h.rows {
		joined := make([][]uint64, len(rows))
		cols := make([][]int32, len(rows))
		pen := make([]float64, len(rows))
		for r, row := range rows {
			joined[r] = make([]uint64, (len(row)+63)/64)
			cols[r] = make([]int32, len(row))
			pen[r] = h.RowPenalty(h.Seats[row[0]].Row)
			for p, i := range row {
				cols[r][p] = int32(h.Seats[i].Col)
				h.where[i] = RowPos{Zone: zone, Row: int32(r), Pos: int32(p)}
				if p+1 < len(row) && h.Seats[row[p+1]].Col == h.Seats[i].Col+1 {
					joined[r][p/64] |= 1 << (p % 64)
				}
			}
		}
		h.joined[zone] = joined
		h.cols[zone] = cols
		h.pen[zone] = pen
	}
}

// ZoneRowCols returns, parallel to ZoneRows(zone), each row's seat columns in order
// (Seat.Col of each seat), kept apart from Seats so a scan of a row reads one small slice.
func (h *Hall) ZoneRowCols(zone string) [][]int32 { return h.cols[zone] }

// ZoneRowPenalties returns, parallel to ZoneRows(zone), each row's RowPenalty.
func (h *Hall) ZoneRowPenalties(zone string) []float64 { return h.pen[zone] }

// ZoneRowsJoined returns, parallel to ZoneRows(zone), each row's bitset of seats side by
// side: bit p is set when seats p and p+1 of the row have neighbouring columns.
func (h *Hall) ZoneRowsJoined(zone string) [][]uint64 { return h.joined[zone] }

// Where returns where the seat of index i sits among its zone's rows.
func (h *Hall) Where(i int32) RowPos { return h.where[i] }

// indexRuns links each standard seat to the standard seats right beside it in its row
// (order: every seat's index, by row then column) and groups them into runs.
func (h *Hall) indexRuns(order []int32) {
	h.left, h.right = make([]int32, len(h.Seats)), make([]int32, len(h.Seats))
	h.runs = map[int][][]int32{}
	prev := int32(-1)
	for _, i := range order {
		h.left[i], h.right[i] = -1, -1
		s := &h.Seats[i]
		if s.Kind != KindStandard {
			prev = -1
			continue
		}
		if prev >= 0 && h.Seats[prev].Row == s.Row && h.Seats[prev].Col == s.Col-1 {
			h.left[i], h.right[prev] = prev, i
			runs := h.runs[s.Row]
			runs[len(runs)-1] = append(runs[len(runs)-1], i)
		} else {
			h.runs[s.Row] = append(h.runs[s.Row], []int32{i})
		}
		prev = i
	}
}

// Beside returns the standard seats right beside seat index i in its row, as indexes in
// Seats (-1: none, i.e. an aisle, a gap, a seat of another kind or the row's end). A
// seat that is not standard has none: it never takes part in the single-seat rule.
func (h *Hall) Beside(i int32) (left, right int32) { return h.left[i], h.right[i] }

// Runs returns a row's runs of standard seats side by side (indexes in Seats, in column
// order), by row number (Seat.Row).
func (h *Hall) Runs(row int) [][]int32 { return h.runs[row] }

// RowPenalty is the part of a block's score its row gives: how far the row is from the
// sweet spot, about 60 % of the way back (weighted 1.5 against a column's distance).
func (h *Hall) RowPenalty(row int) float64 {
	return math.Abs(float64(row)-0.6*float64(h.Rows+1)) * 1.5
}

// Show is one screening of a movie in a hall. Times are UTC. PurchaseLimit is the
// number of seats one user may hold and own for this show.
type Show struct {
	ID            int64     `db:"id"`
	MovieID       int64     `db:"movie_id"`
	HallID        int64     `db:"hall_id"`
	StartsAt      time.Time `db:"starts_at"`
	SaleOpensAt   time.Time `db:"sale_opens_at"`
	SaleClosesAt  time.Time `db:"sale_closes_at"`
	Status        string    `db:"status"` // as read: StatusAt the time of reading (see StoredStatus)
	PurchaseLimit int       `db:"purchase_limit"`
	// SelfRefundUntilH is until how many hours before StartsAt a buyer may cancel a paid
	// order and get the money back (nil: not allowed; API.md "Refunds"); SelfRefundUntil.
	SelfRefundUntilH *int `db:"self_refund_until_h"`
	// WaitingRoom: only buyers the show's waiting room admitted may create orders;
	// AdmitPerMinute is its pace (API.md "Waiting room").
	WaitingRoom    bool `db:"waiting_room"`
	AdmitPerMinute int  `db:"admit_per_minute"`
	// RoomEpoch counts the times the room was turned on: admission tokens and
	// waiting-list places of an earlier epoch admit nobody.
	RoomEpoch int `db:"room_epoch"`
	// SingleSeatRule is off, warn or enforce (seats.Rule*; API.md "Seat rules and the
	// waiting list").
	SingleSeatRule string    `db:"single_seat_rule"`
	Currency       string    `db:"currency"`
	CreatedAt      time.Time `db:"created_at"`
	Movie          Movie     `db:"movie"`
	HallName       string    `db:"hall_name"`
	// CinemaID, CinemaName and TimeZone are the show's hall's cinema: its local dates
	// and times are in TimeZone (Loc), its prices in Currency (API.md "Cinemas").
	CinemaID   int64  `db:"cinema_id"`
	CinemaName string `db:"cinema_name"`
	TimeZone   string `db:"time_zone"`
	Zones      []Zone `db:"-"` // with this show's prices
	// TicketPrices are the show's prices of ticket types other than adult, per zone
	// (a type and zone without one is not sold).
	TicketPrices []TicketPrice `db:"-"`
	SeatsLeft    int           `db:"-"`
	// StoredStatus is the status column as stored; "" when Status was not derived.
	StoredStatus string `db:"-"`
}

// SelfRefundUntil returns the instant (UTC) until which (exclusive) buyers may cancel
// and refund a paid order of the show themselves, and false when the show allows none.
func (s *Show) SelfRefundUntil() (time.Time, bool) {
	if s.SelfRefundUntilH == nil {
		return time.Time{}, false
	}
	return s.StartsAt.Add(-time.Duration(*s.SelfRefundUntilH) * time.Hour), true
}

// Loc returns the time zone of the show's cinema (UTC when the show was read without it).
func (s *Show) Loc() *time.Location { return Location(s.TimeZone) }

// LocalDate returns the day the show starts on in its cinema's zone (YYYY-MM-DD).
func (s *Show) LocalDate() string { return s.StartsAt.In(s.Loc()).Format(time.DateOnly) }

// Stored is the show's stored status: StoredStatus, or Status when it was not derived.
func (s *Show) Stored() string {
	if s.StoredStatus != "" {
		return s.StoredStatus
	}
	return s.Status
}

// StatusAt returns the show's status at t (one of the Show* constants): draft and
// cancelled as stored; otherwise scheduled before sale_opens_at, on_sale from then until
// sale_closes_at, closed from then on, with no action by anyone. A show held back from
// sale is a draft.
func (s *Show) StatusAt(t time.Time) string {
	st := s.Stored()
	switch {
	case st == ShowDraft || st == ShowCancelled:
		return st
	case !t.Before(s.SaleClosesAt):
		return ShowClosed
	case t.Before(s.SaleOpensAt):
		return ShowScheduled
	}
	return ShowOnSale
}

// DeriveStatus keeps the stored status in StoredStatus and sets Status to StatusAt(t).
func (s *Show) DeriveStatus(t time.Time) {
	s.StoredStatus = s.Stored()
	s.Status = s.StatusAt(t)
}

// CopyAt returns a copy of the show (its zones too) with its status derived at t, so a
// cached show can be filled in and handed out without touching the cached one.
func (s *Show) CopyAt(t time.Time) *Show {
	c := *s
	c.Zones = append([]Zone(nil), s.Zones...)
	c.TicketPrices = append([]TicketPrice(nil), s.TicketPrices...)
	c.DeriveStatus(t)
	return &c
}

// OnSaleAt reports whether the show accepts orders at t: StatusAt(t) is on_sale, so
// sale_opens_at <= t < sale_closes_at (API.md, Browsing).
func (s *Show) OnSaleAt(t time.Time) bool {
	return s.StatusAt(t) == ShowOnSale
}

// ZonePrice returns the show's price of a zone in minor units, or false.
func (s *Show) ZonePrice(code string) (int64, bool) {
	for _, z := range s.Zones {
		if z.Code == code {
			return z.PriceMinor, true
		}
	}
	return 0, false
}

// OrderSeat is one seat of an order with the price it was sold at (minor units).
type OrderSeat struct {
	SeatID   int64  `db:"seat_id" json:"-"`
	Label    string `db:"label" json:"-"`
	ZoneCode string `db:"zone_code" json:"-"`
	// TicketType is the type the seat was sold as (TicketAdult for orders before types).
	TicketType string `db:"ticket_type" json:"-"`
	PriceMinor int64  `db:"price_minor" json:"-"`
	// DiscountMinor is what the order's voucher took off this seat (PriceMinor is the
	// discounted price); nil when the voucher does not cover it or there is none.
	DiscountMinor *int64 `db:"discount_minor" json:"-"`
	// Refunded: the seat was given back by a refund (refund_seats), RefundedMinor the
	// money it returned (its PriceMinor). A refunded seat is no longer the order's.
	Refunded      bool  `db:"refunded" json:"-"`
	RefundedMinor int64 `db:"refunded_minor" json:"-"`
}

// ListPriceMinor is the seat's price before the order's voucher (minor units): its
// PriceMinor plus what the voucher took off it, PriceMinor when none did.
func (s OrderSeat) ListPriceMinor() int64 {
	if s.DiscountMinor == nil {
		return s.PriceMinor
	}
	return s.PriceMinor + *s.DiscountMinor
}

// Order is a buyer's order of seats for one show. Money in minor units, times in UTC.
type Order struct {
	ID         int64      `db:"id"`
	OrderNo    string     `db:"order_no"`
	UserID     int64      `db:"user_id"`
	ShowID     int64      `db:"show_id"`
	Status     string     `db:"status"`
	TotalMinor int64      `db:"total_minor"`
	Currency   string     `db:"currency"`
	CreatedAt  time.Time  `db:"created_at"`
	ExpiresAt  time.Time  `db:"expires_at"`
	PaidAt     *time.Time `db:"paid_at"`
	// VoucherID is the voucher the order used (nil: none); DiscountMinor its saving,
	// the sum of its seats' discounts (TotalMinor is after it). Voucher is its code,
	// when the order was read through the orders service or created with it.
	VoucherID     *int64     `db:"voucher_id"`
	DiscountMinor int64      `db:"discount_minor"`
	Voucher       string     `db:"-" json:"-"`
	CancelledAt   *time.Time `db:"cancelled_at"`
	CancelReason  *string    `db:"cancel_reason"`
	// Channel is where the order was sold (ChannelOnline, ChannelBoxOffice) and SoldBy
	// the staff member who sold it at the counter (nil online). A counter sale to a
	// walk-in has no buyer account: UserID is WalkIn (NULL in MySQL).
	Channel string `db:"channel"`
	SoldBy  *int64 `db:"sold_by"`
	// RefundedMinor is the money all refunds of the order gave back so far (minor
	// units; the sum of its seats' RefundedMinor, set with Seats). Not stored.
	RefundedMinor int64 `db:"-" json:"-"`
	Seats         []OrderSeat
	HoldMark      string `db:"-" json:"-"` // the per-user counts' marker its hold saw (orders/limit_check.go)
	// IdempotencyKey is the Idempotency-Key the order is created with ("" none) and
	// RequestHash the SHA-256 of that request: written with the order (orders.idem_key,
	// idem_hash), read only by a replay (store.IdempotencyKeySince).
	IdempotencyKey string `db:"-" json:"-"`
	RequestHash    []byte `db:"-" json:"-"`
	// Stranded names the seats this order left as lone empty seats when it was created
	// (labels; the single-seat rule's warn, or a best-available fallback). Not stored.
	Stranded []string `db:"-" json:"-"`
	// End is why the order ended (DecideEndReason), nil while it is pending or paid or
	// when it was not read through the orders service. Not stored.
	End *EndReason `db:"-" json:"-"`
}

// Sales channels of an order (orders.channel).
const (
	ChannelOnline    = "online"
	ChannelBoxOffice = "box_office"
)

// WalkIn is the UserID of an order with no buyer account (a counter sale to a walk-in;
// orders.user_id NULL, read as 0). No account has it, so no buyer reads such an order.
const WalkIn int64 = 0

// KeptSeats returns the order's seats no refund gave back.
func (o *Order) KeptSeats() []OrderSeat {
	kept := make([]OrderSeat, 0, len(o.Seats))
	for _, s := range o.Seats {
		if !s.Refunded {
			kept = append(kept, s)
		}
	}
	return kept
}

// Live reports whether the order still occupies its seats (pending or paid).
func (o *Order) Live() bool { return o.Status == OrderPending || o.Status == OrderPaid }
