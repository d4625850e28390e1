// Package orders is the order pipeline: Orders creates an order (rate limits,
// Idempotency-Key, precheck, the hold in Redis, one MySQL transaction), reads it, and
// ends it by payment, cancellation or expiry; Payments starts payments and applies the
// provider's signed webhooks; AsyncExpiry schedules expiry tasks; Tickets signs and
// verifies ticket references. InsertOrder writes an order through store.InsertOrders,
// the one INSERT of orders.
//
// A create reads top to bottom: Create (create.go) lists its steps, then precheck.go
// (one Redis read), idempotency.go (the key's lock), hold.go (the Lua hold), commit.go
// (the MySQL transaction) and group_commit.go (the batches it runs in).
//
// It owns the rules of the orders, order_seats, idempotency_keys, payments and
// seat_syncs tables, whose SQL lives in services/store. It imports services, store,
// catalog, seats, mail and lua. It keeps invariants 1, 2 (all or nothing), 5 (one conditional
// update per transition), 6 (money from zone prices, in minor units) and 10 (money
// moves only for a live sale) (DESIGN.md "Invariants", "The order pipeline").
package orders
