// Package orders is the order pipeline: Orders creates an order (Idempotency-Key,
// precheck, rate limits and the hold in one Redis call, one MySQL transaction), reads it, and
// ends it by payment, cancellation or expiry; Payments starts payments, applies the
// provider's signed webhooks and refunds (refund.go: all or some seats of a paid order;
// self_refund.go: the buyer's cancel of a paid order before the show's cut-off); AsyncExpiry schedules expiry tasks; Tickets signs and
// verifies ticket references. InsertOrder writes an order through store.InsertOrders,
// the one INSERT of orders. An order changes status only through Orders.Transition,
// which refuses an edge the state diagram does not have.
//
// A create reads top to bottom: Create (create.go) lists its steps, then precheck.go
// (the one call of lua/order.lua), hold.go (the hold it ends with), idempotency.go (the
// key's replay and give-back), commit.go (the MySQL transaction) and group_commit.go
// (the batches it runs in).
//
// It keeps the rules of the orders (with their Idempotency-Keys), order_seats, payments, refunds,
// refund_seats and seat_syncs tables, one aggregate whose SQL is in package store. It imports services,
// store, catalog, seats, mail (the order e-mails, queued in the order's transaction) and
// lua. It keeps invariants 1, 2 (all or nothing), 5 (one conditional update per
// transition), 6 (money from zone prices, in minor units), 10 (money moves only for a
// live sale) and 20 (money adds up) (DESIGN.md "Invariants", "The order pipeline").
package orders
