package invariants

import (
	"fmt"
	"hash/maphash"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/anishathalye/porcupine"

	"seatflow/services"
)

// The sequential model the linearizability check (linearizable_test.go) holds histories
// against: one show, in two layers that the system keeps apart on purpose.
//
//   - The truth (MySQL, DESIGN.md invariant 3): each seat of the show is in the hall or
//     not, a house seat or not, and belongs to at most one live order; each order is
//     pending, paid, cancelled, expired or refunded, and moves only along
//     pending -> paid | cancelled | expired and paid -> refunded (invariant 5); a buyer
//     holds and owns at most the purchase limit (invariant 2); a batch is taken whole
//     or not at all. Every client operation is one step of this layer, linearized at one
//     point between its invocation and its response.
//   - The seat cache (Redis): the show's three hashes and its fence, written only by the
//     Lua scripts of package lua. Each script run is one step, linearized inside its own
//     round trip (recorded by a client hook), and the model runs a Go port of the script
//     on the modelled hashes: its reply must be the one the real script gave. A hold that
//     answers OK for a batch with a taken seat is therefore illegal.
//   - The catalog's cached copy of the hall: a hall edit commits in MySQL, then drops the
//     cached hall, both inside its call (two steps, in that order). A refusal made from
//     the cached hall (SEAT_NOT_IN_SHOW before the hold, NOT_FOUND of a staff release)
//     may see either until the edit returns, never later.
//
// The cache may lag the truth within an operation (a cancel commits in MySQL, then
// releases in Redis; a hold writes Redis, then commits), so the two layers are not
// required to agree at every instant; reads check each layer by itself. They meet where
// the system decides: a refusal is legal when the layer that can give it shows its
// reason at the refusal's linearization point (SEAT_TAKEN needs a seat that is not free
// in the cache or live in MySQL), and an order commits only after its hold ran.

// lzKind names a step of a history.
type lzKind int

const (
	lzInit            lzKind = iota // the show as the history starts (first in every partition)
	lzAdvance                       // the test clock moves lzEpochMinutes (nothing in flight)
	lzFlush                         // FLUSHDB of the test Redis database (every show)
	lzCreate                        // Orders.Create: chosen seats or best-available
	lzPayStart                      // Payments.Start
	lzPayApprove                    // the provider's approval webhook (Payments.DemoDecide)
	lzCancel                        // Orders.Cancel by the buyer
	lzExpire                        // Orders.Expire, as the expiry task calls it
	lzRefund                        // StaffOrders.Refund
	lzRelease                       // ShowSeats.Release: staff free a seat
	lzBlock                         // ShowSeats.Block: house seats
	lzUnblock                       // ShowSeats.Unblock
	lzEdit                          // CatalogWriter.UpdateHall: the hall in MySQL
	lzEditListed                    // the same edit reaching the catalog's cached hall
	lzReconcileExpire               // one overdue order a reconciliation run tried to expire
	lzReadDB                        // one consistent MySQL snapshot of the show
	lzReadCache                     // the show's seat map (SeatStore.States) or all three hashes (ReadCache)
	lzScript                        // one run of a seat script in Redis
	lzRefundSeats                   // StaffOrders.RefundSeats: some seats of an order
	lzExchange                      // Orders.Exchange: the buyer moves an order onto other seats
)

var lzKindNames = [...]string{"init", "advance", "flush", "create", "pay-start", "pay-approve", "cancel", "expire",
	"refund", "release", "block", "unblock", "hall-edit", "hall-edit-listed", "reconcile-expire", "read-db", "read-cache", "script", "refund-seats",
	"exchange"}

// Order statuses as the model stores them (0: no such order in MySQL).
const (
	lzPending   = 'p'
	lzPaid      = 'a'
	lzCancelled = 'c'
	lzExpired   = 'e'
	lzRefunded  = 'r'
)

var lzStatusOf = map[string]byte{services.OrderPending: lzPending, services.OrderPaid: lzPaid,
	services.OrderCancelled: lzCancelled, services.OrderExpired: lzExpired, services.OrderRefunded: lzRefunded}

// lzStatusName is the order status a model status byte stands for.
func lzStatusName(b byte) string {
	for k, v := range lzStatusOf {
		if v == b {
			return k
		}
	}
	return "none"
}

// lzIn is one step's input, already mapped onto the world's indexes.
type lzIn struct {
	kind   lzKind
	show   int64  // the partition; 0: every show
	user   int    // user index
	order  int    // order index, -1 when none
	seats  []int  // seat indexes: the chosen seats, house seats, a released seat, the hall at init
	zone   string // best-available: zone and quantity
	qty    int
	drop   []string // hall edit: labels the new layout drops
	script string   // lzScript: hold, release, sell, load, repair, house
	argv   []string
}

// lzOut is what the step answered.
type lzOut struct {
	code      string // error code; "" for success
	msg       string
	order     int   // create: the order made
	seats     []int // create: its seats; hall edit: the hall's seats after it
	status    byte  // ORDER_STATE: the status the answer names (0: not named)
	won       bool  // expire
	payStatus string
	action    string // release

	dbHall, dbHouse []int
	dbLive          map[int]int  // seat index -> order index
	dbStatus        map[int]byte // order index -> status

	cacheMissing                       bool // the seats hash does not exist
	cacheSeats, cacheZones, cacheUsers map[string]string
	counters                           bool // cacheZones and cacheUsers were read too

	reply []string
}

// lzWorld is what every step may look up: the seats (their hall cell and label), the
// orders (their buyer) and the users met in the history, and the purchase limit.
type lzWorld struct {
	seatIDs  []int64
	seatIdx  map[int64]int
	seat     []services.Seat
	orderNos []string
	orderIdx map[string]int
	orderUsr []int // user index, -1 when unknown
	userIDs  []int64
	userIdx  map[int64]int
	limit    int
	label    map[string]string // order number -> short name for the visualisation
}

// newLzWorld returns an empty world with the show's purchase limit (seats per buyer).
func newLzWorld(limit int) *lzWorld {
	return &lzWorld{seatIdx: map[int64]int{}, orderIdx: map[string]int{}, userIdx: map[int64]int{}, limit: limit,
		label: map[string]string{}}
}

// seatOf returns the seat's index, adding it; a seat read from a hall records its cell
// and label.
func (w *lzWorld) seatOf(s services.Seat) int {
	if i, ok := w.seatIdx[s.ID]; ok {
		if s.Label != "" {
			w.seat[i] = s
		}
		return i
	}
	w.seatIdx[s.ID] = len(w.seatIDs)
	w.seatIDs = append(w.seatIDs, s.ID)
	w.seat = append(w.seat, s)
	return len(w.seatIDs) - 1
}

// seatID returns the index of the seat with that id, adding it.
func (w *lzWorld) seatID(id int64) int { return w.seatOf(services.Seat{ID: id}) }

// orderOf returns the order's index, adding it with its buyer (user index, -1: unknown).
func (w *lzWorld) orderOf(no string, user int) int {
	if i, ok := w.orderIdx[no]; ok {
		if user >= 0 && w.orderUsr[i] < 0 {
			w.orderUsr[i] = user
		}
		return i
	}
	w.orderIdx[no] = len(w.orderNos)
	w.orderNos = append(w.orderNos, no)
	w.orderUsr = append(w.orderUsr, user)
	w.label[no] = "#" + strconv.Itoa(len(w.orderNos)-1)
	return len(w.orderNos) - 1
}

// userOf returns the user's index, adding it.
func (w *lzWorld) userOf(id int64) int {
	if i, ok := w.userIdx[id]; ok {
		return i
	}
	w.userIdx[id] = len(w.userIDs)
	w.userIDs = append(w.userIDs, id)
	return len(w.userIDs) - 1
}

// lzState is the model's state of one show. It is never changed once made (porcupine
// needs a pure step function); key is its canonical text.
type lzState struct {
	ready  bool
	epoch  int
	inHall []bool  // truth, by seat index
	listed []bool  // in the hall as the catalog's cached copy has it
	house  []bool  // truth
	owner  []int32 // truth: live order index + 1, 0: none
	// by order index, shared between states until a step changes them (setStatus...)
	status []byte  // truth
	born   []int16 // the epoch an order was created in
	held   []bool  // the order's hold script answered OK (it may commit now)
	// refunded: the seats (a bit per seat index) a refund of some seats took from the
	// order, which an exchange may not name; had: every seat the order ever had (a row
	// of it, live or not), which a refund of seats may name (ORDER_STATE when no longer
	// live; a seat it never had is INVALID_REQUEST)
	refunded, had []uint64
	ordersOwned   bool
	// the seat cache: the show's three hashes ("_" markers included) and its fence,
	// shared between states until a step changes them (ownCache)
	seats, zones, users map[string]string
	fence               string
	// canonical texts of the parts (the orders' and the cache's "" while being changed)
	// and the state's hash, which Equal and Hash use (seal)
	seatsKey, ordersKey, cacheKey string
	hash                          uint64
}

// clone copies the state for a step; the orders and the seat cache stay shared until a
// step changes them.
func (s *lzState) clone() *lzState {
	n := *s
	n.inHall = append([]bool(nil), s.inHall...)
	n.listed = append([]bool(nil), s.listed...)
	n.house = append([]bool(nil), s.house...)
	n.owner = append([]int32(nil), s.owner...)
	n.ordersOwned = false
	return &n
}

// ownOrders gives the state order arrays of its own, before a step writes to them.
func (s *lzState) ownOrders() {
	if s.ordersOwned {
		return
	}
	s.status = append([]byte(nil), s.status...)
	s.born = append([]int16(nil), s.born...)
	s.held = append([]bool(nil), s.held...)
	s.refunded = append([]uint64(nil), s.refunded...)
	s.had = append([]uint64(nil), s.had...)
	s.ordersOwned, s.ordersKey = true, ""
}

func (s *lzState) setStatus(o int, st byte) { s.ownOrders(); s.status[o] = st }

func (s *lzState) setBorn(o int, epoch int) { s.ownOrders(); s.born[o] = int16(epoch) }

func (s *lzState) setHeld(o int) { s.ownOrders(); s.held[o] = true }

// ownCache gives the state a seat cache of its own, before a step writes to it.
func (s *lzState) ownCache() {
	s.seats, s.zones, s.users = copyMap(s.seats), copyMap(s.zones), copyMap(s.users)
	s.cacheKey = ""
}

// copyMap returns a copy of a modelled Redis hash.
func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// lzHashSeed seeds the states' hashes.
var lzHashSeed = maphash.MakeSeed()

// seal computes the state's canonical texts, re-encoding only the parts a step changed,
// and its hash.
func (s *lzState) seal() *lzState {
	flag := func(v bool) byte {
		if v {
			return '1'
		}
		return '0'
	}
	b := make([]byte, 0, 8*len(s.inHall))
	for i := range s.inHall {
		b = append(b, flag(s.inHall[i]), flag(s.listed[i]), flag(s.house[i]))
		b = strconv.AppendInt(b, int64(s.owner[i]), 10)
		b = append(b, ',')
	}
	s.seatsKey = string(b)
	if s.ordersKey == "" {
		b = b[:0]
		for i := range s.status {
			if s.status[i] != 0 || s.held[i] {
				b = strconv.AppendInt(b, int64(i), 10)
				b = append(b, ':', s.status[i]+'0', flag(s.held[i]))
				b = strconv.AppendInt(b, int64(s.born[i]), 10)
				b = append(b, '/')
				b = strconv.AppendUint(b, s.refunded[i], 36)
				b = append(b, '/')
				b = strconv.AppendUint(b, s.had[i], 36)
				b = append(b, ',')
			}
		}
		s.ordersKey = "o" + string(b) // never "" once sealed
	}
	if s.cacheKey == "" {
		var c []byte
		for _, m := range []map[string]string{s.seats, s.zones, s.users} {
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				c = append(c, k...)
				c = append(c, '=')
				c = append(c, m[k]...)
				c = append(c, ';')
			}
			c = append(c, '|')
		}
		s.cacheKey = string(append(c, s.fence...))
	}
	h := maphash.String(lzHashSeed, s.seatsKey)
	h = h*31 + maphash.String(lzHashSeed, s.ordersKey)
	h = h*31 + maphash.String(lzHashSeed, s.cacheKey)
	s.hash = h*31 + uint64(s.epoch)*2 + uint64(flag(s.ready)-'0')
	return s
}

// equal reports whether two sealed states are the same.
func (s *lzState) equal(o *lzState) bool {
	return s.hash == o.hash && s.ready == o.ready && s.epoch == o.epoch && s.seatsKey == o.seatsKey &&
		s.ordersKey == o.ordersKey && s.cacheKey == o.cacheKey
}

// lzEpochMinutes is how far the clock moves at a barrier (16 minutes, DESIGN.md §1): an order
// made in epoch e is past its deadline (creation + 15 min) from epoch e+1 on, and an
// approval is still taken within PaymentGrace (2 min) of the deadline, so in epoch e+1
// only: 16 < 15 + 2 < 32.
const lzEpochMinutes = 16

// overdue reports whether order o is past its deadline (made in an earlier epoch).
func (s *lzState) overdue(o int) bool { return s.epoch > int(s.born[o]) }

// payable reports whether an approval of order o is still taken: at most one epoch
// old, within deadline + PaymentGrace.
func (s *lzState) payable(o int) bool { return s.epoch-int(s.born[o]) <= 1 }

// lzModel returns the porcupine model over w, partitioned by show.
func lzModel(w *lzWorld) porcupine.Model {
	return porcupine.Model{
		Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
			byShow := map[int64][]porcupine.Operation{}
			var shows []int64
			for _, op := range history {
				if in := op.Input.(*lzIn); in.kind == lzInit {
					shows = append(shows, in.show)
				}
			}
			for _, op := range history {
				in := op.Input.(*lzIn)
				if in.show != 0 {
					byShow[in.show] = append(byShow[in.show], op)
					continue
				}
				for _, sh := range shows {
					byShow[sh] = append(byShow[sh], op)
				}
			}
			sort.Slice(shows, func(i, j int) bool { return shows[i] < shows[j] })
			out := make([][]porcupine.Operation, 0, len(shows))
			for _, sh := range shows {
				out = append(out, byShow[sh])
			}
			return out
		},
		Init: func() interface{} { return (&lzState{}).seal() },
		Step: func(state, input, output interface{}) (bool, interface{}) {
			s := state.(*lzState)
			next, ok := lzStep(w, s, input.(*lzIn), output.(*lzOut))
			if !ok {
				return false, s
			}
			return true, next.seal()
		},
		Equal:             func(a, b interface{}) bool { return a.(*lzState).equal(b.(*lzState)) },
		Hash:              func(st interface{}) uint64 { return st.(*lzState).hash },
		DescribeOperation: func(input, output interface{}) string { return lzDescribe(w, input.(*lzIn), output.(*lzOut)) },
		DescribeState:     func(st interface{}) string { return lzDescribeState(w, st.(*lzState)) },
	}
}

// lzStep is the model's transition: whether a step with this input could have given
// this output in state s, and the state after it. s is never changed.
func lzStep(w *lzWorld, s *lzState, in *lzIn, out *lzOut) (*lzState, bool) {
	if in.kind == lzInit {
		if s.ready {
			return nil, false
		}
		if len(w.seatIDs) > 64 {
			panic(fmt.Sprintf("a show of the history has %d seat ids; the model's refunded sets hold 64", len(w.seatIDs)))
		}
		n := &lzState{ready: true, inHall: make([]bool, len(w.seatIDs)), listed: make([]bool, len(w.seatIDs)), house: make([]bool, len(w.seatIDs)),
			owner: make([]int32, len(w.seatIDs)), status: make([]byte, len(w.orderNos)), born: make([]int16, len(w.orderNos)),
			held: make([]bool, len(w.orderNos)), refunded: make([]uint64, len(w.orderNos)), had: make([]uint64, len(w.orderNos)), seats: map[string]string{}, zones: map[string]string{}, users: map[string]string{}}
		for _, i := range in.seats {
			n.inHall[i], n.listed[i] = true, true
		}
		return n, true
	}
	if !s.ready {
		return nil, false
	}
	n := s.clone()
	switch in.kind {
	case lzAdvance:
		n.epoch++
		return n, true
	case lzFlush:
		n.seats, n.zones, n.users, n.fence, n.cacheKey = map[string]string{}, map[string]string{}, map[string]string{}, "", ""
		return n, true
	case lzCreate:
		return n, lzCreateStep(w, n, in, out)
	case lzPayStart:
		o := in.order
		if n.status[o] == lzPending && n.overdue(o) { // Start reads the order through Get, which expires it
			n.setStatus(o, lzExpired)
			n.freeSeatsOf(o)
		}
		if n.status[o] == lzPending {
			return n, out.code == ""
		}
		return n, out.code == services.CodeOrderState && (out.status == 0 || out.status == n.status[o])
	case lzPayApprove:
		o := in.order
		paid := false
		switch {
		case n.status[o] == lzPending && n.payable(o):
			n.setStatus(o, lzPaid)
			paid = true
		case n.status[o] == lzPending && n.overdue(o): // refunded, and the order expired now
			n.setStatus(o, lzExpired)
			n.freeSeatsOf(o)
		}
		if out.code != "" {
			return n, false
		}
		// "approved" proves the order was paid; "refunded" is either a late approval or
		// a paid order refunded by staff since
		return n, out.payStatus == "refunded" || (out.payStatus == "approved" && paid)
	case lzCancel:
		o := in.order
		switch {
		case n.status[o] == lzPending && n.overdue(o):
			n.setStatus(o, lzExpired)
			n.freeSeatsOf(o)
		case n.status[o] == lzPending:
			n.setStatus(o, lzCancelled)
			n.freeSeatsOf(o)
		}
		if n.status[o] == lzCancelled {
			return n, out.code == ""
		}
		return n, out.code == services.CodeOrderState && (out.status == 0 || out.status == n.status[o])
	case lzExpire, lzReconcileExpire:
		o := in.order
		won := n.status[o] == lzPending && n.overdue(o)
		if won {
			n.setStatus(o, lzExpired)
			n.freeSeatsOf(o)
		}
		return n, out.code == "" && out.won == won
	case lzRefund:
		o := in.order
		if n.status[o] == lzPaid {
			n.setStatus(o, lzRefunded)
			n.freeSeatsOf(o)
			return n, out.code == ""
		}
		// only the code: the message names the status read again after the refund
		// declined, which a payment may have changed in between ("the order is paid and
		// cannot be refunded" for an order that was pending when the refund looked)
		return n, out.code == services.CodeOrderState
	case lzRefundSeats:
		// a paid order gives back those of its seats it still owns; its last ones end it.
		// A seat it does not own is refused: INVALID_REQUEST when it was never the
		// order's (the client's list of the order's seats may predate an exchange),
		// ORDER_STATE when a refund took it before; a seat an exchange took away is not
		// the order's (INVALID_REQUEST), or ended (ORDER_STATE) to a refund that read the
		// order before the exchange committed
		o := in.order
		if n.status[o] != lzPaid {
			return n, out.code == services.CodeOrderState
		}
		foreign, ended, moved := false, false, false
		for _, s := range in.seats {
			switch {
			case n.owner[s] == int32(o+1):
			case n.refunded[o]&(1<<s) != 0:
				ended = true
			case n.had[o]&(1<<s) != 0:
				moved = true
			default:
				foreign = true
			}
		}
		switch {
		case foreign:
			return n, out.code == services.CodeInvalidRequest
		case moved && out.code == services.CodeInvalidRequest:
			return n, true
		case ended || moved:
			return n, out.code == services.CodeOrderState
		}
		n.ownOrders()
		for _, s := range in.seats {
			n.owner[s] = 0
			n.refunded[o] |= 1 << s
		}
		if !slices.Contains(n.owner, int32(o+1)) {
			n.setStatus(o, lzRefunded)
		}
		return n, out.code == ""
	case lzRelease:
		return n, lzReleaseStep(w, n, in, out)
	case lzBlock, lzUnblock:
		return n, lzHouseStep(w, n, in, out)
	case lzEdit:
		return n, lzEditStep(w, n, in, out)
	case lzEditListed:
		// the edit drops the catalog's cached hall after its commit, inside its call
		copy(n.listed, n.inHall)
		return n, sameSet(out.seats, trueIndexes(n.inHall))
	case lzReadDB:
		return n, lzReadDBStep(n, out)
	case lzReadCache:
		return n, lzReadCacheStep(n, out)
	case lzScript:
		return n, lzScriptStep(w, n, in, out)
	case lzExchange:
		return n, lzExchangeStep(w, n, in, out)
	}
	return nil, false
}

// lzExchangeStep is an exchange, linearized at its MySQL commit (the order's row is locked
// from before its script to the commit, so no transition of the order falls between).
// An overdue pending order is expired first (the exchange reads it through Get). Success:
// the order is live, the request names as many seats as it owns, not all of them, and
// the others are seats of the hall in no live order and no house seats; then the seats it
// lets go are free in the truth and the new ones its. A refusal needs its reason: ended
// or overdue (ORDER_STATE), another count or nothing changing (INVALID_REQUEST), a seat
// out of the (cached) hall (SEAT_NOT_IN_SHOW), a new seat not free in the cache or owned
// or kept in MySQL (SEAT_TAKEN), a zone counter below the seats asked (SOLD_OUT).
func lzExchangeStep(w *lzWorld, n *lzState, in *lzIn, out *lzOut) bool {
	o := in.order
	if n.status[o] == lzPending && n.overdue(o) {
		n.setStatus(o, lzExpired)
		n.freeSeatsOf(o)
	}
	live := n.status[o] == lzPending || n.status[o] == lzPaid
	var owned []int
	for i, ow := range n.owner {
		if ow == int32(o+1) {
			owned = append(owned, i)
		}
	}
	mine := map[int]bool{}
	for _, i := range owned {
		mine[i] = true
	}
	var fresh []int
	for _, i := range in.seats {
		if !mine[i] {
			fresh = append(fresh, i)
		}
	}
	switch out.code {
	case "":
		if !live || len(in.seats) != len(owned) || len(fresh) == 0 || !sameSet(out.seats, in.seats) {
			return false
		}
		for _, i := range fresh {
			if !n.inHall[i] || n.house[i] || n.owner[i] != 0 {
				return false
			}
		}
		for _, i := range owned {
			n.owner[i] = 0
		}
		n.ownOrders()
		for _, i := range in.seats {
			n.owner[i] = int32(o + 1)
			n.had[o] |= 1 << i
		}
		return true
	case services.CodeUnavailable:
		// a deadlock victim (or a lock wait timeout) whose cache step could not be given
		// back, so it was not run again: nothing was written in MySQL; the cache's steps
		// (the script, the give-back, the new seats freed) are steps of their own
		return strings.Contains(out.msg, "Deadlock found") || strings.Contains(out.msg, "Lock wait timeout")
	case services.CodeOrderState:
		return !live
	case services.CodeInvalidRequest:
		// another count, nothing changing, or a seat a refund took from the order
		return live && (len(in.seats) != len(owned) || len(fresh) == 0 || refundedFrom(n, o, in.seats))
	case services.CodeSeatNotInShow:
		for _, i := range in.seats {
			if !n.inHall[i] || !n.listed[i] {
				return true
			}
		}
	case services.CodeSeatTaken:
		for _, i := range fresh {
			if n.cacheTaken(w, i) || n.owner[i] != 0 || n.house[i] {
				return true
			}
		}
	case services.CodeSoldOut:
		for _, i := range fresh {
			if v, ok := n.zones[w.seat[i].ZoneCode]; ok && atoi(v) < len(fresh) {
				return true
			}
		}
	}
	return false
}

// refundedFrom reports whether a refund of some seats took one of seats from order o.
func refundedFrom(n *lzState, o int, seats []int) bool {
	for _, s := range seats {
		if n.refunded[o]&(1<<s) != 0 {
			return true
		}
	}
	return false
}

// freeSeatsOf ends the truth of an order's seats (live = NULL with its status change).
func (s *lzState) freeSeatsOf(o int) {
	for i := range s.owner {
		if s.owner[i] == int32(o+1) {
			s.owner[i] = 0
		}
	}
}

// truthCount is the number of seats the user holds or owns in MySQL (live seats).
func (s *lzState) truthCount(w *lzWorld, user int) int {
	n := 0
	for _, o := range s.owner {
		if o != 0 && w.orderUsr[o-1] == user {
			n++
		}
	}
	return n
}

// atoi reads a counter as Redis does for HINCRBY (missing: 0).
func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// cacheTaken reports whether the seat cache shows the seat as anything but free (a hold,
// a sale or blocked); a missing field is "not loaded", which the scripts load first.
func (s *lzState) cacheTaken(w *lzWorld, seat int) bool {
	v, ok := s.seats[strconv.FormatInt(w.seatIDs[seat], 10)]
	return ok && v != "F"
}

// cacheFree reports whether the seat cache shows the seat free ("F").
func (s *lzState) cacheFree(w *lzWorld, seat int) bool {
	return s.seats[strconv.FormatInt(w.seatIDs[seat], 10)] == "F"
}

// lzCreateStep is an order attempt. Success: the hold ran for this order, and the seats
// are in the hall, live in no order and no house seats, within the purchase limit (for
// best-available: quantity seats side by side in one row of the zone). A refusal needs
// its reason in the layer that gives it.
func lzCreateStep(w *lzWorld, n *lzState, in *lzIn, out *lzOut) bool {
	best := in.zone != ""
	if out.code == "" {
		o := out.order
		if o < 0 || !n.held[o] || n.status[o] != 0 || len(out.seats) == 0 {
			return false
		}
		if best && (len(out.seats) != in.qty || !lzSideBySide(w, out.seats, in.zone)) {
			return false
		}
		if !best && !sameSet(out.seats, in.seats) {
			return false
		}
		for _, i := range out.seats {
			if !n.inHall[i] || n.owner[i] != 0 || n.house[i] {
				return false
			}
		}
		if n.truthCount(w, in.user)+len(out.seats) > w.limit {
			return false
		}
		n.ownOrders()
		for _, i := range out.seats {
			n.owner[i] = int32(o + 1)
			n.had[o] |= 1 << i
		}
		n.setStatus(o, lzPending)
		n.setBorn(o, n.epoch)
		return true
	}
	want := len(in.seats)
	if best {
		want = in.qty
	}
	cacheCount := atoi(n.users[strconv.FormatInt(w.userIDs[in.user], 10)])
	switch out.code {
	case services.CodeUnavailable:
		// "seat map not loaded" after its loads: the map is there but has no field for a
		// chosen seat, which a hall edit put back and whose refresh of the map has not run
		// yet (the loads filled in the hall as cached before the edit); nothing was written
		if best || !strings.Contains(out.msg, "seat map not loaded") || len(n.seats) == 0 {
			return false
		}
		for _, i := range in.seats {
			if _, ok := n.seats[strconv.FormatInt(w.seatIDs[i], 10)]; !ok {
				return true
			}
		}
		return false
	case services.CodeLimitExceeded:
		return want > w.limit || cacheCount+want > w.limit || n.truthCount(w, in.user)+want > w.limit
	case services.CodeSeatNotInShow:
		if best { // a block picked from a hall read just before an edit took a seat of it away
			for i := range n.inHall {
				if (!n.inHall[i] || !n.listed[i]) && w.seat[i].ZoneCode == in.zone {
					return true
				}
			}
			return false
		}
		for _, i := range in.seats { // the cached hall (checkSeatsInShow) or MySQL at the commit
			if !n.inHall[i] || !n.listed[i] {
				return true
			}
		}
		return false
	case services.CodeSeatTaken:
		if best { // only MySQL's unique key answers this for best-available: Redis lost a hold
			// (a seat owned in MySQL looks free in the cache; or, after a flush, the order's
			// own hold was lost and another order took the seat, committing first)
			for i := range n.owner {
				if n.owner[i] != 0 && (n.cacheFree(w, i) || n.epoch > 0) {
					return true
				}
			}
			return false
		}
		for _, i := range in.seats {
			if n.cacheTaken(w, i) || n.owner[i] != 0 {
				return true
			}
		}
		return false
	case services.CodeSoldOut:
		need := map[string]int{}
		if best {
			need[in.zone] = in.qty
			free := 0
			for i := range n.inHall {
				if n.listed[i] && w.seat[i].ZoneCode == in.zone && n.cacheFree(w, i) {
					free++
				}
			}
			if free < in.qty {
				return true
			}
		} else {
			for _, i := range in.seats {
				need[w.seat[i].ZoneCode]++
			}
		}
		for z, k := range need {
			if v, ok := n.zones[z]; ok && atoi(v) < k {
				return true
			}
		}
		return false
	case services.CodeNoAdjacentSeats:
		// after four holds lost to other buyers the create gives up as documented
		return best && (strings.Contains(out.msg, "selling fast") || !lzHasBlock(w, n, n.listed, in.zone, in.qty))
	}
	return false
}

// trueIndexes lists the indexes where b is true.
func trueIndexes(b []bool) []int {
	var out []int
	for i, x := range b {
		if x {
			out = append(out, i)
		}
	}
	return out
}

// sameSet reports whether a and b hold the same indexes (no duplicates in either).
func sameSet(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[int]bool{}
	for _, x := range a {
		m[x] = true
	}
	for _, x := range b {
		if !m[x] {
			return false
		}
	}
	return true
}

// lzSideBySide reports whether the seats are in one row of the zone, in consecutive
// columns (best_available.go: no aisle between them).
func lzSideBySide(w *lzWorld, seats []int, zone string) bool {
	cols := make([]int, 0, len(seats))
	for _, i := range seats {
		st := w.seat[i]
		if st.Row != w.seat[seats[0]].Row || st.ZoneCode != zone || st.Kind != services.KindStandard {
			return false
		}
		cols = append(cols, st.Col)
	}
	sort.Ints(cols)
	for k := 1; k < len(cols); k++ {
		if cols[k] != cols[k-1]+1 {
			return false
		}
	}
	return true
}

// lzHasBlock reports whether qty free standard seats of the hall stand side by side in
// one row of the zone in the seat cache.
func lzHasBlock(w *lzWorld, n *lzState, hall []bool, zone string, qty int) bool {
	free := map[[2]int]bool{}
	for i := range hall {
		st := w.seat[i]
		if hall[i] && st.ZoneCode == zone && st.Kind == services.KindStandard && n.cacheFree(w, i) {
			free[[2]int{st.Row, st.Col}] = true
		}
	}
	for cell := range free {
		k := 0
		for free[[2]int{cell[0], cell[1] + k}] {
			k++
		}
		if k >= qty {
			return true
		}
	}
	return false
}

// lzReleaseStep is a staff release of a seat the staff member saw held by an order: a
// pending order that has the seat in MySQL is cancelled; a hold no live order has in
// MySQL is freed in the cache (its script is a step of its own); a paid or ended order is
// ORDER_STATE; a seat that is not held by the order, or is live elsewhere, or whose order
// may still be committing, is CONFLICT.
func lzReleaseStep(w *lzWorld, n *lzState, in *lzIn, out *lzOut) bool {
	seat, o := in.seats[0], in.order
	switch {
	case out.code == "" && out.action == "order_cancelled":
		if n.status[o] != lzPending || n.owner[seat] != int32(o+1) {
			return false
		}
		n.setStatus(o, lzCancelled)
		n.freeSeatsOf(o)
		return true
	case out.code == "" && out.action == "hold_released":
		// no live order has the seat in MySQL: the order ended, or it is live on other
		// seats (an exchange moved it off this one after reconciliation had put the
		// seat's hold back from MySQL while the exchange was committing)
		return n.owner[seat] == 0
	case out.code == services.CodeConflict:
		v := n.seats[strconv.FormatInt(w.seatIDs[seat], 10)]
		held := strings.HasPrefix(v, "H|"+w.orderNos[o]+"|") || strings.HasPrefix(v, "S|"+w.orderNos[o]+"|")
		return !held || (n.owner[seat] != 0 && n.owner[seat] != int32(o+1)) || n.status[o] == 0
	case out.code == services.CodeOrderState:
		return n.status[o] != lzPending
	case out.code == services.CodeNotFound: // an edit took the seat out of the (cached) hall
		return !n.listed[seat]
	}
	return false
}

// lzHouseStep is a block or unblock of house seats, all or nothing: a block needs seats
// of the hall that are no house seats yet, in no live order (MySQL) and free in the
// cache; an unblock needs house seats.
func lzHouseStep(w *lzWorld, n *lzState, in *lzIn, out *lzOut) bool {
	any := func(f func(i int) bool) bool {
		for _, i := range in.seats {
			if f(i) {
				return true
			}
		}
		return false
	}
	switch out.code {
	case "":
		if any(func(i int) bool { return !n.inHall[i] }) {
			return false
		}
		if in.kind == lzBlock {
			if any(func(i int) bool { return n.house[i] || n.owner[i] != 0 }) {
				return false
			}
			for _, i := range in.seats {
				n.house[i] = true
			}
			return true
		}
		if any(func(i int) bool { return !n.house[i] }) {
			return false
		}
		for _, i := range in.seats {
			n.house[i] = false
		}
		return true
	case services.CodeSeatNotInShow: // the cached hall, or MySQL's under the block's lock
		return any(func(i int) bool { return !n.inHall[i] || !n.listed[i] })
	case services.CodeConflict:
		if in.kind == lzBlock {
			return any(func(i int) bool { return n.house[i] })
		}
		return any(func(i int) bool { return !n.house[i] })
	case services.CodeSeatTaken:
		return in.kind == lzBlock && any(func(i int) bool { return n.owner[i] != 0 || n.cacheTaken(w, i) })
	}
	return false
}

// lzEditStep is a hall edit: it may take a seat out of the hall only while the seat is
// in no live order and no house seat of the show (CONFLICT otherwise), and new seats
// join the hall.
func lzEditStep(w *lzWorld, n *lzState, in *lzIn, out *lzOut) bool {
	dropped := func(i int) bool {
		for _, l := range in.drop {
			if w.seat[i].Label == l {
				return true
			}
		}
		return false
	}
	switch out.code {
	case "":
		after := map[int]bool{}
		for _, i := range out.seats {
			after[i] = true
		}
		for i := range n.inHall {
			switch {
			case n.inHall[i] && !after[i]:
				if n.owner[i] != 0 || n.house[i] || !dropped(i) {
					return false
				}
				n.inHall[i] = false
			case !n.inHall[i] && after[i]:
				n.inHall[i] = true
			}
		}
		return true
	case services.CodeConflict:
		for i := range n.inHall {
			if n.inHall[i] && dropped(i) && (n.owner[i] != 0 || n.house[i]) {
				return true
			}
		}
		return false
	}
	return false
}

// lzReadDBStep is a consistent MySQL snapshot: the hall's seats, the house seats, the
// live seats with their orders and every order's status must be the truth's.
func lzReadDBStep(n *lzState, out *lzOut) bool {
	if out.code != "" {
		return false
	}
	hall, house := map[int]bool{}, map[int]bool{}
	for _, i := range out.dbHall {
		hall[i] = true
	}
	for _, i := range out.dbHouse {
		house[i] = true
	}
	for i := range n.inHall {
		if n.inHall[i] != hall[i] || n.house[i] != house[i] {
			return false
		}
		live, ok := out.dbLive[i]
		if (n.owner[i] == 0) == ok || (ok && n.owner[i] != int32(live+1)) {
			return false
		}
	}
	for o := range n.status {
		if n.status[o] != out.dbStatus[o] {
			return false
		}
	}
	return len(out.dbStatus) == countNonZero(n.status)
}

// countNonZero counts the orders with a status.
func countNonZero(b []byte) int {
	k := 0
	for _, x := range b {
		if x != 0 {
			k++
		}
	}
	return k
}

// lzReadCacheStep is a read of the seat cache: every field but the markers ("_") must
// be the model's.
func lzReadCacheStep(n *lzState, out *lzOut) bool {
	if out.code != "" {
		return false
	}
	if out.cacheMissing {
		return len(n.seats) == 0
	}
	if len(n.seats) == 0 || !sameFields(n.seats, out.cacheSeats) {
		return false
	}
	return !out.counters || (sameFields(n.zones, out.cacheZones) && sameFields(n.users, out.cacheUsers))
}

// sameFields reports whether a read hash equals the modelled one, markers ("_") aside.
func sameFields(model, read map[string]string) bool {
	k := 0
	for f, v := range model {
		if f == "_" {
			continue
		}
		k++
		if r, ok := read[f]; !ok || r != v {
			return false
		}
	}
	return k == len(read)
}

// lzScriptStep runs the Go port of a seat script on the modelled hashes and compares its
// reply with the real one.
func lzScriptStep(w *lzWorld, n *lzState, in *lzIn, out *lzOut) bool {
	n.ownCache()
	var want []string
	switch in.script {
	case "hold":
		want = n.hold(in.argv)
		if len(want) > 0 && want[0] == "OK" {
			if o, ok := w.orderIdx[in.argv[0]]; ok {
				n.setHeld(o)
			}
			return len(out.reply) > 0 && out.reply[0] == "OK" // the rest is the users marker
		}
	case "release":
		want = n.release(in.argv)
	case "sell":
		want = n.sell(in.argv)
	case "load":
		want = n.load(in.argv)
	case "repair":
		want = n.repair(in.argv)
		return sameRepairReply(want, out.reply)
	case "house":
		want = n.houseScript(in.argv)
	case "exchange":
		want = n.exchange(in.argv)
		if len(want) > 0 && want[0] == "OK" { // the rest is the users marker, then "|" and the seats freed
			k := len(out.reply)
			return k >= 3 && out.reply[0] == "OK" && out.reply[k-2] == "|" && out.reply[k-1] == want[len(want)-1]
		}
	default:
		return false
	}
	return strings.Join(want, " ") == strings.Join(out.reply, " ")
}

// hincr is HINCRBY.
func hincr(m map[string]string, f string, d int) { m[f] = strconv.Itoa(atoi(m[f]) + d) }

var (
	valueRe = regexp.MustCompile(`^([HS])\|([^|]+)\|(.+)$`)
	// lzMarker stands for a marker written with Redis's clock, which no step compares.
	lzMarker = "*"
)

// hold is lua/hold.lua.
func (s *lzState) hold(argv []string) []string {
	owner, user := argv[0], argv[1]
	limit, rule, nrows, nleave := atoi(argv[2]), "", 0, 0
	if parts := strings.Split(argv[2], "|"); len(parts) >= 3 {
		limit, rule, nrows = atoi(parts[0]), parts[1], atoi(parts[2])
		if len(parts) >= 5 {
			nleave = atoi(parts[4])
		}
	}
	if len(s.seats) == 0 || len(s.zones) == 0 || len(s.users) == 0 {
		return []string{"NOT_LOADED"}
	}
	pairs := argv[3 : len(argv)-nrows-nleave]
	rows := argv[len(argv)-nrows-nleave : len(argv)-nleave]
	leaving := map[string]bool{}
	for _, id := range argv[len(argv)-nleave:] {
		leaving[id] = true
	}
	n := len(pairs) / 2
	var taken []string
	need, seen := map[string]int{}, map[string]bool{}
	var zoneOrder []string
	for i := 0; i < n; i++ {
		id, zone := pairs[2*i], pairs[2*i+1]
		if seen[id] {
			return []string{"DUP", id}
		}
		seen[id] = true
		v, ok := s.seats[id]
		if !ok {
			return []string{"NOT_LOADED"}
		}
		if v != "F" {
			taken = append(taken, id)
		}
		if need[zone] == 0 {
			zoneOrder = append(zoneOrder, zone)
		}
		need[zone]++
	}
	if len(taken) > 0 {
		return append([]string{"TAKEN"}, taken...)
	}
	have := atoi(s.users[user])
	if have+n > limit {
		return []string{"LIMIT", strconv.Itoa(have)}
	}
	for _, zone := range zoneOrder {
		free, ok := s.zones[zone]
		if !ok {
			return []string{"NOT_LOADED"}
		}
		if atoi(free) < need[zone] {
			return []string{"SOLD_OUT", zone}
		}
	}
	if stranded, gap := s.strandCheck(rule, rows, seen, leaving); gap {
		return append([]string{"GAP"}, stranded...)
	}
	for i := 0; i < n; i++ {
		s.seats[pairs[2*i]] = "H|" + owner + "|" + user
	}
	for zone, k := range need {
		hincr(s.zones, zone, -k)
	}
	hincr(s.users, user, n)
	return []string{"OK"}
}

// strandCheck is hold.lua's single-seat check over its row strings (runs separated by
// ";", seats "id:zone" or ranges "first-last:zone" by ","): the seats the batch
// (chosen) strands, and whether enforce refuses it. A row string is "window/whole row"
// (seats.RuleArgs): the model decides on the whole row, as the definition does; the
// script's reading of the window first must come to the same answer.
func (s *lzState) strandCheck(rule string, rows []string, chosen, leaving map[string]bool) ([]string, bool) {
	type cell struct {
		id, zone string
		free     bool
	}
	var stranded []string
	gap := false
	for _, row := range rows {
		if _, whole, ok := strings.Cut(row, "/"); ok {
			row = whole
		}
		var runs [][]cell
		for _, text := range strings.Split(row, ";") {
			var run []cell
			for _, seat := range strings.Split(text, ",") {
				ids, zone, _ := strings.Cut(seat, ":")
				first, last, isRange := strings.Cut(ids, "-") // "first-last": ids counting up by one
				if !isRange {
					last = first
				}
				lo, _ := strconv.ParseInt(first, 10, 64)
				hi, _ := strconv.ParseInt(last, 10, 64)
				for n := lo; n <= hi; n++ {
					id := strconv.FormatInt(n, 10)
					run = append(run, cell{id, zone, s.seats[id] == "F" || leaving[id]})
				}
			}
			runs = append(runs, run)
		}
		freeAfter := func(run []cell, j int) bool { return j >= 0 && j < len(run) && run[j].free && !chosen[run[j].id] }
		isChosen := func(run []cell, j int) bool { return j >= 0 && j < len(run) && chosen[run[j].id] }
		var rowStranded []string
		want := map[string]int{}
		for _, run := range runs {
			for j, c := range run {
				if chosen[c.id] {
					want[c.zone]++
				}
				if freeAfter(run, j) && !freeAfter(run, j-1) && !freeAfter(run, j+1) && (isChosen(run, j-1) || isChosen(run, j+1)) {
					rowStranded = append(rowStranded, c.id)
				}
			}
		}
		beyond := func(run []cell, at, dir int) bool {
			if at < 0 || at >= len(run) || !run[at].free {
				return false
			}
			past := at + dir
			return past < 0 || past >= len(run) || !run[past].free
		}
		if len(rowStranded) > 0 && rule == "enforce" {
			for zone, k := range want {
				for _, run := range runs {
					streak := 0
					for j, c := range run {
						if c.free && c.zone == zone {
							streak++
						} else {
							streak = 0
						}
						if streak >= k && !beyond(run, j-k, -1) && !beyond(run, j+1, 1) {
							gap = true
						}
					}
				}
			}
		}
		stranded = append(stranded, rowStranded...)
	}
	return stranded, gap
}

// exchange is lua/exchange.lua: hold's checks and hold of the new seats (the hold ARGV
// after the old pairs, whose leaving seats the rule counts free), sold for state "S",
// then the old seats freed where the order has them.
func (s *lzState) exchange(argv []string) []string {
	state, m := argv[0], atoi(argv[1])
	old, holdArgv := argv[2:2+2*m], argv[2+2*m:]
	out := s.hold(holdArgv)
	if len(out) == 0 || out[0] != "OK" {
		return out
	}
	owner, user := holdArgv[0], holdArgv[1]
	parts := strings.Split(holdArgv[2], "|")
	pairs := holdArgv[3 : len(holdArgv)-atoi(parts[2])-m]
	if state == "S" {
		for i := 0; i+1 < len(pairs); i += 2 {
			s.seats[pairs[i]] = "S|" + owner + "|" + user
		}
	}
	freed := 0
	for i := 0; i+1 < len(old); i += 2 {
		if v := valueRe.FindStringSubmatch(s.seats[old[i]]); v != nil && v[2] == owner {
			s.seats[old[i]] = "F"
			hincr(s.zones, old[i+1], 1)
			hincr(s.users, user, -1)
			freed++
		}
	}
	return []string{"OK", "|", strconv.Itoa(freed)}
}

// release is lua/release.lua.
func (s *lzState) release(argv []string) []string {
	owner, from := argv[0], argv[1]
	released := 0
	for i := 2; i+1 < len(argv); i += 2 {
		id, zone := argv[i], argv[i+1]
		v, ok := s.seats[id]
		if !ok {
			continue
		}
		m := valueRe.FindStringSubmatch(v)
		if m != nil && m[2] == owner && strings.Contains(from, m[1]) {
			s.seats[id] = "F"
			hincr(s.zones, zone, 1)
			hincr(s.users, m[3], -1)
			released++
		}
	}
	return []string{strconv.Itoa(released)}
}

// sell is lua/sell.lua.
func (s *lzState) sell(argv []string) []string {
	owner, user := argv[0], argv[1]
	if len(s.seats) == 0 || len(s.zones) == 0 || len(s.users) == 0 {
		return []string{"NOT_LOADED"}
	}
	for i := 2; i+1 < len(argv); i += 2 {
		if _, ok := s.seats[argv[i]]; !ok {
			return []string{"NOT_LOADED"}
		}
	}
	out := []string{"OK"}
	val := "S|" + owner + "|" + user
	for i := 2; i+1 < len(argv); i += 2 {
		id, zone := argv[i], argv[i+1]
		v := s.seats[id]
		m := valueRe.FindStringSubmatch(v)
		switch {
		case m != nil && m[2] == owner:
			if m[1] == "H" {
				s.seats[id] = val
			}
		case v == "F":
			s.seats[id] = val
			hincr(s.zones, zone, -1)
			hincr(s.users, user, 1)
		default:
			out = append(out, id)
		}
	}
	return out
}

// load is lua/load.lua (time to live left out: no map expires during a test).
func (s *lzState) load(argv []string) []string {
	n := atoi(argv[2])
	z := 3 + 2*n
	m := atoi(argv[z])
	writeUsers := func() {
		s.users["_"] = lzMarker
		for i := z + 1 + 2*m; i+1 < len(argv); i += 2 {
			s.users[argv[i]] = argv[i+1]
		}
	}
	if len(s.seats) > 0 {
		filled := 0
		for i := 3; i < 3+2*n; i += 2 {
			if _, ok := s.seats[argv[i]]; !ok {
				s.seats[argv[i]] = argv[i+1]
				filled++
			}
		}
		if _, ok := s.zones["_"]; !ok {
			s.zones["_"] = "0"
		}
		for i := z + 1; i < z+1+2*m; i += 2 {
			if _, ok := s.zones[argv[i]]; !ok {
				s.zones[argv[i]] = argv[i+1]
			}
		}
		if len(s.users) == 0 {
			writeUsers()
		}
		return []string{"FILLED", strconv.Itoa(filled)}
	}
	s.seats, s.zones, s.users = map[string]string{"_": "B"}, map[string]string{"_": "0"}, map[string]string{}
	for i := 3; i < 3+2*n; i += 2 {
		s.seats[argv[i]] = argv[i+1]
	}
	for i := z + 1; i < z+1+2*m; i += 2 {
		s.zones[argv[i]] = argv[i+1]
	}
	writeUsers()
	return []string{"LOADED", strconv.Itoa(n)}
}

// repair is lua/repair.lua.
func (s *lzState) repair(argv []string) []string {
	token, _ := strconv.ParseInt(argv[0], 10, 64)
	seen, _ := strconv.ParseInt(s.fence, 10, 64)
	if token < seen {
		return []string{"FENCED"}
	}
	if len(s.seats) == 0 {
		return []string{"NOT_LOADED"}
	}
	s.fence = argv[0]
	out, repaired := []string{"OK"}, false
	n := atoi(argv[2])
	for i := 3; i < 3+3*n; i += 3 {
		id, want, nv := argv[i], argv[i+1], argv[i+2]
		if s.seats[id] == want {
			if nv == "" {
				delete(s.seats, id)
			} else {
				s.seats[id] = nv
			}
			out = append(out, "SET", id)
			repaired = true
		} else {
			out = append(out, "SKIP", id)
		}
	}
	free, owned := map[string]int{}, map[string]int{}
	for i := 3 + 3*n; i+1 < len(argv); i += 2 {
		zone := argv[i+1]
		free[zone] += 0
		if s.seats[argv[i]] == "F" {
			free[zone]++
		}
	}
	for _, v := range s.seats {
		if m := valueRe.FindStringSubmatch(v); m != nil {
			owned[m[3]]++
		}
	}
	for _, h := range []map[string]string{s.zones, s.users} {
		if _, ok := h["_"]; !ok {
			h["_"] = "0"
		}
	}
	for zone, want := range free {
		if cur := s.zones[zone]; cur != strconv.Itoa(want) {
			s.zones[zone] = strconv.Itoa(want)
			out = append(out, "ZONE", zone, cur, strconv.Itoa(want))
		}
	}
	for zone, cur := range copyMap(s.zones) {
		if _, ok := free[zone]; zone != "_" && !ok {
			delete(s.zones, zone)
			out = append(out, "ZONE", zone, cur, "")
		}
	}
	usersChanged := false
	for user, cur := range copyMap(s.users) {
		if _, ok := owned[user]; user != "_" && !ok && cur != "0" {
			s.users[user] = "0"
			out = append(out, "USER", user, cur, "0")
			usersChanged = true
		}
	}
	for user, want := range owned {
		if cur := s.users[user]; cur != strconv.Itoa(want) {
			s.users[user] = strconv.Itoa(want)
			out = append(out, "USER", user, cur, strconv.Itoa(want))
			usersChanged = true
		}
	}
	if usersChanged || repaired {
		s.users["_"] = lzMarker
	}
	return out
}

// sameRepairReply compares repair replies: the seat part in order, the counter part
// (written in Lua's table order) as a set.
func sameRepairReply(want, got []string) bool {
	split := func(r []string) (string, []string) {
		var seat []string
		var counters []string
		for i := 0; i < len(r); {
			switch r[i] {
			case "ZONE", "USER":
				if i+3 >= len(r) {
					return "bad", nil
				}
				counters = append(counters, strings.Join(r[i:i+4], " "))
				i += 4
			default:
				seat = append(seat, r[i])
				i++
			}
		}
		sort.Strings(counters)
		return strings.Join(seat, " "), counters
	}
	ws, wc := split(want)
	gs, gc := split(got)
	return ws == gs && strings.Join(wc, "|") == strings.Join(gc, "|")
}

// houseScript is lua/house.lua.
func (s *lzState) houseScript(argv []string) []string {
	if len(s.seats) == 0 || len(s.zones) == 0 || len(s.users) == 0 {
		return []string{"NOT_LOADED"}
	}
	switch argv[0] {
	case "BLOCK":
		var taken []string
		for i := 1; i+1 < len(argv); i += 2 {
			v, ok := s.seats[argv[i]]
			if !ok {
				return []string{"NOT_LOADED"}
			}
			if v != "F" {
				taken = append(taken, argv[i], v)
			}
			if _, ok := s.zones[argv[i+1]]; !ok {
				return []string{"NOT_LOADED"}
			}
		}
		if len(taken) > 0 {
			return append([]string{"TAKEN"}, taken...)
		}
		k := 0
		for i := 1; i+1 < len(argv); i += 2 {
			s.seats[argv[i]] = "B"
			hincr(s.zones, argv[i+1], -1)
			k++
		}
		return []string{"OK", strconv.Itoa(k)}
	case "UNBLOCK":
		k := 0
		for i := 1; i+1 < len(argv); i += 2 {
			if s.seats[argv[i]] == "B" {
				s.seats[argv[i]] = "F"
				hincr(s.zones, argv[i+1], 1)
				k++
			}
		}
		return []string{"OK", strconv.Itoa(k)}
	}
	return []string{"ERR"}
}

// lzDescribe renders a step for the visualisation: seats by label, orders by number in
// the history (#n), users by index.
func lzDescribe(w *lzWorld, in *lzIn, out *lzOut) string {
	labels := func(ix []int) string {
		var l []string
		for _, i := range ix {
			l = append(l, w.seat[i].Label+"("+strconv.FormatInt(w.seatIDs[i], 10)+")")
		}
		return strings.Join(l, ",")
	}
	ord := func(o int) string {
		if o < 0 {
			return "-"
		}
		return "#" + strconv.Itoa(o) + " " + w.orderNos[o]
	}
	ans := out.code
	if ans == "" {
		ans = "OK"
	}
	if out.msg != "" && out.code != "" {
		ans += " (" + out.msg + ")"
	}
	switch in.kind {
	case lzInit:
		return "init hall " + labels(in.seats)
	case lzAdvance, lzFlush:
		return lzKindNames[in.kind]
	case lzCreate:
		req := "seats " + labels(in.seats)
		if in.zone != "" {
			req = fmt.Sprintf("best %d in %s", in.qty, in.zone)
		}
		if out.code == "" {
			ans = "OK " + ord(out.order) + " " + labels(out.seats)
		}
		return fmt.Sprintf("create u%d %s -> %s", in.user, req, ans)
	case lzPayApprove:
		return fmt.Sprintf("pay-approve %s -> %s %s", ord(in.order), ans, out.payStatus)
	case lzExpire, lzReconcileExpire:
		return fmt.Sprintf("%s %s -> won=%v %s", lzKindNames[in.kind], ord(in.order), out.won, out.code)
	case lzPayStart, lzCancel, lzRefund:
		return fmt.Sprintf("%s %s -> %s", lzKindNames[in.kind], ord(in.order), ans)
	case lzRelease:
		return fmt.Sprintf("release %s of %s -> %s %s", labels(in.seats), ord(in.order), ans, out.action)
	case lzRefundSeats:
		return fmt.Sprintf("refund-seats %s of %s -> %s", labels(in.seats), ord(in.order), ans)
	case lzBlock, lzUnblock:
		return fmt.Sprintf("%s %s -> %s", lzKindNames[in.kind], labels(in.seats), ans)
	case lzEdit:
		if out.code == "" {
			ans = "OK hall " + labels(out.seats)
		}
		return fmt.Sprintf("hall-edit dropping %v -> %s", in.drop, ans)
	case lzReadDB:
		live := map[string]string{}
		for s, o := range out.dbLive {
			live[w.seat[s].Label] = "#" + strconv.Itoa(o)
		}
		st := map[string]string{}
		for o, b := range out.dbStatus {
			st["#"+strconv.Itoa(o)] = lzStatusName(b)
		}
		return fmt.Sprintf("read-db hall %s house %s live %v orders %v", labels(out.dbHall), labels(out.dbHouse), live, st)
	case lzReadCache:
		if out.cacheMissing {
			return "read-cache -> no map"
		}
		s := "read-cache seats " + lzFields(w, out.cacheSeats)
		if out.counters {
			s += fmt.Sprintf(" zones %v users %v", out.cacheZones, out.cacheUsers)
		}
		return s
	case lzExchange:
		if out.code == "" {
			ans = "OK " + labels(out.seats)
		}
		return fmt.Sprintf("exchange %s to %s -> %s", ord(in.order), labels(in.seats), ans)
	case lzScript:
		return fmt.Sprintf("%s.lua %s -> %s", in.script, lzShorten(w, strings.Join(in.argv, " ")), lzShorten(w, strings.Join(out.reply, " ")))
	}
	return lzKindNames[in.kind]
}

// lzShorten writes order numbers as #n.
func lzShorten(w *lzWorld, s string) string {
	for no, l := range w.label {
		s = strings.ReplaceAll(s, no, l)
	}
	return s
}

// lzFields renders a read hash with seat labels, sorted.
func lzFields(w *lzWorld, m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		name := k
		if id, err := strconv.ParseInt(k, 10, 64); err == nil {
			if i, ok := w.seatIdx[id]; ok {
				name = w.seat[i].Label + "(" + k + ")"
			}
		}
		b.WriteString(name + "=" + lzShorten(w, m[k]) + " ")
	}
	return strings.TrimSpace(b.String())
}

// lzDescribeState renders the state: each seat's truth and cache value, the orders'
// statuses and the counters.
func lzDescribeState(w *lzWorld, s *lzState) string {
	if !s.ready {
		return "(not started)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "epoch %d; seats:", s.epoch)
	for i := range s.inHall {
		if !s.inHall[i] && s.owner[i] == 0 && !s.house[i] {
			if _, ok := s.seats[strconv.FormatInt(w.seatIDs[i], 10)]; !ok {
				continue
			}
		}
		truth := "free"
		switch {
		case s.owner[i] != 0:
			truth = "#" + strconv.Itoa(int(s.owner[i]-1))
		case s.house[i]:
			truth = "house"
		}
		if !s.inHall[i] {
			truth += "/not in hall"
		}
		v, ok := s.seats[strconv.FormatInt(w.seatIDs[i], 10)]
		if !ok {
			v = "missing"
		}
		fmt.Fprintf(&b, " %s[db %s, cache %s]", w.seat[i].Label, truth, lzShorten(w, v))
	}
	b.WriteString("; orders:")
	for o, st := range s.status {
		if st != 0 {
			fmt.Fprintf(&b, " #%d=%s", o, lzStatusName(st))
		}
	}
	fmt.Fprintf(&b, "; zones %v; users %v", s.zones, s.users)
	return b.String()
}
