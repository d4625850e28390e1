package store

import (
	"context"
	"strings"
	"time"
)

// SeedUser is a user's id and email.
type SeedUser struct {
	ID    int64  `db:"id"`
	Email string `db:"email"`
}

// SeedUserIDByEmail returns the id of the user with email; sql.ErrNoRows when there is none.
func SeedUserIDByEmail(ctx context.Context, q Querier, email string) (int64, error) {
	var id int64
	err := q.GetContext(ctx, &id, "SELECT id FROM users WHERE email = ?", email)
	return id, err
}

// SeedInsertUser inserts a user with a password hash and role created at now, unless the email is taken.
func SeedInsertUser(ctx context.Context, q Querier, email, name string, passwordHash []byte, role string, now time.Time) error {
	_, err := q.ExecContext(ctx, "INSERT IGNORE INTO users (email, name, password_hash, role, created_at) VALUES (?, ?, ?, ?, ?)",
		email, name, passwordHash, role, now)
	return err
}

// SeedInsertUsers inserts users (emails[i] named names[i]) with one password hash and role created at now in one statement, skipping emails taken (emails must not be empty).
func SeedInsertUsers(ctx context.Context, q Querier, emails, names []string, passwordHash []byte, role string, now time.Time) error {
	var sb strings.Builder
	args := make([]any, 0, 5*len(emails))
	sb.WriteString("INSERT IGNORE INTO users (email, name, password_hash, role, created_at) VALUES ")
	for i := range emails {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString("(?, ?, ?, ?, ?)")
		args = append(args, emails[i], names[i], passwordHash, role, now)
	}
	_, err := q.ExecContext(ctx, sb.String(), args...)
	return err
}

// SeedUsersLike lists the users whose email matches the LIKE pattern.
func SeedUsersLike(ctx context.Context, q Querier, pattern string) ([]SeedUser, error) {
	var rows []SeedUser
	err := q.SelectContext(ctx, &rows, "SELECT id, email FROM users WHERE email LIKE ?", pattern)
	return rows, err
}

// SeedShowOrderCount counts a show's orders of any status.
func SeedShowOrderCount(ctx context.Context, q Querier, showID int64) (int, error) {
	var n int
	err := q.GetContext(ctx, &n, "SELECT COUNT(*) FROM orders WHERE show_id = ?", showID)
	return n, err
}
