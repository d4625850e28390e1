package store

import (
	"context"
	"strings"
	"time"

	"seatflow/services"
)

// LoadTestUser is a user's id and email.
type LoadTestUser struct {
	ID    int64  `db:"id"`
	Email string `db:"email"`
}

// LoadTestSession is a session to insert: the SHA-256 of its token, its user and times (UTC).
type LoadTestSession struct {
	TokenHash                     []byte
	UserID                        int64
	CreatedAt, LastSeen, ExpireAt time.Time
}

// LoadTestInsertUsers inserts customers (emails[i] named names[i]) with one password hash created at now in one statement (emails must not be empty).
func LoadTestInsertUsers(ctx context.Context, q Querier, emails, names []string, passwordHash []byte, now time.Time) error {
	args := make([]any, 0, 5*len(emails))
	for i := range emails {
		args = append(args, emails[i], names[i], passwordHash, services.RoleCustomer, now)
	}
	_, err := q.ExecContext(ctx, "INSERT INTO users (email, name, password_hash, role, created_at) VALUES "+
		strings.TrimSuffix(strings.Repeat("(?,?,?,?,?),", len(emails)), ","), args...)
	return err
}

// LoadTestUsersByEmail lists the users with one of emails (emails must not be empty).
func LoadTestUsersByEmail(ctx context.Context, q Querier, emails []string) ([]LoadTestUser, error) {
	var rows []LoadTestUser
	err := catalogSelectIn(ctx, q, &rows, "SELECT id, email FROM users WHERE email IN (?)", emails)
	return rows, err
}

// LoadTestInsertSessions inserts sessions in one statement (sessions must not be empty).
func LoadTestInsertSessions(ctx context.Context, q Querier, sessions []LoadTestSession) error {
	args := make([]any, 0, 5*len(sessions))
	for _, s := range sessions {
		args = append(args, s.TokenHash, s.UserID, s.CreatedAt, s.LastSeen, s.ExpireAt)
	}
	_, err := q.ExecContext(ctx, "INSERT INTO sessions (token_hash, user_id, created_at, last_seen_at, expires_at) VALUES "+
		strings.TrimSuffix(strings.Repeat("(?,?,?,?,?),", len(sessions)), ","), args...)
	return err
}

// LoadTestOpenWaitingRoom turns a show's waiting room on at admitPerMinute buyers a minute.
func LoadTestOpenWaitingRoom(ctx context.Context, q Querier, showID int64, admitPerMinute int) error {
	_, err := q.ExecContext(ctx, "UPDATE shows SET waiting_room = 1, admit_per_minute = ? WHERE id = ?", admitPerMinute, showID)
	return err
}

// LoadTestSetSaleOpens sets a show's sale opening (UTC).
func LoadTestSetSaleOpens(ctx context.Context, q Querier, showID int64, at time.Time) error {
	_, err := q.ExecContext(ctx, "UPDATE shows SET sale_opens_at = ? WHERE id = ?", at, showID)
	return err
}
