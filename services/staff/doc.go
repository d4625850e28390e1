// Package staff is what cinema staff do to orders and seats after the sale opened:
// order search and detail (StaffOrders), refunds, cancelling a show with its orders,
// house seats and manual release of stuck holds (ShowSeats), the dashboard, and
// admission at the door (Door: a ticket is admitted at most once, DESIGN.md invariant 17).
//
// It keeps the rules of the show_house_seats table and of the orders' admitted_at and
// admitted_by columns (their SQL is in package store), and changes an order's status
// only through the orders package's transitions. It imports services, store, audit,
// catalog, seats, orders, mail, reports and lua; every write is audited (invariant 11).
package staff
