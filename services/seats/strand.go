package seats

import (
	"slices"
	"strconv"
	"strings"

	"seatflow/services"
	"seatflow/services/catalog"
)

// The single-seat rule of a show (API.md "Seat rules and the waiting list"; stored and
// checked by the catalog): off, warn (an order that strands a seat succeeds and lists
// it) or enforce (it is refused with SINGLE_SEAT_GAP unless no choice of as many seats
// in the same row and zone strands none).
const (
	RuleOff     = catalog.RuleOff
	RuleWarn    = catalog.RuleWarn
	RuleEnforce = catalog.RuleEnforce
)

// Stranded is the one definition of a stranded seat (DESIGN.md §10), shared by
// best-available, the check of chosen seats (lua/hold.lua implements the same, proven
// equal by TestStranded_LuaAgreesWithGo) and the seat picker (static/js/seatmap.js).
//
// Only standard seats take part: wheelchair spaces and companion seats are sold as
// their own unit (companion rule), so they are never stranded and never count as a
// free neighbour; blocked seats, house seats, held and sold seats are taken. A seat is
// stranded by an order when, once the order's seats (chosen, indexes in hall.Seats) are
// taken, it is free and neither seat beside it in its row (Hall.Beside: an aisle, a
// gap, another kind or the row's end is no seat) is free, while before the order one
// of them was: it is beside a seat of the order. free is parallel to hall.Seats (true:
// free before the order). It returns the stranded seats' indexes, in hall order.
func Stranded(hall *services.Hall, free []bool, chosen []int32) []int32 {
	in := make(map[int32]bool, len(chosen))
	for _, c := range chosen {
		in[c] = true
	}
	freeAfter := func(i int32) bool { return i >= 0 && free[i] && !in[i] }
	var out []int32
	for _, c := range chosen {
		l, r := hall.Beside(c)
		for _, n := range [2]int32{l, r} {
			if !freeAfter(n) {
				continue
			}
			nl, nr := hall.Beside(n)
			if !freeAfter(nl) && !freeAfter(nr) {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// GapRefused applies the enforce rule to an order's seats: stranded are the seats the
// order strands (Stranded), and refuse is true when one of the rows holding a stranded
// seat offers, for a zone of which the order takes k standard seats in that row, k free
// standard seats of that zone side by side that strand none. (An order whose seats
// strand a seat in a row where every choice would is accepted: the rule asks for the
// best that is left, not for the impossible.)
func GapRefused(hall *services.Hall, free []bool, chosen []int32) (stranded []int32, refuse bool) {
	stranded = Stranded(hall, free, chosen)
	if len(stranded) == 0 {
		return nil, false
	}
	rows := map[int]bool{}
	for _, i := range stranded {
		rows[hall.Seats[i].Row] = true
	}
	type rowZone struct {
		row  int
		zone string
	}
	need := map[rowZone]int{}
	for _, c := range chosen {
		s := &hall.Seats[c]
		if s.Kind == services.KindStandard && rows[s.Row] {
			need[rowZone{s.Row, s.ZoneCode}]++
		}
	}
	for rz, k := range need {
		if cleanWindow(hall, free, hall.Runs(rz.row), rz.zone, k) {
			return stranded, true
		}
	}
	return stranded, false
}

// cleanWindow reports whether runs hold k free seats of zone side by side whose taking
// strands no seat. Only the two seats beyond a window's ends can be stranded by it.
func cleanWindow(hall *services.Hall, free []bool, runs [][]int32, zone string, k int) bool {
	for _, run := range runs {
		streak := 0 // free seats of the zone ending at j
		for j, i := range run {
			if !free[i] || hall.Seats[i].ZoneCode != zone {
				streak = 0
				continue
			}
			streak++
			if streak < k {
				continue
			}
			s := j - k + 1 // the window is run[s..j]
			if !strandsBeyond(free, run, s-1, -1) && !strandsBeyond(free, run, j+1, +1) {
				return true
			}
		}
	}
	return false
}

// strandsBeyond reports whether run[at], just beyond a window (dir: the way away from
// it), would be stranded by the window: it is free and the seat past it is not.
func strandsBeyond(free []bool, run []int32, at, dir int) bool {
	if at < 0 || at >= len(run) || !free[run[at]] {
		return false
	}
	past := at + dir
	return past < 0 || past >= len(run) || !free[run[past]]
}

// RuleArgs are the hold script's single-seat arguments for an order's seats under rule
// (see lua/hold.lua): the rule, then one string per row the order touches: its window,
// "/", then the whole row. The whole row is its runs of standard seats separated by
// ";", each seat "id:zone" (or a range "first-last:zone", writeRun) separated by ",";
// the window is, of each run holding an order's seat, the part from two seats before
// its first order's seat to two after its last, in the same form: the only seats the
// order can strand, and those deciding it.
// The script reads the whole row only to look for another block when the order strands
// a seat under enforce. Off (or an order of no standard seat) needs none.
func RuleArgs(hall *services.Hall, rule string, chosen []int64) (string, []string) {
	if rule != RuleWarn && rule != RuleEnforce {
		return "", nil
	}
	mine := make(map[int32]bool, len(chosen))
	var order []int // rows in the order of the chosen seats
	for _, id := range chosen {
		i, ok := hall.SeatIndex(id)
		if !ok || hall.Seats[i].Kind != services.KindStandard {
			continue
		}
		mine[int32(i)] = true
		if r := hall.Seats[i].Row; !slices.Contains(order, r) {
			order = append(order, r)
		}
	}
	if len(order) == 0 {
		return "", nil
	}
	rows := make([]string, 0, len(order))
	var b strings.Builder
	for _, row := range order {
		b.Reset()
		first := true
		for _, run := range hall.Runs(row) {
			lo, hi := -1, -1
			for j, i := range run {
				if mine[i] {
					if lo < 0 {
						lo = j
					}
					hi = j
				}
			}
			if lo < 0 {
				continue
			}
			if !first {
				b.WriteByte(';')
			}
			first = false
			writeRun(&b, hall, run[max(0, lo-2):min(len(run), hi+3)])
		}
		b.WriteByte('/')
		b.WriteString(wholeRow(hall, row))
		rows = append(rows, b.String())
	}
	return rule, rows
}

// wholeRow is a row's runs of standard seats in RuleArgs's form, built once per hall.
func wholeRow(hall *services.Hall, row int) string {
	return hall.RowMemo(row, func() string {
		var b strings.Builder
		for r, run := range hall.Runs(row) {
			if r > 0 {
				b.WriteByte(';')
			}
			writeRun(&b, hall, run)
		}
		return b.String()
	})
}

// writeRun writes seats (indexes in hall.Seats, in their run's order) separated by ",",
// each "id:zone", or "first-last:zone" for two or more seats side by side whose ids
// count up by one and which share a zone (a row laid out in one go is a few such
// ranges: a 200-seat row is tens of bytes, not 3 KB, in every order's script call).
func writeRun(b *strings.Builder, hall *services.Hall, run []int32) {
	for j := 0; j < len(run); {
		s := hall.Seats[run[j]]
		k := j + 1
		for k < len(run) && hall.Seats[run[k]].ID == s.ID+int64(k-j) && hall.Seats[run[k]].ZoneCode == s.ZoneCode {
			k++
		}
		if j > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(s.ID, 10))
		if k-j > 1 {
			b.WriteByte('-')
			b.WriteString(strconv.FormatInt(hall.Seats[run[k-1]].ID, 10))
		}
		b.WriteByte(':')
		b.WriteString(s.ZoneCode)
		j = k
	}
}

// Indexes returns the hall indexes of seat ids (ids not in the hall are left out).
func Indexes(hall *services.Hall, ids []int64) []int32 {
	out := make([]int32, 0, len(ids))
	for _, id := range ids {
		if i, ok := hall.SeatIndex(id); ok {
			out = append(out, int32(i))
		}
	}
	return out
}

// SeatLabels returns the labels of seat indexes ("F8"), in their order.
func SeatLabels(hall *services.Hall, idx []int32) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = hall.Seats[i].Label
	}
	return out
}
