package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"time"

	"seatflow/services"
	"seatflow/services/store"
)

// SessionPolicy bounds a session's life: it ends after Idle without a request, and
// after MaxAge whatever happens.
type SessionPolicy struct {
	Idle   time.Duration
	MaxAge time.Duration
}

// DefaultSessionPolicy ends a session after 12 hours without a request, and 7 days
// after sign-in.
var DefaultSessionPolicy = SessionPolicy{Idle: 12 * time.Hour, MaxAge: 7 * 24 * time.Hour}

// WithSessions sets the session policy and the in-process session cache (nil: none)
// and returns u.
func (u *Users) WithSessions(p SessionPolicy, cache *SessionCache) *Users {
	if p.Idle > 0 {
		u.sessions.Idle = p.Idle
	}
	if p.MaxAge > 0 {
		u.sessions.MaxAge = p.MaxAge
	}
	u.cache = cache
	return u
}

// SessionMaxAge is how long a session can live at most (the cookie's lifetime).
func (u *Users) SessionMaxAge() time.Duration { return u.sessions.MaxAge }

// touchEvery is how stale last_seen_at may get before a request writes it again: a
// small part of the idle timeout, so an active user is never timed out while a busy
// session costs at most one write a minute.
func (u *Users) touchEvery() time.Duration {
	return min(max(u.sessions.Idle/10, time.Second), time.Minute)
}

// tokenHash is what MySQL and the cache key a session by.
func tokenHash(token string) [32]byte { return sha256.Sum256([]byte(token)) }

// NewSession issues a session token for a user, valid for the policy's MaxAge and
// ended earlier by Idle without requests. Errors: UNAVAILABLE.
func (u *Users) NewSession(ctx context.Context, userID int64) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	tok := base64.RawURLEncoding.EncodeToString(b)
	h := tokenHash(tok)
	now := u.clock.Now()
	if err := store.InsertSession(ctx, u.db, h[:], userID, now, now.Add(u.sessions.MaxAge)); err != nil {
		return "", store.Unavailable("the database", err)
	}
	return tok, nil
}

// Authenticate returns the user of a live session token: known, younger than MaxAge
// and used within Idle. A token seen in the last few seconds is answered from the
// in-process cache without MySQL; logout and role changes clear it in every process.
// Errors: UNAUTHENTICATED, UNAVAILABLE.
func (u *Users) Authenticate(ctx context.Context, token string) (*services.User, error) {
	if token == "" || len(token) > 100 {
		return nil, services.Errorf(services.CodeUnauthenticated, "sign in first")
	}
	h := tokenHash(token)
	if usr, ok := u.cache.get(h); ok {
		return usr, nil
	}
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	now := u.clock.Now()
	row, err := store.LiveSessionUser(ctx, u.db, h[:], now, now.Add(-u.sessions.Idle))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, services.Errorf(services.CodeUnauthenticated, "the session is unknown or expired; sign in again")
	}
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	if now.Sub(row.LastSeen) >= u.touchEvery() {
		// a lost write only shortens the idle allowance by touchEvery at most
		_ = store.TouchSession(ctx, u.db, h[:], now)
	}
	usr := row.User
	u.cache.put(h, &usr, row.ExpiresAt.Sub(now)) // never answered from memory past its end
	return &usr, nil
}

// Logout ends the session of token in MySQL and in the session cache of every
// process; an unknown token is not an error. Errors: UNAVAILABLE.
func (u *Users) Logout(ctx context.Context, token string) error {
	h := tokenHash(token)
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	if err := store.DeleteSession(ctx, u.db, h[:]); err != nil {
		return store.Unavailable("the database", err)
	}
	u.cache.Forget(ctx, h)
	return nil
}

// UserChanged drops the cached sessions of a user in every process (after a role
// change), so the next request reads the user afresh.
func (u *Users) UserChanged(ctx context.Context, userID int64) {
	u.cache.ForgetUser(ctx, userID)
}
