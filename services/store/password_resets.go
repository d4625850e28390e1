package store

import (
	"context"
	"time"
)

// InsertPasswordReset records a reset link by the SHA-256 of its token and returns its id.
func InsertPasswordReset(ctx context.Context, q Querier, tokenHash []byte, userID int64, now, expiresAt time.Time) (int64, error) {
	res, err := q.ExecContext(ctx, `INSERT INTO password_resets (token_hash, user_id, created_at, expires_at)
			VALUES (?, ?, ?, ?)`, tokenHash, userID, now, expiresAt)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// UsablePasswordReset reports a reset link of tokenHash unused and unexpired at now (sql.ErrNoRows otherwise).
func UsablePasswordReset(ctx context.Context, q Querier, tokenHash []byte, now time.Time) error {
	var one int
	return q.GetContext(ctx, &one, `SELECT 1 FROM password_resets
		WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?`, tokenHash, now)
}

// UsePasswordReset marks the reset link of tokenHash used at now if it is unused and unexpired, and returns the rows changed.
func UsePasswordReset(ctx context.Context, q Querier, tokenHash []byte, now time.Time) (int64, error) {
	res, err := q.ExecContext(ctx, `UPDATE password_resets SET used_at = ?
			WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?`, now, tokenHash, now)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// PasswordResetUser returns the account id of the reset link of tokenHash.
func PasswordResetUser(ctx context.Context, q Querier, tokenHash []byte) (int64, error) {
	var userID int64
	err := q.GetContext(ctx, &userID, "SELECT user_id FROM password_resets WHERE token_hash = ?", tokenHash)
	return userID, err
}

// UseUserPasswordResets marks every unused reset link of userID used at now.
func UseUserPasswordResets(ctx context.Context, q Querier, userID int64, now time.Time) error {
	_, err := q.ExecContext(ctx, "UPDATE password_resets SET used_at = ? WHERE user_id = ? AND used_at IS NULL", now, userID)
	return err
}
