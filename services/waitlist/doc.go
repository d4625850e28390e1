// Package waitlist keeps the waiting lists of sold-out shows (API.md "Seat rules and
// the waiting list", DESIGN.md §10): buyers join a show's list for a quantity of seats
// (of a zone, or any), and when seats come back by any path (a cancel, an expiry, a
// refund, reconciliation, house seats freed, a lapsed offer) the places are served in
// order: the first whose quantity fits gets an offer, a pending order of a best-available
// block made on the buyer's behalf with a 10-minute deadline.
//
// It keeps the table waitlist_entries (its SQL is in package store). It imports
// services, store, catalog (shows, halls), seats (the seat values, best-available,
// change events) and orders (an offer is created through the order pipeline,
// Orders.CreateOffer, so the Lua hold, the purchase limit and the MySQL unique key guard
// it as any order). Serving a show is exclusive across instances (a MySQL named lock per
// show); seat change events make it prompt, a sweep every few seconds makes it certain.
package waitlist
