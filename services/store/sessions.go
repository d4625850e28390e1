package store

import (
	"context"
	"time"

	"seatflow/services"
)

// SessionUser is the user of a live session with the time the session was last used.
type SessionUser struct {
	services.User
	LastSeen  time.Time `db:"last_seen_at"`
	ExpiresAt time.Time `db:"expires_at"` // when the session ends whatever happens (its MaxAge)
}

// InsertSession records a session by the SHA-256 of its token.
func InsertSession(ctx context.Context, q Querier, tokenHash []byte, userID int64, now, expiresAt time.Time) error {
	_, err := q.ExecContext(ctx, `INSERT INTO sessions (token_hash, user_id, created_at, last_seen_at, expires_at)
		VALUES (?, ?, ?, ?, ?)`, tokenHash, userID, now, now, expiresAt)
	return err
}

// LiveSessionUser returns the user of the session of tokenHash unexpired at now and used after idleSince (sql.ErrNoRows otherwise).
func LiveSessionUser(ctx context.Context, q Querier, tokenHash []byte, now, idleSince time.Time) (SessionUser, error) {
	var row SessionUser
	err := q.GetContext(ctx, &row, `SELECT u.id, u.email, u.name, u.role, u.lang, s.last_seen_at, s.expires_at
		FROM sessions s JOIN users u ON u.id = s.user_id
		WHERE s.token_hash = ? AND s.expires_at > ? AND s.last_seen_at > ?`, tokenHash, now, idleSince)
	return row, err
}

// TouchSession moves the last use of the session of tokenHash forward to now.
func TouchSession(ctx context.Context, q Querier, tokenHash []byte, now time.Time) error {
	_, err := q.ExecContext(ctx, "UPDATE sessions SET last_seen_at = ? WHERE token_hash = ? AND last_seen_at < ?", now, tokenHash, now)
	return err
}

// DeleteSession ends the session of tokenHash.
func DeleteSession(ctx context.Context, q Querier, tokenHash []byte) error {
	_, err := q.ExecContext(ctx, "DELETE FROM sessions WHERE token_hash = ?", tokenHash)
	return err
}

// DeleteUserSessions ends every session of userID.
func DeleteUserSessions(ctx context.Context, q Querier, userID int64) error {
	_, err := q.ExecContext(ctx, "DELETE FROM sessions WHERE user_id = ?", userID)
	return err
}
