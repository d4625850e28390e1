package store

import (
	"context"
	"strings"
	"time"

	"seatflow/services"
)

// UserAccount is an account as admins list it: no password hash. CreatedAt is UTC.
type UserAccount struct {
	ID        int64     `db:"id"`
	Email     string    `db:"email"`
	Name      string    `db:"name"`
	Role      string    `db:"role"`
	CreatedAt time.Time `db:"created_at"`
	// CinemaIDs are the cinemas a staff member is limited to (empty: every cinema); the
	// account services fill it in from staff_cinemas.
	CinemaIDs []int64 `db:"-"`
}

// UserLogin is a user with the bcrypt hash of their password, as a login reads it.
type UserLogin struct {
	services.User
	Hash []byte `db:"password_hash"`
}

// UserSearch narrows UserAccounts; zero values do not filter. EmailPart is a part of
// the canonical address, matched with LIKE (its wildcards escaped); Limit is the most
// rows returned.
type UserSearch struct {
	EmailPart string
	Role      string
	Limit     int
}

// userLikeEscaper escapes LIKE's wildcards so a typed "_" or "%" matches itself.
var userLikeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// InsertUser creates an account and returns its id.
func InsertUser(ctx context.Context, q Querier, email, name string, hash []byte, role string, createdAt time.Time) (int64, error) {
	res, err := q.ExecContext(ctx, "INSERT INTO users (email, name, password_hash, role, created_at) VALUES (?, ?, ?, ?, ?)",
		email, name, hash, role, createdAt)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// SetUserPasswordAndRole replaces the password hash and role of the account of email and returns the rows changed.
func SetUserPasswordAndRole(ctx context.Context, q Querier, email string, hash []byte, role string) (int64, error) {
	res, err := q.ExecContext(ctx, "UPDATE users SET password_hash = ?, role = ? WHERE email = ?", hash, role, email)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// UserIDByEmail returns the id of the account of email (sql.ErrNoRows when there is none).
func UserIDByEmail(ctx context.Context, q Querier, email string) (int64, error) {
	var id int64
	err := q.GetContext(ctx, &id, "SELECT id FROM users WHERE email = ?", email)
	return id, err
}

// UserLoginByEmail returns the account of email with its password hash (sql.ErrNoRows when there is none).
func UserLoginByEmail(ctx context.Context, q Querier, email string) (UserLogin, error) {
	var row UserLogin
	err := q.GetContext(ctx, &row, "SELECT id, email, name, role, lang, password_hash FROM users WHERE email = ?", email)
	return row, err
}

// SetUserLang sets the language of user id, writing only when it differs; it reports whether it wrote.
func SetUserLang(ctx context.Context, q Querier, id int64, lang string) (bool, error) {
	res, err := q.ExecContext(ctx, "UPDATE users SET lang = ? WHERE id = ? AND lang <> ?", lang, id, lang)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// SetUserPasswordHash replaces the password hash of user id.
func SetUserPasswordHash(ctx context.Context, q Querier, id int64, hash []byte) error {
	_, err := q.ExecContext(ctx, "UPDATE users SET password_hash = ? WHERE id = ?", hash, id)
	return err
}

// SetUserRole sets the role of user id.
func SetUserRole(ctx context.Context, q Querier, id int64, role string) error {
	_, err := q.ExecContext(ctx, "UPDATE users SET role = ? WHERE id = ?", role, id)
	return err
}

// UserAccounts returns the accounts matching s, newest first.
func UserAccounts(ctx context.Context, q Querier, s UserSearch) ([]*UserAccount, error) {
	query := "SELECT id, email, name, role, created_at FROM users WHERE 1 = 1"
	var args []any
	if s.EmailPart != "" {
		query += ` AND email LIKE ? ESCAPE '\\'`
		args = append(args, "%"+userLikeEscaper.Replace(s.EmailPart)+"%")
	}
	if s.Role != "" {
		query += " AND role = ?"
		args = append(args, s.Role)
	}
	query += " ORDER BY id DESC LIMIT ?"
	args = append(args, s.Limit)
	out := []*UserAccount{}
	if err := q.SelectContext(ctx, &out, query, args...); err != nil {
		return nil, err
	}
	return out, nil
}

// UserAccountByID returns account id (sql.ErrNoRows when there is none).
func UserAccountByID(ctx context.Context, q Querier, id int64) (*UserAccount, error) {
	acc := &UserAccount{}
	if err := q.GetContext(ctx, acc, "SELECT id, email, name, role, created_at FROM users WHERE id = ?", id); err != nil {
		return nil, err
	}
	return acc, nil
}

// LockUserAccount reads account id and locks its row (FOR UPDATE; sql.ErrNoRows when there is none).
func LockUserAccount(ctx context.Context, q Querier, id int64) (UserAccount, error) {
	var acc UserAccount
	err := q.GetContext(ctx, &acc, "SELECT id, email, name, role, created_at FROM users WHERE id = ? FOR UPDATE", id)
	return acc, err
}

// LockAdminIDs returns the ids of every admin in id order, locking their rows (FOR UPDATE).
func LockAdminIDs(ctx context.Context, q Querier) ([]int64, error) {
	var ids []int64
	err := q.SelectContext(ctx, &ids, "SELECT id FROM users WHERE role = 'admin' ORDER BY id FOR UPDATE")
	return ids, err
}
