// Package waitingroom is a show's waiting room for flash on-sales (API.md "Waiting
// room", DESIGN.md "Waiting room"): a queue in Redis that everyone who joins before the
// sale opens enters in a uniformly random order drawn once at the opening, and everyone
// later in the order they joined; admission from the front at the show's pace, shared
// by every instance; signed admission tokens that the order path checks before it
// spends a rate-limit token or a hold. It writes no seat state: it only gates who may
// call the order path.
//
// Every key of a show's room shares the show's hash slot ({show:<id>}), and one Lua
// script (lua/waiting_room.lua) is the only writer of them. It imports services, store,
// seats and lua, and keeps invariant 13 with the order path that checks its tokens.
package waitingroom
