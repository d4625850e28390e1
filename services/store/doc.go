// Package store is how seatflow reaches its stores, and its storage layer: every SQL
// statement lives here, one file per table or aggregate, in functions that take a
// Querier (the pool or the caller's transaction) so that the domain packages keep the
// rules and their transactions but hold no SQL (TestSQLLivesInStorage; DESIGN.md
// "Packages and storage"). Around it: opening and migrating MariaDB (OpenDB, Migrate),
// running a transaction with retries (InTx), mapping driver errors to the contract
// (Unavailable, DuplicateOn, IsNoRows), the request timeouts (DBTimeout,
// RedisTimeout), the Redis client (NewRedis), the reconciliation lease in Redis
// (Lease), a resilient pub/sub subscription (SubscribeOnce) and a small TTL cache.
//
// It imports the root package services, lua (the lease's scripts) and migrations. It
// keeps no invariant of its own; the lease is what makes one reconciliation run at a
// time (invariant 8).
package store
