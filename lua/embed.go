// Package lua holds the Redis scripts that are the only writers of seat state.
//
// Every script touches only the keys of one show, all tagged with that show's hash slot
// (sf:{show:42}:seats, sf:{show:42}:zones, sf:{show:42}:users), and takes ids as strings.
// Every script that writes seat state publishes the change to the show's viewers in the
// same atomic step (notify.lua): fan-out needs no Redis call per viewer.
// Seat values in the seats hash: "F" free, "B" blocked, "H|<order_no>|<user_id>" held,
// "S|<order_no>|<user_id>" sold. A missing hash or field means "not loaded", never free.
// The other scripts (the reconciliation lease, the Idempotency-Key lock's release) write
// no seat state; each touches the keys of one hash slot.
package lua

import _ "embed"

// notify is the prelude of every script that writes seat state: it publishes what
// changed to the show's viewers (see notify.lua).
//
//go:embed notify.lua
var notify string

// The scripts that write seat state, each with the notify prelude.
var (
	Hold    = notify + "local PRE = nil\n" + holdBody
	Release = notify + releaseBody
	Sell    = notify + sellBody
	Load    = notify + loadBody
	Repair  = notify + repairBody
)

// Hold checks a whole batch (every seat free, zone counts, purchase limit) and only then
// writes the holds. See hold.lua for arguments and replies. Run on its own (and by
// Exchange) it reads every value itself and checks that the show's map is loaded; as the
// function hold of Order it takes the values Order read already (PRE).
//
//go:embed hold.lua
var holdBody string

// Order is one order's whole Redis side in one call: the Idempotency-Key's marker and
// lock, the precheck, the order rate limits (GCRA, as redis_rate) and the hold, with
// hold.lua as its function hold. See order.lua.
var Order = notify + "local function hold(KEYS, ARGV, PRE)\n" + holdBody + "\nend\n" + orderBody

//go:embed order.lua
var orderBody string

// Release frees the seats an order holds (owner-checked compare-and-set). See release.lua.
//
//go:embed release.lua
var releaseBody string

// Sell turns the seats an order holds into sold seats (owner-checked). See sell.lua.
//
//go:embed sell.lua
var sellBody string

// Exchange moves a live order onto other seats: hold's checks and hold of the new
// seats (sold for a paid order), then the old seats freed owner-checked, in one script.
// See exchange.lua.
var Exchange = notify + "local function hold(KEYS, ARGV, PRE)\n" + holdBody + "\nend\n" + exchangeBody

//go:embed exchange.lua
var exchangeBody string

// Load writes a show's seat map and counters built from MySQL. See load.lua.
//
//go:embed load.lua
var loadBody string

// Repair compare-and-sets seat values for reconciliation and recomputes the zone and
// per-user counters from the seat values, fenced by the lease token. See repair.lua.
//
//go:embed repair.lua
var repairBody string

// Vouchers writes a show's voucher uses from MySQL's counts (a map load fills them,
// reconciliation replaces them). See vouchers.lua.
//
//go:embed vouchers.lua
var Vouchers string

// House blocks free seats as house seats (all or nothing) or frees blocked ones, moving
// the zone free counts. See house.lua.
//
//go:embed house.lua
var houseBody string

// House is house.lua with the notify prelude.
var House = notify + houseBody

// LeaseAcquire takes the reconciliation lease with a new fencing token. See lease_acquire.lua.
//
//go:embed lease_acquire.lua
var LeaseAcquire string

// LeaseRenew extends or gives back the reconciliation lease. See lease_renew.lua.
//
//go:embed lease_renew.lua
var LeaseRenew string

// IdemRelease gives back an Idempotency-Key's lock, dropping its marker after a failed
// create. See idem_release.lua.
//
//go:embed idem_release.lua
var IdemRelease string

// WaitingRoom is one show's waiting room: join, read, admit at the pace, close, set the
// pace, read the room's figures. It writes no seat state. See waiting_room.lua.
//
// LeaseHeartbeat keeps the registry of live instances (beat, bump, read). See
// lease_heartbeat.lua.
//
//go:embed lease_heartbeat.lua
var LeaseHeartbeat string

//go:embed waiting_room.lua
var WaitingRoom string

// Scripts is every script the application runs, by name (the hold script is "hold",
// the waiting room's "waiting_room", ...). The cluster tests check that each one is
// exercised and that every call keeps its keys in one hash slot.
func Scripts() map[string]string {
	return map[string]string{
		"hold": Hold, "order": Order, "exchange": Exchange, "release": Release, "sell": Sell, "load": Load, "repair": Repair,
		"house": House, "lease_acquire": LeaseAcquire, "lease_renew": LeaseRenew, "lease_heartbeat": LeaseHeartbeat,
		"idem_release": IdemRelease, "waiting_room": WaitingRoom, "vouchers": Vouchers,
	}
}
