package store

import (
	"context"
	"database/sql"
	"time"
)

// An order keeps the Idempotency-Key it was created with in its own row (orders.idem_key,
// with idem_hash the SHA-256 of the request), written by InsertOrders with the order. A
// use counts for 24 hours from the order's created_at (orders.IdempotencyTTL); the unique
// key below keeps one order per user and key, so a key used again after that is first
// cleared from its old order (ClearIdempotencyKeyBefore).

// IdempotencyKeyUnique is the unique key of orders on (user_id, idem_key): MySQL error
// 1062 on it means the buyer's key names an order already.
const IdempotencyKeyUnique = "uq_orders_idem"

// IdempotencyKey is the order a buyer's key created and the SHA-256 of the request that
// created it.
type IdempotencyKey struct {
	Hash    []byte `db:"idem_hash"`
	OrderID int64  `db:"id"`
}

// IdempotencyKeySince returns the request hash and order id of the user's key used at or after since (sql.ErrNoRows: none).
func IdempotencyKeySince(ctx context.Context, q Querier, userID int64, key string, since time.Time) (IdempotencyKey, error) {
	var row IdempotencyKey
	err := q.GetContext(ctx, &row, "SELECT idem_hash, id FROM orders WHERE user_id = ? AND idem_key = ? AND created_at >= ?",
		userID, key, since)
	return row, err
}

// ClearIdempotencyKeyBefore takes the user's key off their order created before before (an expired use), so the key can name a new order.
func ClearIdempotencyKeyBefore(ctx context.Context, q Querier, userID int64, key string, before time.Time) error {
	_, err := q.ExecContext(ctx, "UPDATE orders SET idem_key = NULL, idem_hash = NULL WHERE user_id = ? AND idem_key = ? AND created_at < ?",
		userID, key, before)
	return err
}

// LastIdempotencyKeyAt returns when the newest key of an order of show showID was used
// at or after since (invalid: none), reading the show's orders.
func LastIdempotencyKeyAt(ctx context.Context, q Querier, showID int64, since time.Time) (sql.NullTime, error) {
	var last sql.NullTime
	err := q.GetContext(ctx, &last, `SELECT MAX(created_at) FROM orders
		WHERE show_id = ? AND created_at >= ? AND idem_key IS NOT NULL`, showID, since)
	return last, err
}
