package accounts

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"net/mail"
	"strings"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"
	"golang.org/x/crypto/bcrypt"

	"seatflow/services"
	"seatflow/services/store"
)

// Users registers accounts, checks passwords and issues session tokens. A token is 32
// random bytes (base64url); MySQL keeps only its SHA-256 (sessions.go).
type Users struct {
	db         *sqlx.DB
	clock      services.Clock
	bcryptCost int
	sessions   SessionPolicy
	cache      *SessionCache // nil: every request asks MySQL
	// dummyHash is compared with the password of an unknown email, so that an unknown
	// email costs the same bcrypt work as a known one (same cost, made at start).
	dummyHash []byte
}

// NewUsers returns the user service; bcryptCost is bcrypt's work factor (tests use
// bcrypt.MinCost, production the default 10 or more). It hashes one random password at
// that cost, which takes as long as one login.
func NewUsers(db *sqlx.DB, clock services.Clock, bcryptCost int) *Users {
	if bcryptCost < bcrypt.MinCost || bcryptCost > bcrypt.MaxCost {
		bcryptCost = bcrypt.DefaultCost
	}
	pw := make([]byte, 32)
	_, _ = rand.Read(pw)
	dummy, err := bcrypt.GenerateFromPassword([]byte(base64.RawURLEncoding.EncodeToString(pw)), bcryptCost)
	if err != nil {
		panic("bcrypt: " + err.Error()) // only for a cost outside MinCost..MaxCost, excluded above
	}
	return &Users{db: db, clock: clock, bcryptCost: bcryptCost, dummyHash: dummy, sessions: DefaultSessionPolicy}
}

// errWrongLogin is the one answer to an unknown email and to a wrong password.
func errWrongLogin() *services.Error {
	return services.Errorf(services.CodeUnauthenticated, "email or password is wrong")
}

// Register creates a customer account. Email must be a valid address, stored in its
// canonical form (CanonicalEmail, at most 254 bytes), password 8..72 bytes, name 1..100
// characters on one line (services.CheckText: no control characters or bidirectional
// overrides).
// Errors: INVALID_REQUEST, CONFLICT (email taken), UNAVAILABLE.
func (u *Users) Register(ctx context.Context, email, password, name string) (int64, error) {
	return u.Create(ctx, email, password, name, services.RoleCustomer)
}

// Create creates an account with a role (RoleCustomer, RoleStaff, RoleAdmin); the
// checks and errors are those of Register.
func (u *Users) Create(ctx context.Context, email, password, name, role string) (int64, error) {
	email, err := services.CanonicalEmail(email)
	if err != nil {
		return 0, err
	}
	name = strings.TrimSpace(name)
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email {
		return 0, services.Errorf(services.CodeInvalidRequest, "email is not a valid address")
	}
	if err := checkPassword(password); err != nil {
		return 0, err
	}
	if n := utf8.RuneCountInString(name); n < 1 || n > 100 || !utf8.ValidString(name) {
		return 0, services.Errorf(services.CodeInvalidRequest, "name must be 1 to 100 characters")
	}
	if err := services.CheckText("name", name, services.SingleLine); err != nil {
		return 0, err
	}
	switch role {
	case services.RoleCustomer, services.RoleStaff, services.RoleAdmin:
	default:
		return 0, services.Errorf(services.CodeInvalidRequest, "unknown role %q", role)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), u.bcryptCost)
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	id, err := store.InsertUser(ctx, u.db, email, name, hash, role, u.clock.Now())
	if store.DuplicateOn(err, "uq_users_email") {
		return 0, services.Errorf(services.CodeConflict, "an account with this email exists already")
	}
	if err != nil {
		return 0, store.Unavailable("the database", err)
	}
	return id, nil
}

// checkPassword applies the password rule of registration and reset: 8 to 72 bytes
// (bcrypt reads no further than 72). Errors: INVALID_REQUEST.
func checkPassword(password string) error {
	if len(password) < 8 || len(password) > 72 {
		return services.Errorf(services.CodeInvalidRequest, "password must be 8 to 72 bytes long")
	}
	return nil
}

// SetPassword replaces the password and role of the account with that email (used by
// the demo seed to hand out fresh passwords). Errors: INVALID_REQUEST, NOT_FOUND,
// UNAVAILABLE.
func (u *Users) SetPassword(ctx context.Context, email, password, role string) error {
	email, err := services.CanonicalEmail(email)
	if err != nil {
		return err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), u.bcryptCost)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	n, err := store.SetUserPasswordAndRole(ctx, u.db, email, hash, role)
	if err != nil {
		return store.Unavailable("the database", err)
	}
	if n == 0 {
		if _, err := store.UserIDByEmail(ctx, u.db, email); err != nil {
			return services.Errorf(services.CodeNotFound, "no account %s", email)
		}
	}
	return nil
}

// Login checks email and password and returns a new session token with the user. The
// email is looked up in its canonical form (CanonicalEmail). Every login with a usable
// email runs exactly one bcrypt comparison at the configured cost, whether the account
// exists or not. Errors: INVALID_REQUEST (not a usable email address), UNAUTHENTICATED
// (unknown email or wrong password, same message), UNAVAILABLE. The new session goes
// into this process's session cache, so the requests right after a login (a flash
// sale's first orders) cost no MySQL lookup.
func (u *Users) Login(ctx context.Context, email, password string) (string, *services.User, error) {
	email, err := services.CanonicalEmail(email)
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	row, err := store.UserLoginByEmail(ctx, u.db, email)
	if errors.Is(err, sql.ErrNoRows) {
		_ = bcrypt.CompareHashAndPassword(u.dummyHash, []byte(password))
		return "", nil, errWrongLogin()
	}
	if err != nil {
		return "", nil, store.Unavailable("the database", err)
	}
	if bcrypt.CompareHashAndPassword(row.Hash, []byte(password)) != nil {
		return "", nil, errWrongLogin()
	}
	tok, err := u.NewSession(ctx, row.ID)
	if err != nil {
		return "", nil, err
	}
	usr := row.User
	// the session was made now: its first requests need not ask MySQL for it
	u.cache.put(tokenHash(tok), &usr, u.sessions.MaxAge)
	return tok, &usr, nil
}
