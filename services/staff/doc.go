// Package staff is what cinema staff do to orders and seats after the sale opened:
// order search and detail (StaffOrders), refunds, cancelling a show with its orders,
// house seats and manual release of stuck holds (ShowSeats), the dashboard, and
// admission at the door (Door: a ticket is admitted at most once, DESIGN.md invariant 17).
//
// It owns the show_house_seats table and the orders' admitted_at and admitted_by columns,
// and writes orders' status only through the orders package's transitions. It imports services, store, audit, catalog, seats and orders;
// every write is audited (invariant 11).
package staff
