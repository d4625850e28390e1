package seats

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"seatflow/services"
)

// Finding kinds of reconciliation: what drift between MySQL (the truth) and the seat
// cache in Redis was found (DESIGN.md, Reconciliation).
const (
	FindingMissingMap        = "missing_map"         // a show on sale has no seat map: rebuild it from MySQL
	FindingHoldWithoutOrder  = "hold_without_order"  // a seat held or sold by an order that is not live: release it
	FindingLiveNotHeld       = "live_not_held"       // a seat of a pending order is not held by it: hold it
	FindingPaidNotSold       = "paid_not_sold"       // a seat of a paid order is not sold to it: sell it
	FindingSoldNotPaid       = "sold_not_paid"       // a seat sold to an order that is only pending: back to held
	FindingSeatMismatch      = "seat_mismatch"       // a free or blocked seat has another value or none: set it; a field that is no seat of the hall: remove it
	FindingZoneCount         = "zone_count"          // a zone's free count differs from the seat values: recompute
	FindingUserCount         = "user_count"          // a buyer's purchase-limit count differs: recompute
	FindingOverdueOrder      = "overdue_order"       // a pending order is past its deadline: expire it
	FindingCancelledShow     = "cancelled_show"      // a pending order of a cancelled show (made while it was cancelled): cancel it
	FindingMissingExpiryTask = "missing_expiry_task" // a pending order has no expiry task: schedule it again
	FindingSeatOutsideHall   = "seat_outside_hall"   // a live order holds a seat that is not a seat of its show's hall: reported, staff decide
	FindingDuplicateLabel    = "duplicate_label"     // two live seats of one show carry one label: reported, staff decide
	FindingVoucherUses       = "voucher_uses"        // a show's voucher uses in the seat cache differ from voucher_uses: rebuild them
	FindingMoney             = "money_mismatch"      // an order's money kept by the provider differs from its paid seats' prices: reported, staff decide
)

// Actions a finding asks for (the same word whether or not the run applied it).
const (
	ActionRebuild    = "rebuild"
	ActionRelease    = "release"
	ActionHold       = "hold"
	ActionSell       = "sell"
	ActionSet        = "set"
	ActionRemove     = "remove"
	ActionRecompute  = "recompute"
	ActionExpire     = "expire"
	ActionCancel     = "cancel"
	ActionReschedule = "reschedule"
	ActionReport     = "report" // MySQL itself is wrong: nothing is repaired, staff choose
)

// Finding is one piece of drift: its kind, where it is (ShowID; SeatID and OrderNo when
// it is about a seat or an order, else 0 and ""), the action it asks for, whether the
// run applied it (Fixed) and a line for people (Detail).
type Finding struct {
	Kind    string `db:"kind"`
	ShowID  int64  `db:"show_id"`
	SeatID  int64  `db:"seat_id"`
	OrderNo string `db:"order_no"`
	Action  string `db:"action"`
	Fixed   bool   `db:"fixed"`
	Detail  string `db:"detail"`
}

// SeatComparison is the input of CompareSeatCache: a show's seat state in MySQL
// (Truth, from SnapshotFromDB), its seat cache (Cache, from ReadCache, with a seat map),
// the zone of every sellable seat (ZoneOf), and the grace period: a hold whose order is
// not live in Truth is left alone while its order number is younger than Grace at Now
// (its create transaction may still be in flight). Spare, when set, decides instead of
// the grace: it is asked about each seat the cache gives to an order (cacheOrderNo) that
// MySQL does not give it to (want is MySQL's value) and returns true to leave it alone.
type SeatComparison struct {
	ShowID int64
	Truth  *Snapshot
	Cache  *CacheState
	ZoneOf map[int64]string
	Now    time.Time
	Grace  time.Duration
	Spare  func(cacheOrderNo, want string) bool
}

// CompareSeatCache is the one definition of "the seat cache agrees with MySQL", used by
// reconciliation and by the tests' invariant check. It returns the findings, sorted by
// kind then seat, and the compare-and-set repairs that make every seat value equal
// MySQL's; counter findings compare the cache's counters with those the repaired seat
// values imply. It reads and writes nothing.
func CompareSeatCache(c SeatComparison) ([]Finding, []SeatRepair) {
	var findings []Finding
	var repairs []SeatRepair
	after := make(map[int64]string, len(c.Truth.Values))
	for id, v := range c.Cache.Seats {
		after[id] = v
	}
	ids := make([]int64, 0, len(c.Truth.Values))
	for id := range c.Truth.Values {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		want := c.Truth.Values[id]
		got, present := c.Cache.Seats[id]
		if present && got == want {
			continue
		}
		gotState, gotNo, _ := SeatValue(got)
		wantState, wantNo, _ := SeatValue(want)
		if gotNo != "" && gotNo != wantNo {
			if (c.Spare == nil && InFlight(gotNo, c.Now, c.Grace)) || (c.Spare != nil && c.Spare(gotNo, want)) {
				continue // its order may not have committed yet
			}
		}
		f := Finding{ShowID: c.ShowID, SeatID: id, OrderNo: wantNo}
		switch {
		case wantState == services.StateSold:
			f.Kind, f.Action = FindingPaidNotSold, ActionSell
		case wantState == services.StateHeld && gotState == services.StateSold && gotNo == wantNo:
			f.Kind, f.Action = FindingSoldNotPaid, ActionHold
		case wantState == services.StateHeld:
			f.Kind, f.Action = FindingLiveNotHeld, ActionHold
		case gotNo != "":
			f.Kind, f.Action, f.OrderNo = FindingHoldWithoutOrder, ActionRelease, gotNo
		default:
			f.Kind, f.Action = FindingSeatMismatch, ActionSet
		}
		f.Detail = fmt.Sprintf("seat cache %s, database %s", describeSeat(got, present), describeSeat(want, true))
		findings = append(findings, f)
		from := got
		if !present {
			from = ""
		}
		repairs = append(repairs, SeatRepair{SeatID: id, From: from, To: want})
		after[id] = want
	}
	var foreign []int64
	for id := range c.Cache.Seats {
		if _, ok := c.Truth.Values[id]; !ok {
			foreign = append(foreign, id)
		}
	}
	sort.Slice(foreign, func(i, j int) bool { return foreign[i] < foreign[j] })
	for _, id := range foreign {
		got := c.Cache.Seats[id]
		_, no, _ := SeatValue(got)
		findings = append(findings, Finding{Kind: FindingSeatMismatch, ShowID: c.ShowID, SeatID: id, OrderNo: no, Action: ActionRemove,
			Detail: "seat cache " + describeSeat(got, true) + " for a seat that is not in this show's hall"})
		repairs = append(repairs, SeatRepair{SeatID: id, From: got, To: ""})
		delete(after, id)
	}
	findings = append(findings, compareCounters(c, after)...)
	return findings, repairs
}

// InFlight reports whether an order number is younger than grace at now. A number
// that claims to be made more than grace in the future is no order in flight (clocks
// of instances differ by far less): it is treated as old.
func InFlight(orderNo string, now time.Time, grace time.Duration) bool {
	t, ok := services.OrderNoTime(orderNo)
	age := now.Sub(t)
	return ok && age < grace && age > -grace
}

// describeSeat names a seat value for people.
func describeSeat(v string, present bool) string {
	if !present {
		return "missing"
	}
	state, no, _ := SeatValue(v)
	if no != "" {
		return state + " by " + no
	}
	if state == "" {
		return strconv.Quote(v)
	}
	return state
}

// compareCounters compares the cache's zone and per-user counters with those that the
// seat values (after the repairs) imply.
func compareCounters(c SeatComparison, values map[int64]string) []Finding {
	free := map[string]int{}
	for id, zone := range c.ZoneOf {
		if _, ok := free[zone]; !ok {
			free[zone] = 0
		}
		if values[id] == SeatFree {
			free[zone]++
		}
	}
	owned := map[int64]int{}
	for _, v := range values {
		if _, no, user := SeatValue(v); no != "" {
			owned[user]++
		}
	}
	var out []Finding
	zones := make([]string, 0, len(free))
	for z := range free {
		zones = append(zones, z)
	}
	sort.Strings(zones)
	for _, z := range zones {
		if got, want := c.Cache.Zones[z], strconv.Itoa(free[z]); got != want {
			out = append(out, Finding{Kind: FindingZoneCount, ShowID: c.ShowID, Action: ActionRecompute,
				Detail: fmt.Sprintf("zone %s: %s free in the seat cache, %s by the seat values", z, OrMissing(got), want)})
		}
	}
	var extra []string
	for z := range c.Cache.Zones {
		if _, ok := free[z]; !ok {
			extra = append(extra, z)
		}
	}
	sort.Strings(extra)
	for _, z := range extra {
		out = append(out, Finding{Kind: FindingZoneCount, ShowID: c.ShowID, Action: ActionRecompute,
			Detail: fmt.Sprintf("zone %s: %s free in the seat cache, but the hall has no such zone", z, c.Cache.Zones[z])})
	}
	users := map[int64]bool{}
	for u := range owned {
		users[u] = true
	}
	for u, v := range c.Cache.Users {
		if v != "0" {
			users[u] = true
		}
	}
	ids := make([]int64, 0, len(users))
	for u := range users {
		ids = append(ids, u)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, u := range ids {
		got, want := c.Cache.Users[u], strconv.Itoa(owned[u])
		if got == want || (got == "" && want == "0") {
			continue
		}
		out = append(out, Finding{Kind: FindingUserCount, ShowID: c.ShowID, Action: ActionRecompute,
			Detail: fmt.Sprintf("user %d: %s seats in the seat cache, %s by the seat values", u, OrMissing(got), want)})
	}
	return out
}

// OrMissing returns v, or "missing" when it is empty (findings' wording).
func OrMissing(v string) string {
	if v == "" {
		return "missing"
	}
	return v
}

// ZoneOf maps every sellable seat of hall to its zone code.
func ZoneOf(hall *services.Hall) map[int64]string {
	out := make(map[int64]string, len(hall.Seats))
	for _, s := range hall.Seats {
		if s.Sellable() {
			out[s.ID] = s.ZoneCode
		}
	}
	return out
}
