package store

import (
	"context"
	"database/sql"
	"time"
)

// IdempotencyKey is one row of idempotency_keys: the order a buyer's key created, and
// the SHA-256 of the request that created it.
type IdempotencyKey struct {
	UserID    int64     `db:"user_id"`
	Key       string    `db:"idem_key"`
	Hash      []byte    `db:"request_hash"`
	OrderID   int64     `db:"order_id"`
	CreatedAt time.Time `db:"created_at"`
}

// IdempotencyKeySince returns the request hash and order id of the user's key used at or after since (sql.ErrNoRows: none).
func IdempotencyKeySince(ctx context.Context, q Querier, userID int64, key string, since time.Time) (IdempotencyKey, error) {
	row := IdempotencyKey{UserID: userID, Key: key}
	err := q.GetContext(ctx, &row, "SELECT request_hash, order_id FROM idempotency_keys WHERE user_id = ? AND idem_key = ? AND created_at >= ?",
		userID, key, since)
	return row, err
}

// InsertIdempotencyKeys writes keys (at least one) in one multi-row INSERT; a key in use fails with 1062 on PRIMARY.
func InsertIdempotencyKeys(ctx context.Context, q Querier, keys []IdempotencyKey) error {
	args := make([]any, 0, 5*len(keys))
	for _, k := range keys {
		args = append(args, k.UserID, k.Key, k.Hash, k.OrderID, k.CreatedAt)
	}
	_, err := q.ExecContext(ctx, "INSERT INTO idempotency_keys (user_id, idem_key, request_hash, order_id, created_at) VALUES "+placeholderRows(len(keys), 5), args...)
	return err
}

// DeleteIdempotencyKeyBefore deletes the user's key when it was used before before (an expired use).
func DeleteIdempotencyKeyBefore(ctx context.Context, q Querier, userID int64, key string, before time.Time) error {
	_, err := q.ExecContext(ctx, "DELETE FROM idempotency_keys WHERE user_id = ? AND idem_key = ? AND created_at < ?", userID, key, before)
	return err
}

// LastIdempotencyKeyAt returns when the newest key of an order of show showID was used
// at or after since (invalid: none), reading only the keys used since then.
func LastIdempotencyKeyAt(ctx context.Context, q Querier, showID int64, since time.Time) (sql.NullTime, error) {
	var last sql.NullTime
	err := q.GetContext(ctx, &last, `SELECT MAX(k.created_at) FROM idempotency_keys k JOIN orders o ON o.id = k.order_id
		WHERE k.created_at >= ? AND o.show_id = ?`, since, showID)
	return last, err
}
