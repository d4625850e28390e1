package accounts

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"golang.org/x/crypto/bcrypt"

	"seatflow/services"
	"seatflow/services/mail"
	"seatflow/services/store"
)

// ResetTokenTTL is how long a password reset link works. Short, because the link is as
// good as the password while it works and it sits in a mailbox (and perhaps a mail
// provider's logs) in the clear; 30 minutes is still ample for an e-mail to arrive and
// be opened, and asking again costs the user one more form.
const ResetTokenTTL = 30 * time.Minute

// ResetLimiter counts password reset requests per account e-mail (canonical form) and
// per client address (orders.RateLimiter.AllowPasswordReset).
type ResetLimiter interface {
	AllowPasswordReset(ctx context.Context, email, ip string) error
}

// Resets are the password reset links: a request e-mails a single-use link, using it
// sets a new password and ends every session of the account (DESIGN.md, "Password
// reset"). A link's token is 32 random bytes (base64url) that only the e-mail as sent
// carries in clear: password_resets keeps its SHA-256, the outbox the link sealed
// (mail.Secrets).
type Resets struct {
	users   *Users
	limiter ResetLimiter
	secrets *mail.Secrets
	baseURL string
}

// NewResets returns the reset service of users' accounts. publicURL is the site's
// address as a browser reaches it (SEATFLOW_PUBLIC_URL), the start of every link;
// secrets seals each link for the outbox (the mail renderer opens it with the same).
func NewResets(users *Users, limiter ResetLimiter, secrets *mail.Secrets, publicURL string) *Resets {
	return &Resets{users: users, limiter: limiter, secrets: secrets, baseURL: strings.TrimRight(publicURL, "/")}
}

// errResetToken is the one answer to a link that is unknown, used or expired.
func errResetToken() *services.Error {
	return services.Errorf(services.CodeResetTokenInvalid, "this password reset link is not valid any more (used, expired or unknown); ask for a new one")
}

// RequestReset e-mails a reset link to the account of email, if there is one: it
// writes the reset row and the outbox e-mail (mail.PasswordReset, the link sealed in
// Data mail.DataLinkSealed, bound to the account) in one transaction. ip is the client address. The answer is the same whether or not the
// account exists, and an unknown address still costs the lookup and the token's
// making; only the two INSERTs and their commit are skipped (a millisecond or so, well
// inside a request's jitter, and the rate limits cap how often anyone can measure it).
// Errors: INVALID_REQUEST (not a usable email address), RATE_LIMITED (per address and
// per client, counted before anything is read), UNAVAILABLE.
func (r *Resets) RequestReset(ctx context.Context, email, ip string) error {
	email, err := services.CanonicalEmail(email)
	if err != nil {
		return err
	}
	if err := r.limiter.AllowPasswordReset(ctx, email, ip); err != nil {
		return err
	}
	token, hash, err := newResetToken()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	userID, err := store.UserIDByEmail(ctx, r.users.db, email)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // the same answer as for an account: nothing tells them apart
	}
	if err != nil {
		return store.Unavailable("the database", err)
	}
	sealed, err := r.secrets.Seal(r.Link(token), mail.ResetLinkUse(userID))
	if err != nil {
		return err
	}
	now := r.users.clock.Now().UTC()
	err = store.InTx(ctx, r.users.db, func(tx *sqlx.Tx) error {
		id, err := store.InsertPasswordReset(ctx, tx, hash[:], userID, now, now.Add(ResetTokenTTL))
		if err != nil {
			return err
		}
		return mail.Queue(ctx, tx, now, mail.Message{
			Kind: mail.PasswordReset, UserID: userID,
			Data: map[string]string{mail.DataLinkSealed: sealed},
			Key:  "password_reset:" + strconv.FormatInt(id, 10),
		})
	})
	if err != nil {
		return store.Unavailable("the database", err)
	}
	return nil
}

// Link is the page address that a reset token opens: <public URL>/password/reset?token=….
func (r *Resets) Link(token string) string {
	return r.baseURL + "/password/reset?token=" + token
}

// CheckReset reports whether token is a usable reset link now (unknown, used and
// expired are one error), so the page can say so before a new password is typed. It
// changes nothing. Errors: RESET_TOKEN_INVALID, UNAVAILABLE.
func (r *Resets) CheckReset(ctx context.Context, token string) error {
	if !plausibleToken(token) {
		return errResetToken()
	}
	h := tokenHash(token)
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	err := store.UsablePasswordReset(ctx, r.users.db, h[:], r.users.clock.Now().UTC())
	if errors.Is(err, sql.ErrNoRows) {
		return errResetToken()
	}
	if err != nil {
		return store.Unavailable("the database", err)
	}
	return nil
}

// ResetPassword uses the reset link of token to set newPassword (the registration rule,
// 8 to 72 bytes, hashed at the same bcrypt cost). In one transaction it takes the link
// with one conditional UPDATE (unused and unexpired: of two uses at once exactly one
// wins), sets the password, marks the account's other unused links used, and deletes
// every session of the account; after the commit it drops those sessions from the
// session cache of every process. Errors: INVALID_REQUEST (the password), and
// RESET_TOKEN_INVALID (unknown, used or expired), UNAVAILABLE; a failure changes
// nothing.
func (r *Resets) ResetPassword(ctx context.Context, token, newPassword string) error {
	if err := checkPassword(newPassword); err != nil {
		return err
	}
	if !plausibleToken(token) {
		return errResetToken()
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(newPassword), r.users.bcryptCost)
	if err != nil {
		return err
	}
	h := tokenHash(token)
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	now := r.users.clock.Now().UTC()
	var userID int64
	err = store.InTx(ctx, r.users.db, func(tx *sqlx.Tx) error {
		userID = 0
		n, err := store.UsePasswordReset(ctx, tx, h[:], now)
		if err != nil {
			return err
		}
		if n != 1 {
			return errResetToken()
		}
		if userID, err = store.PasswordResetUser(ctx, tx, h[:]); err != nil {
			return err
		}
		if err := store.SetUserPasswordHash(ctx, tx, userID, hash); err != nil {
			return err
		}
		if err := store.UseUserPasswordResets(ctx, tx, userID, now); err != nil {
			return err
		}
		return store.DeleteUserSessions(ctx, tx, userID)
	})
	var se *services.Error
	if errors.As(err, &se) {
		return se
	}
	if err != nil {
		return store.Unavailable("the database", err)
	}
	r.users.cache.ForgetUser(ctx, userID)
	return nil
}

// newResetToken returns a fresh token (32 random bytes, base64url: URL-safe as it is)
// and its SHA-256.
func newResetToken() (string, [32]byte, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", [32]byte{}, err
	}
	tok := base64.RawURLEncoding.EncodeToString(b)
	return tok, tokenHash(tok), nil
}

// plausibleToken rejects what no link carries (empty, or far too long to hash) before
// MySQL is asked.
func plausibleToken(token string) bool { return token != "" && len(token) <= 100 }
