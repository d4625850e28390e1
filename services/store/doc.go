// Package store is how seatflow reaches its stores: opening and migrating MariaDB
// (OpenDB, Migrate), running a transaction with retries (InTx), mapping driver errors
// to the contract (Unavailable, DuplicateOn, IsNoRows), the request timeouts
// (DBTimeout, RedisTimeout), the reconciliation lease in Redis (Lease), a resilient
// pub/sub subscription (SubscribeOnce) and a small TTL cache.
//
// It imports only the root package services. It keeps no invariant of its own; the
// lease is what makes one reconciliation run at a time (invariant 8).
package store
