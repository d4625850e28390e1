// Package seats keeps the seat maps in Redis: the seat store and its Lua scripts, the
// only writers of seat state in Redis (SeatStore: load, hold, release, sell, repair),
// reading and comparing a map with MySQL (ReadCache, CompareSeatCache), best-available
// and its snapshot, the companion-seat rule, live seat events for the browsers
// (SeatEvents), the moviegoer's show listing and seat map (Shows), and bringing maps in
// line after a hall edit (Shows.RefreshHall).
//
// It imports services, store, catalog and lua. It keeps invariants 1 (a seat held or sold
// once, by compare-and-set in Lua), 3 (a map is built from MySQL, never guessed; its
// lifetime is counted on Redis's clock), 4 and 9 (DESIGN.md).
package seats
