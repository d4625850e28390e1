package seats

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"seatflow/services"
)

// Unit tests of CompareSeatCache, the pure comparison reconciliation and the invariant
// check share: no stores.

// compareCase builds a show of four seats: 1 and 2 in zone "a", 3 in zone "b", 4 blocked.
func compareCase(truth map[int64]string, cache map[int64]string, zones, users map[string]string) SeatComparison {
	snapUsers := map[int64]int{}
	for _, v := range truth {
		if _, no, u := SeatValue(v); no != "" {
			snapUsers[u]++
		}
	}
	cs := &CacheState{Seats: cache, Zones: zones, Users: map[int64]string{}}
	for k, v := range users {
		var id int64
		for _, c := range k {
			id = id*10 + int64(c-'0')
		}
		cs.Users[id] = v
	}
	return SeatComparison{ShowID: 7, Truth: &Snapshot{Values: truth, Users: snapUsers}, Cache: cs,
		ZoneOf: map[int64]string{1: "a", 2: "a", 3: "b"},
		Now:    time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), Grace: time.Minute}
}

func TestCompareSeatCache(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	old := services.NewOrderNo(now.Add(-10 * time.Minute))
	young := services.NewOrderNo(now.Add(-10 * time.Second))
	other := services.NewOrderNo(now.Add(-20 * time.Minute))
	future := services.NewOrderNo(now.Add(time.Hour))
	h := func(no string) string { return EncodeSeat(false, no, 5) }
	s := func(no string) string { return EncodeSeat(true, no, 5) }
	okZones := func(a, b string) map[string]string { return map[string]string{"a": a, "b": b} }
	cases := []struct {
		name         string
		truth, cache map[int64]string
		zones, users map[string]string
		want         []string // "kind seat order" of each finding, in order
		repairs      int
	}{
		{"in agreement", map[int64]string{1: h(old), 2: "F", 3: "F", 4: "B"}, map[int64]string{1: h(old), 2: "F", 3: "F", 4: "B"},
			okZones("1", "1"), map[string]string{"5": "1"}, nil, 0},
		{"hold without a live order is released", map[int64]string{1: "F", 2: "F", 3: "F", 4: "B"}, map[int64]string{1: h(old), 2: "F", 3: "F", 4: "B"},
			okZones("1", "1"), map[string]string{"5": "1"}, []string{"hold_without_order 1 " + old, "zone_count 0 ", "user_count 0 "}, 1},
		{"young hold without an order is in flight: untouched", map[int64]string{1: "F", 2: "F", 3: "F", 4: "B"}, map[int64]string{1: h(young), 2: "F", 3: "F", 4: "B"},
			okZones("1", "1"), map[string]string{"5": "1"}, nil, 0},
		{"hold by an order number from the future is not in flight", map[int64]string{1: "F", 2: "F", 3: "F", 4: "B"}, map[int64]string{1: h(future), 2: "F", 3: "F", 4: "B"},
			okZones("1", "1"), map[string]string{"5": "1"}, []string{"hold_without_order 1 " + future, "zone_count 0 ", "user_count 0 "}, 1},
		{"seat of a pending order free in the cache", map[int64]string{1: h(old), 2: "F", 3: "F", 4: "B"}, map[int64]string{1: "F", 2: "F", 3: "F", 4: "B"},
			okZones("2", "1"), nil, []string{"live_not_held 1 " + old, "zone_count 0 ", "user_count 0 "}, 1},
		{"seat of a pending order held by an old other order", map[int64]string{1: h(old), 2: "F", 3: "F", 4: "B"}, map[int64]string{1: h(other), 2: "F", 3: "F", 4: "B"},
			okZones("1", "1"), map[string]string{"5": "1"}, []string{"live_not_held 1 " + old}, 1},
		{"seat of a pending order held by a young other order waits", map[int64]string{1: h(old), 2: "F", 3: "F", 4: "B"}, map[int64]string{1: h(young), 2: "F", 3: "F", 4: "B"},
			okZones("1", "1"), map[string]string{"5": "1"}, nil, 0},
		{"paid seat only held", map[int64]string{1: s(old), 2: "F", 3: "F", 4: "B"}, map[int64]string{1: h(old), 2: "F", 3: "F", 4: "B"},
			okZones("1", "1"), map[string]string{"5": "1"}, []string{"paid_not_sold 1 " + old}, 1},
		{"sold seat of a pending order", map[int64]string{1: h(old), 2: "F", 3: "F", 4: "B"}, map[int64]string{1: s(old), 2: "F", 3: "F", 4: "B"},
			okZones("1", "1"), map[string]string{"5": "1"}, []string{"sold_not_paid 1 " + old}, 1},
		{"missing field of a free seat", map[int64]string{1: "F", 2: "F", 3: "F", 4: "B"}, map[int64]string{1: "F", 3: "F", 4: "B"},
			okZones("2", "1"), nil, []string{"seat_mismatch 2 "}, 1},
		{"blocked seat shown free", map[int64]string{1: "F", 2: "F", 3: "F", 4: "B"}, map[int64]string{1: "F", 2: "F", 3: "F", 4: "F"},
			okZones("2", "1"), nil, []string{"seat_mismatch 4 "}, 1},
		{"zone count off", map[int64]string{1: "F", 2: "F", 3: "F", 4: "B"}, map[int64]string{1: "F", 2: "F", 3: "F", 4: "B"},
			okZones("1", "1"), nil, []string{"zone_count 0 "}, 0},
		{"user count off", map[int64]string{1: h(old), 2: "F", 3: "F", 4: "B"}, map[int64]string{1: h(old), 2: "F", 3: "F", 4: "B"},
			okZones("1", "1"), map[string]string{"5": "3"}, []string{"user_count 0 "}, 0},
		{"a field that is no seat of the hall is removed", map[int64]string{1: "F", 2: "F", 3: "F", 4: "B"}, map[int64]string{1: "F", 2: "F", 3: "F", 4: "B", 99: h(old)},
			okZones("2", "1"), map[string]string{"5": "1"}, []string{"seat_mismatch 99 " + old, "user_count 0 "}, 1},
		{"a zero user count equals a missing one", map[int64]string{1: "F", 2: "F", 3: "F", 4: "B"}, map[int64]string{1: "F", 2: "F", 3: "F", 4: "B"},
			okZones("2", "1"), map[string]string{"9": "0"}, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := compareCase(c.truth, c.cache, c.zones, c.users)
			findings, repairs := CompareSeatCache(in)
			var got []string
			for _, f := range findings {
				got = append(got, f.Kind+" "+strconv.FormatInt(f.SeatID, 10)+" "+f.OrderNo)
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			if len(repairs) != c.repairs {
				t.Errorf("%d repairs, want %d: %+v", len(repairs), c.repairs, repairs)
			}
			for _, r := range repairs {
				if want, ok := c.truth[r.SeatID]; r.To != want || (!ok && r.To != "") {
					t.Errorf("repair of seat %d writes %q, MySQL has %q", r.SeatID, r.To, c.truth[r.SeatID])
				}
				if cur, ok := c.cache[r.SeatID]; (ok && r.From != cur) || (!ok && r.From != "") {
					t.Errorf("repair of seat %d expects %q, the cache has %q", r.SeatID, r.From, cur)
				}
			}
		})
	}
}

// The counters a comparison expects are those of the repaired seat values, so a run
// that repairs seats and recomputes counters leaves nothing for the next comparison.
func TestCompareSeatCacheCountersFollowRepairs(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	old := services.NewOrderNo(now.Add(-10 * time.Minute))
	truth := map[int64]string{1: EncodeSeat(false, old, 5), 2: "F", 3: "F", 4: "B"}
	in := compareCase(truth, map[int64]string{1: "F", 2: "F", 3: "F", 4: "B"}, map[string]string{"a": "1", "b": "1"}, map[string]string{"5": "1"})
	findings, repairs := CompareSeatCache(in)
	if len(findings) != 1 || findings[0].Kind != FindingLiveNotHeld || len(repairs) != 1 {
		t.Fatalf("findings %+v repairs %+v: want only live_not_held (counters already match the repaired map)", findings, repairs)
	}
}
