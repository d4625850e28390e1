package seats

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/singleflight"

	"seatflow/lua"
	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/store"
)

// SeatStore keeps each show's seat state in Redis: a cache of MySQL that the Lua scripts
// of package lua alone write. A missing map or field means "not loaded": the store loads
// it from MySQL (single-flight per show in this process) and asks again (invariant 3).
type SeatStore struct {
	rdb     redis.UniversalClient
	scripts scriptCaller // runOn's calls: rdb's autopipeliner on one node, rdb itself on a cluster
	db      *sqlx.DB
	catalog *catalog.Catalog
	prefix  string
	loads   singleflight.Group

	hold, order, release, sell, load, repair *redis.Script
	vouchers, exchange                       *redis.Script

	versions sync.Map // show id -> *atomic.Uint64, see Changed
	follow   func(showID int64)
}

// SetFollow sets f to be called whenever a cache built from a show's seat map is read
// (Version, Follow): SeatEvents.Follow, so this process hears the show's changes from
// every process while it serves such caches. Set it before use.
func (s *SeatStore) SetFollow(f func(showID int64)) { s.follow = f }

// Follow says that this process serves something built from showID's seat map (see
// SetFollow).
func (s *SeatStore) Follow(showID int64) {
	if s.follow != nil {
		s.follow(showID)
	}
}

// AnyHeldBy reports whether one of the seats is held or sold to userID in the seat
// cache; false when it cannot tell (the caller only uses it to look further).
func (s *SeatStore) AnyHeldBy(ctx context.Context, showID int64, seatIDs []int64, userID int64) bool {
	if len(seatIDs) == 0 {
		return false
	}
	fields := make([]string, len(seatIDs))
	for i, id := range seatIDs {
		fields[i] = strconv.FormatInt(id, 10)
	}
	ctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
	defer cancel()
	vals, err := s.rdb.HMGet(ctx, s.Keys(showID)[0], fields...).Result()
	if err != nil {
		return false
	}
	for _, v := range vals {
		if str, ok := v.(string); ok {
			if _, _, owner := SeatValue(str); owner == userID {
				return true
			}
		}
	}
	return false
}

// Changed notes that a show's seat state may have changed: here after every script
// this process runs on it, and for changes other processes publish (SeatEvents). Readers
// that cache what they built from the seat map compare Version before serving it.
func (s *SeatStore) Changed(showID int64) {
	v, _ := s.versions.LoadOrStore(showID, new(atomic.Uint64))
	v.(*atomic.Uint64).Add(1)
}

// Version is a number that grows whenever Changed is called for the show. Reading it
// follows the show (Follow).
func (s *SeatStore) Version(showID int64) uint64 {
	s.Follow(showID)
	if v, ok := s.versions.Load(showID); ok {
		return v.(*atomic.Uint64).Load()
	}
	return 0
}

// NewSeatStore returns a store whose keys start with prefix (e.g. "sf"). It reads no
// application clock: every time it writes to Redis is counted on Redis's own clock.
func NewSeatStore(rdb redis.UniversalClient, db *sqlx.DB, catalog *catalog.Catalog, prefix string) *SeatStore {
	return &SeatStore{
		rdb: rdb, scripts: newScriptCaller(rdb), db: db, catalog: catalog, prefix: prefix,
		hold:     redis.NewScript(lua.Hold),
		order:    redis.NewScript(lua.Order),
		release:  redis.NewScript(lua.Release),
		sell:     redis.NewScript(lua.Sell),
		load:     redis.NewScript(lua.Load),
		repair:   redis.NewScript(lua.Repair),
		vouchers: redis.NewScript(lua.Vouchers),
		exchange: redis.NewScript(lua.Exchange),
	}
}

// A show's seat map is kept in Redis until seatMapKeepAfterStart after the show starts,
// and for at least seatMapMinTTL from each load, both counted on Redis's own clock so
// that no instance's clock decides when a map vanishes.
const (
	SeatMapKeepAfterStart = 24 * time.Hour
	SeatMapMinTTL         = time.Hour
)

// Keys returns the three keys of a show, all in one Redis Cluster hash slot:
// seats (seat_id -> value), zones (zone code -> free count), users (user_id -> seats held
// or owned).
func (s *SeatStore) Keys(showID int64) []string {
	tag := s.prefix + ":{show:" + strconv.FormatInt(showID, 10) + "}:"
	return []string{tag + "seats", tag + "zones", tag + "users"}
}

// WaitlistGateKey is the hash of the show's waiting-list gate (zone code -> the zone's
// free count from which its seats are kept for the list; written by the waiting list
// after each serve, read by the hold script), in the show's hash slot.
func (s *SeatStore) WaitlistGateKey(showID int64) string {
	return s.prefix + ":{show:" + strconv.FormatInt(showID, 10) + "}:waitlist"
}

// VouchersKey is the hash of the show's voucher uses (voucher id -> seats of live orders
// it discounted in this show; "_" marks it loaded), in the show's hash slot: the order
// script checks and counts them with the hold, release gives them back.
func (s *SeatStore) VouchersKey(showID int64) string {
	return s.prefix + ":{show:" + strconv.FormatInt(showID, 10) + "}:vouchers"
}

// FenceKey is the key holding the highest reconciliation lease token that repaired the
// show's map, in the show's hash slot.
func (s *SeatStore) FenceKey(showID int64) string {
	return s.prefix + ":{show:" + strconv.FormatInt(showID, 10) + "}:fence"
}

// seatsKeyPattern matches the seats hash of every show (for SCAN).
func (s *SeatStore) seatsKeyPattern() string { return s.prefix + ":{show:*}:seats" }

// Seat values in the seats hash (lua/embed.go documents the same encoding for the scripts).
const (
	SeatFree    = "F"
	seatBlocked = "B"
)

// EncodeSeat returns the seats-hash value of a seat held by (sold false) or sold to
// (sold true) an order: "H|<order_no>|<user_id>" or "S|<order_no>|<user_id>".
func EncodeSeat(sold bool, orderNo string, userID int64) string {
	state := "H|"
	if sold {
		state = "S|"
	}
	return state + orderNo + "|" + strconv.FormatInt(userID, 10)
}

// SeatRef names a seat and its zone code for the scripts; Voucher is the voucher its
// order used on it (0: none), whose use a release gives back.
type SeatRef struct {
	ID      int64
	Zone    string
	Voucher int64
}

// RefArgs flattens seat references into the Lua scripts' argument list: seat id, then
// zone code, for each seat.
func RefArgs(refs []SeatRef) []any {
	out := make([]any, 0, 2*len(refs))
	for _, r := range refs {
		out = append(out, strconv.FormatInt(r.ID, 10), r.Zone)
	}
	return out
}

// HoldOutcome is what the hold script found. Exactly one of the fields describes a
// refusal; all zero means the batch is held.
type HoldOutcome struct {
	Taken    []int64 // seats held or sold by others
	LimitNow int     // >= 0 with Limit: seats the user holds or owns already
	Limit    bool
	SoldOut  string // zone code without enough free seats
	Mark     string // after a hold: the per-user counts' marker (their rebuild time, ms)
	// Stranded lists the seats the batch strands (seats/strand.go), when a single-seat
	// rule was given; with Gap the batch was refused for them (enforce).
	Stranded []int64
	Gap      bool
	// Waitlist is the zone whose free seats are kept for its waiting list (the batch
	// was refused for it; see HoldFlags).
	Waitlist string
}

// OK reports whether the whole batch was held.
func (h HoldOutcome) OK() bool {
	return len(h.Taken) == 0 && !h.Limit && h.SoldOut == "" && !h.Gap && h.Waitlist == ""
}

// HoldFlags say who a hold is for, as the waiting list's gate sees it: HoldPublic (the
// gate applies: a zone whose free count reached its gate keeps its seats for the list)
// or HoldOffer (a waiting list's offer).
const (
	HoldPublic = ""
	HoldOffer  = "o"
)

// errNotLoaded says the show's map is missing in Redis.
var errNotLoaded = errors.New("seat map not loaded")

// IsNotLoaded reports whether err says a script found the show's map (or a seat's field)
// missing even after loading it from MySQL: a seat a hall edit has just taken out of the
// map gives this too.
func IsNotLoaded(err error) bool { return errors.Is(err, errNotLoaded) }

// Hold holds every seat of refs for orderNo/userID, all or nothing: every seat free,
// zone counts and limit (the purchase limit) are checked before the first write.
// Errors: UNAVAILABLE when Redis or MySQL cannot be reached.
func (s *SeatStore) Hold(ctx context.Context, showID int64, orderNo string, userID int64, limit int, refs []SeatRef) (HoldOutcome, error) {
	return s.HoldUnderRule(ctx, showID, orderNo, userID, limit, refs, "", nil, HoldPublic)
}

// HoldUnderRule is Hold that also applies a single-seat rule (RuleWarn or RuleEnforce,
// with rows from RuleArgs) in the same script run, against the seat values the hold
// writes over: the outcome lists the seats the batch strands, and under enforce a batch
// refused for them (Gap) holds nothing. rule "" is Hold. flags (HoldPublic, HoldOffer)
// decide whether the waiting list's gate (WaitlistGateKey) applies.
func (s *SeatStore) HoldUnderRule(ctx context.Context, showID int64, orderNo string, userID int64, limit int, refs []SeatRef, rule string, rows []string, flags string) (HoldOutcome, error) {
	res, err := s.runLoadedOn(ctx, showID, s.hold, append(s.Keys(showID), s.WaitlistGateKey(showID)), holdArgs(orderNo, userID, limit, refs, rule, rows, flags))
	if err != nil {
		return HoldOutcome{}, err
	}
	return parseHold(res)
}

// holdArgs is hold.lua's ARGV (see there).
func holdArgs(orderNo string, userID int64, limit int, refs []SeatRef, rule string, rows []string, flags string) []any {
	lim := strconv.Itoa(limit)
	if rule == "" || len(rows) == 0 {
		rule, rows = "", nil
	}
	if rule != "" || flags != "" {
		lim += "|" + rule + "|" + strconv.Itoa(len(rows)) + "|" + flags
	}
	args := append([]any{orderNo, strconv.FormatInt(userID, 10), lim}, RefArgs(refs)...)
	for _, r := range rows {
		args = append(args, r)
	}
	return args
}

// parseHold reads hold.lua's reply. Errors: INVALID_REQUEST (a seat listed twice).
func parseHold(res []string) (HoldOutcome, error) {
	switch res[0] {
	case "OK":
		out := HoldOutcome{}
		if len(res) > 1 {
			out.Mark = res[1]
			out.Stranded = parseIDs(res[2:])
		}
		return out, nil
	case "GAP":
		return HoldOutcome{Gap: true, Stranded: parseIDs(res[1:])}, nil
	case "WAITLIST":
		return HoldOutcome{Waitlist: res[1]}, nil
	case "TAKEN":
		return HoldOutcome{Taken: parseIDs(res[1:])}, nil
	case "LIMIT":
		n, _ := strconv.Atoi(res[1])
		return HoldOutcome{Limit: true, LimitNow: n}, nil
	case "SOLD_OUT":
		return HoldOutcome{SoldOut: res[1]}, nil
	case "DUP":
		return HoldOutcome{}, services.Errorf(services.CodeInvalidRequest, "seat %s is listed twice", res[1])
	}
	return HoldOutcome{}, fmt.Errorf("hold script: unexpected reply %v", res)
}

// parseIDs reads seat ids a script returned as strings.
func parseIDs(vs []string) []int64 {
	var out []int64
	for _, v := range vs {
		id, _ := strconv.ParseInt(v, 10, 64)
		out = append(out, id)
	}
	return out
}

// ShowKey is the key name under the show's hash tag (prefix:{show:N}:name), for keys
// other packages keep in the show's slot so that one script can touch them with the
// seat map (invariant 9): the order rate buckets, the Idempotency-Key's lock and marker.
func (s *SeatStore) ShowKey(showID int64, name string) string {
	return s.prefix + ":{show:" + strconv.FormatInt(showID, 10) + "}:" + name
}

// OrderGate is what lua/order.lua does around its hold: Keys are its KEYS[5..9] (the
// buyer's and the show's rate buckets, the Idempotency-Key's lock, marker and the
// show's marker epoch, every one named with ShowKey), Args its ARGV[1] (see order.lua).
type OrderGate struct {
	Keys []string
	Args string
}

// OrderReply is lua/order.lua's answer. Phase is SEEN, LOCKED, PRE, RATE, LIMITS, OVER
// or HOLD (the hold ran: Hold is its outcome); Tail is what follows PRE (the refusal:
// "TAKEN", seat ids... or "SOLD_OUT", zone, free) and RATE ("user" or "show", the wait
// in seconds). Epoch is the show's marker epoch ("" when missing), Own whether a
// requested seat is the buyer's already, First whether a key was claimed that had no
// marker.
type OrderReply struct {
	Phase      string
	Epoch      string
	Own, First bool
	Tail       []string
	Hold       HoldOutcome
}

// HoldOrder runs lua/order.lua: gate's steps, then (phase HOLD) the hold of HoldUnderRule
// with the same arguments, in one Redis call on the show's slot, loading the map first
// when it is missing (before anything is spent). Errors: UNAVAILABLE (Redis or MySQL
// cannot be reached; the script may have run), INVALID_REQUEST (a seat listed twice).
func (s *SeatStore) HoldOrder(ctx context.Context, showID int64, orderNo string, userID int64, limit int, refs []SeatRef, rule string, rows []string, flags string, gate OrderGate) (OrderReply, error) {
	keys := append(append(s.Keys(showID), s.WaitlistGateKey(showID)), gate.Keys...)
	args := append([]any{gate.Args}, holdArgs(orderNo, userID, limit, refs, rule, rows, flags)...)
	res, err := s.runLoadedOn(ctx, showID, s.order, keys, args)
	if err != nil {
		return OrderReply{}, err
	}
	if len(res) < 4 {
		return OrderReply{}, fmt.Errorf("order script: unexpected reply %v", res)
	}
	out := OrderReply{Phase: res[0], Epoch: res[1], Own: res[2] == "1", First: res[3] == "1", Tail: res[4:]}
	if out.Phase == "HOLD" {
		if len(out.Tail) == 0 {
			return OrderReply{}, fmt.Errorf("order script: unexpected reply %v", res)
		}
		out.Hold, err = parseHold(out.Tail)
		out.Tail = nil
	}
	return out, err
}

// Release frees the seats of refs that orderNo holds (and, with fromSold, owns as sold);
// seats another order holds now are untouched (invariant 4). It returns how many seats
// it freed. A show whose map is not loaded has nothing to release: the next load reads
// MySQL, where the order is no longer live.
func (s *SeatStore) Release(ctx context.Context, showID int64, orderNo string, refs []SeatRef, fromSold bool) (int, error) {
	defer s.Changed(showID) // whatever the outcome: the script may have run
	from := "H"
	if fromSold {
		from = "HS"
	}
	ctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
	defer cancel()
	args := append([]any{orderNo, from}, RefArgs(refs)...)
	for i, r := range refs {
		if r.Voucher != 0 {
			args[3+2*i] = r.Zone + "#" + strconv.FormatInt(r.Voucher, 10)
		}
	}
	keys := append(s.Keys(showID), s.VouchersKey(showID))
	v, err := s.release.Run(ctx, s.rdb, keys, args...).Int64Slice()
	if err != nil {
		return 0, store.Unavailable("the seat cache", err)
	}
	return int(v[0]), nil
}

// Sell marks the seats of a paid order sold (owner-checked); it returns seats found
// held or sold by another order, which it leaves for reconciliation.
func (s *SeatStore) Sell(ctx context.Context, showID int64, orderNo string, userID int64, refs []SeatRef) ([]int64, error) {
	args := append([]any{orderNo, strconv.FormatInt(userID, 10)}, RefArgs(refs)...)
	res, err := s.runLoaded(ctx, showID, s.sell, args)
	if err != nil {
		return nil, err
	}
	var conflicts []int64
	for _, v := range res[1:] {
		id, _ := strconv.ParseInt(v, 10, 64)
		conflicts = append(conflicts, id)
	}
	return conflicts, nil
}

// runLoaded runs a script that answers NOT_LOADED when the map is missing; it then
// loads the map from MySQL and runs the script once more.
func (s *SeatStore) runLoaded(ctx context.Context, showID int64, sc *redis.Script, args []any) ([]string, error) {
	return s.runLoadedOn(ctx, showID, sc, s.Keys(showID), args)
}

// runLoadedOn is runLoaded with the script's keys given (the show's three, then more of
// the same slot).
func (s *SeatStore) runLoadedOn(ctx context.Context, showID int64, sc *redis.Script, keys []string, args []any) ([]string, error) {
	return s.runOn(ctx, showID, sc, keys, args, true)
}

// runOn runs a seat script on keys; with load, a missing map is loaded from MySQL and
// the script run again (at most three runs), without it the first NOT_LOADED is
// answered as errNotLoaded (a caller inside a MySQL transaction must not load: the
// load's locking reads may wait for the transaction's own locks).
func (s *SeatStore) runOn(ctx context.Context, showID int64, sc *redis.Script, keys []string, args []any, load bool) ([]string, error) {
	defer s.Changed(showID) // whatever the outcome: the script may have run
	for attempt := 0; ; attempt++ {
		rctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
		res, err := s.scripts.run(rctx, sc, keys, args).StringSlice()
		cancel()
		if err != nil {
			return nil, store.Unavailable("the seat cache", err)
		}
		if len(res) == 0 {
			return nil, fmt.Errorf("script returned nothing")
		}
		if res[0] != "NOT_LOADED" {
			return res, nil
		}
		if attempt == 2 || !load {
			return nil, store.Unavailable("the seat cache", errNotLoaded)
		}
		if err := s.Load(ctx, showID); err != nil {
			return nil, err
		}
	}
}

// States returns the raw seat values of a show (seat_id -> value), loading the map
// from MySQL first when it is missing.
func (s *SeatStore) States(ctx context.Context, showID int64) (map[int64]string, error) {
	m, err := s.rawStates(ctx, showID)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]string, len(m))
	for k, v := range m {
		if id, err := strconv.ParseInt(k, 10, 64); err == nil {
			out[id] = v
		}
	}
	return out, nil
}

// rawStates is the show's seat hash as Redis holds it (field -> value, the "_" marker
// included), loading the map first when it is missing. Errors: UNAVAILABLE.
func (s *SeatStore) rawStates(ctx context.Context, showID int64) (map[string]string, error) {
	for attempt := 0; attempt < 3; attempt++ {
		rctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
		m, err := s.rdb.HGetAll(rctx, s.Keys(showID)[0]).Result()
		cancel()
		if err != nil {
			return nil, store.Unavailable("the seat cache", err)
		}
		if len(m) == 0 {
			if err := s.Load(ctx, showID); err != nil {
				return nil, err
			}
			continue
		}
		return m, nil
	}
	return nil, store.Unavailable("the seat cache", errNotLoaded)
}

// ZoneFree returns free seats per zone code of each show whose map is loaded; shows
// not loaded are absent from the result (the caller counts them from MySQL).
func (s *SeatStore) ZoneFree(ctx context.Context, showIDs []int64) (map[int64]map[string]int, error) {
	ctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
	defer cancel()
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.MapStringStringCmd, len(showIDs))
	for i, id := range showIDs {
		cmds[i] = pipe.HGetAll(ctx, s.Keys(id)[1])
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, store.Unavailable("the seat cache", err)
	}
	out := map[int64]map[string]int{}
	for i, c := range cmds {
		m := c.Val()
		if len(m) == 0 {
			continue
		}
		z := map[string]int{}
		for k, v := range m {
			if k != "_" {
				z[k], _ = strconv.Atoi(v)
			}
		}
		out[showIDs[i]] = z
	}
	return out, nil
}

// SeatValue decodes a stored seat value into its state (StateFree, StateHeld, StateSold,
// StateBlocked) and, for held and sold seats, the owning order number and user id.
func SeatValue(v string) (state, orderNo string, userID int64) {
	state = stateOf(v)
	if state == services.StateHeld || state == services.StateSold {
		if parts := strings.SplitN(v, "|", 3); len(parts) == 3 {
			userID, _ = strconv.ParseInt(parts[2], 10, 64)
			orderNo = parts[1]
		}
	}
	return state, orderNo, userID
}

// Load builds the show's seat map from MySQL and writes it with the load script, once
// per show at a time in this process. Another process loading at the same moment is
// harmless: the script only fills what is missing when the map exists.
func (s *SeatStore) Load(ctx context.Context, showID int64) error {
	_, err, _ := s.loads.Do(strconv.FormatInt(showID, 10), func() (any, error) {
		return nil, s.loadNow(context.WithoutCancel(ctx), showID)
	})
	return err
}

// Snapshot is a show's seat state as MySQL records it: seat_id -> encoded value, free
// seats per zone code, seats held or owned per user.
type Snapshot struct {
	Values   map[int64]string
	ZoneFree map[string]int
	Users    map[int64]int
}

// SnapshotFromDB reads the seat state of a show from MySQL (the truth, invariant 3):
// seats of live orders held or sold, house seats (show_house_seats) and seats that are
// never sold blocked, every other seat free.
func (s *SeatStore) SnapshotFromDB(ctx context.Context, show *services.Show) (*Snapshot, error) {
	hall, err := s.catalog.Hall(ctx, show.HallID)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	// house seats are blocked unless a live order has them (the order wins); read with a
	// locking read so a block or unblock in flight is seen once it commits
	house, err := houseSeatsForSnapshot(ctx, s.db, show.ID)
	if err != nil {
		return nil, err
	}
	live, err := store.ShowLiveSeats(ctx, s.db, show.ID)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	snap := &Snapshot{Values: map[int64]string{}, ZoneFree: map[string]int{}, Users: map[int64]int{}}
	for _, z := range hall.Zones {
		snap.ZoneFree[z.Code] = 0
	}
	taken := map[int64]bool{}
	for _, l := range live {
		snap.Values[l.SeatID] = EncodeSeat(l.Status == services.OrderPaid, l.OrderNo, l.UserID)
		snap.Users[l.UserID]++
		taken[l.SeatID] = true
	}
	for _, st := range hall.Seats {
		switch {
		case !st.Sellable() || (house[st.ID] && !taken[st.ID]):
			snap.Values[st.ID] = seatBlocked
		case !taken[st.ID]:
			snap.Values[st.ID] = SeatFree
			snap.ZoneFree[st.ZoneCode]++
		}
	}
	return snap, nil
}

func (s *SeatStore) loadNow(ctx context.Context, showID int64) error {
	defer s.Changed(showID) // whatever the outcome: the script may have run
	show, err := s.catalog.Show(ctx, showID)
	if err != nil {
		return err
	}
	snap, err := s.SnapshotFromDB(ctx, show)
	if err != nil {
		return err
	}
	// the map lives until a day after the show starts, counted on Redis's clock (load.lua)
	until := show.StartsAt.Add(SeatMapKeepAfterStart)
	args := []any{strconv.FormatInt(until.Unix(), 10), strconv.Itoa(int(SeatMapMinTTL / time.Second)),
		strconv.Itoa(len(snap.Values))}
	for id, v := range snap.Values {
		args = append(args, strconv.FormatInt(id, 10), v)
	}
	args = append(args, strconv.Itoa(len(snap.ZoneFree)))
	for z, n := range snap.ZoneFree {
		args = append(args, z, strconv.Itoa(n))
	}
	for u, n := range snap.Users {
		args = append(args, strconv.FormatInt(u, 10), strconv.Itoa(n))
	}
	rctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
	defer cancel()
	if err := s.load.Run(rctx, s.rdb, s.Keys(showID), args...).Err(); err != nil {
		return store.Unavailable("the seat cache", err)
	}
	_, err = s.LoadVoucherUses(ctx, showID, false)
	return err
}

// LoadVoucherUses writes the show's voucher uses (VouchersKey) from MySQL's
// voucher_uses: with replace it replaces them (reconciliation), else it writes them only
// when Redis has none (a map load after a flush). It reports whether it wrote.
// Errors: UNAVAILABLE.
func (s *SeatStore) LoadVoucherUses(ctx context.Context, showID int64, replace bool) (bool, error) {
	dctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	uses, err := store.ShowVoucherUses(dctx, s.db, showID)
	cancel()
	if err != nil {
		return false, store.Unavailable("the database", err)
	}
	mode := "fill"
	if replace {
		mode = "set"
	}
	args := []any{mode}
	for id, n := range uses {
		args = append(args, strconv.FormatInt(id, 10), strconv.FormatInt(n, 10))
	}
	rctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
	defer cancel()
	n, err := s.vouchers.Run(rctx, s.rdb, []string{s.Keys(showID)[0], s.VouchersKey(showID)}, args...).Int64Slice()
	if err != nil {
		return false, store.Unavailable("the seat cache", err)
	}
	return len(n) > 0 && n[0] == 1, nil
}

// VoucherUses reads the show's voucher uses in Redis (voucher id -> seats) and whether
// they are loaded. Errors: UNAVAILABLE.
func (s *SeatStore) VoucherUses(ctx context.Context, showID int64) (map[int64]int64, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
	defer cancel()
	m, err := s.rdb.HGetAll(ctx, s.VouchersKey(showID)).Result()
	if err != nil {
		return nil, false, store.Unavailable("the seat cache", err)
	}
	out := map[int64]int64{}
	for k, v := range m {
		if k == "_" {
			continue
		}
		id, _ := strconv.ParseInt(k, 10, 64)
		if n, _ := strconv.ParseInt(v, 10, 64); n != 0 {
			out[id] = n
		}
	}
	return out, m["_"] != "", nil
}

// UsersMark reads, in one round trip, the show's per-user counts marker (the time, in
// Redis's clock as ms, they were last rebuilt; "" when the map is missing) and Redis's
// clock. On a Redis Cluster both go to the show's master: TIME has no key, and the
// cluster client would send it to a random master, a second round trip on another
// node whose clock is not the one the marker was written with (the pipeline goes
// through the cluster client again, following MOVED and ASK, when the show's master
// refuses it during a slot move). Errors: Redis's.
func (s *SeatStore) UsersMark(ctx context.Context, showID int64) (string, time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, store.RedisTimeout)
	defer cancel()
	key := s.Keys(showID)[2]
	var mark *redis.StringCmd
	var now *redis.TimeCmd
	read := func(p redis.Pipeliner) error {
		mark = p.HGet(ctx, key, "_")
		now = p.Time(ctx)
		return nil
	}
	var err error
	if cc, ok := s.rdb.(*redis.ClusterClient); ok {
		var node *redis.Client
		if node, err = cc.MasterForKey(ctx, key); err == nil {
			_, err = node.Pipelined(ctx, read)
		}
		if err != nil && !errors.Is(err, redis.Nil) {
			_, err = s.rdb.Pipelined(ctx, read)
		}
	} else {
		_, err = s.rdb.Pipelined(ctx, read)
	}
	if err != nil && !errors.Is(err, redis.Nil) {
		return "", time.Time{}, err
	}
	return mark.Val(), now.Val(), nil
}

// Redis returns the Redis client that holds the seat maps.
func (s *SeatStore) Redis() redis.UniversalClient { return s.rdb }

// Prefix returns the prefix of every Redis key the seat store and its neighbours write
// ("sf" by default; DESIGN.md "Redis key layout").
func (s *SeatStore) Prefix() string { return s.prefix }

// houseSeatsForSnapshot returns the house seats of a show for SnapshotFromDB with a
// locking read: a block or unblock whose transaction is open is waited for, so a
// snapshot never misses a block whose seats the seat cache already shows blocked. A
// deadlock with such a transaction is retried.
func houseSeatsForSnapshot(ctx context.Context, db *sqlx.DB, showID int64) (map[int64]bool, error) {
	var err error
	for attempt := 0; attempt < store.TxAttempts; attempt++ {
		var ids []int64
		if ids, err = store.ShareLockShowHouseSeatIDs(ctx, db, showID); err == nil {
			out := make(map[int64]bool, len(ids))
			for _, id := range ids {
				out[id] = true
			}
			return out, nil
		}
		if !store.IsRetryable(err) {
			break
		}
	}
	return nil, store.Unavailable("the database", err)
}

// LoadScript returns lua/load.lua as the seat store runs it; the tests of the key layout
// (invariant 9) run it with keys of their own.
func (s *SeatStore) LoadScript() *redis.Script { return s.load }
