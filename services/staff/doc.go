// Package staff is what cinema staff do to orders and seats after the sale opened:
// order search and detail (StaffOrders), refunds, cancelling a show with its orders,
// house seats and manual release of stuck holds (ShowSeats), and the dashboard.
//
// It owns the show_house_seats table and writes orders only through the orders
// package's transitions. It imports services, store, audit, catalog, seats and orders;
// every write is audited (invariant 11).
package staff
