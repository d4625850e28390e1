// Package services is seatflow's shared vocabulary: the words every domain package
// under it speaks, and nothing that decides or stores.
//
// It holds the error type and the contract's error codes (Error, Code*, Errorf), the
// Clock, the domain types (User, Movie, Hall, Zone, Seat, Show, Order, OrderSeat and
// their statuses), order numbers (NewOrderNo), the cinema's local time (LocalTime),
// e-mail canonicalisation (CanonicalEmail) and the Prometheus collectors (Metrics).
//
// The domain packages, from the bottom up (each imports only packages above it in
// this list, never one below; DESIGN.md "Packages and storage" draws the graph):
//
//	store        the storage layer: every SQL statement, one file per table or
//	             aggregate; MySQL open/migrate, transactions, SQL error mapping, the
//	             Redis client and lease
//	mail         the e-mail outbox (Queue), bodies, SMTP delivery, dispatcher, mailbox
//	audit        the audit log of staff and admin writes
//	accounts     users, sessions, password resets, user admin
//	catalog      halls and layouts, movies, shows, prices, sale windows (Catalog, CatalogWriter)
//	seats        the seat maps in Redis and their Lua scripts, best-available, live seat events
//	orders       creating, paying, cancelling and expiring orders; payments; tickets
//	waitingroom  the waiting room of a flash on-sale and its admission tokens
//	staff        refunds, show cancellation, house seats, manual release, dashboard, the door
//	reconcile    comparing the seat maps with MySQL and repairing them
//	waitlist     the waiting lists of sold-out shows and their offers
//	demo         the demo cinema and the stadium fixture
//
// This package imports no other seatflow package.
package services
