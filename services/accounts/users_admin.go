package accounts

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/store"
)

// UserAccount is an account as admins list it: no password hash. CreatedAt is UTC.
type UserAccount = store.UserAccount

// User list limits (GET /api/v1/admin/users ?limit=).
const (
	DefaultUserListLimit = 100
	MaxUserListLimit     = 500
)

// UserFilter narrows ListUsers; zero values do not filter. Email is a part of the
// address in any case or width (it is compared with the canonical form accounts are
// stored in); Role is one of the Role* constants; Limit is 1..MaxUserListLimit, 0
// meaning DefaultUserListLimit.
type UserFilter struct {
	Email string
	Role  string
	Limit int
}

// UserAdmin is what admins do with accounts: list them and change their roles, every
// change audited in its own transaction (invariant 11).
type UserAdmin struct {
	db      *sqlx.DB
	audit   *audit.Audit
	changed func(ctx context.Context, userID int64)
}

// NewUserAdmin returns the admin account service. changed (nil for none) is called after
// a role change commits, for whatever remembers signed-in users (a session cache) to
// read that account afresh.
func NewUserAdmin(db *sqlx.DB, audit *audit.Audit, changed func(ctx context.Context, userID int64)) *UserAdmin {
	return &UserAdmin{db: db, audit: audit, changed: changed}
}

// validRole reports whether role is one of the Role* constants.
func validRole(role string) bool {
	return role == services.RoleCustomer || role == services.RoleStaff || role == services.RoleAdmin
}

// ListUsers returns the accounts matching f, newest first.
// Errors: INVALID_REQUEST (unknown role, bad limit), UNAVAILABLE.
func (u *UserAdmin) ListUsers(ctx context.Context, f UserFilter) ([]*UserAccount, error) {
	switch {
	case f.Role != "" && !validRole(f.Role):
		return nil, services.Errorf(services.CodeInvalidRequest, "role must be one of customer, staff, admin")
	case f.Limit < 0 || f.Limit > MaxUserListLimit:
		return nil, services.Errorf(services.CodeInvalidRequest, "limit must be a whole number from 1 to %d", MaxUserListLimit)
	}
	if f.Limit == 0 {
		f.Limit = DefaultUserListLimit
	}
	s := store.UserSearch{Role: f.Role, Limit: f.Limit}
	if part := strings.TrimSpace(f.Email); part != "" {
		if len(part) > services.MaxEmailBytes {
			return []*UserAccount{}, nil
		}
		s.EmailPart = services.CanonicalForm(part)
	}
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	out, err := store.UserAccounts(ctx, u.db, s)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	if err := u.fillCinemas(ctx, out...); err != nil {
		return nil, err
	}
	return out, nil
}

// fillCinemas sets each account's CinemaIDs from staff_cinemas. Errors: UNAVAILABLE.
func (u *UserAdmin) fillCinemas(ctx context.Context, accs ...*UserAccount) error {
	ids := make([]int64, len(accs))
	for i, a := range accs {
		ids[i] = a.ID
	}
	byUser, err := store.StaffCinemasOf(ctx, u.db, ids)
	if err != nil {
		return store.Unavailable("the database", err)
	}
	for _, a := range accs {
		a.CinemaIDs = byUser[a.ID]
		if a.CinemaIDs == nil {
			a.CinemaIDs = []int64{}
		}
	}
	return nil
}

// User returns one account. Errors: NOT_FOUND, UNAVAILABLE.
func (u *UserAdmin) User(ctx context.Context, id int64) (*UserAccount, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	acc, err := store.UserAccountByID(ctx, u.db, id)
	if store.IsNoRows(err) {
		return nil, services.Errorf(services.CodeNotFound, "user %d not found", id)
	}
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	if err := u.fillCinemas(ctx, acc); err != nil {
		return nil, err
	}
	return acc, nil
}

// roleAudit is how a role change appears in the audit log.
type roleAudit struct {
	ID    string `json:"id"`
	Email string `json:"email"`
	Role  string `json:"role"`
}

// UserChange is what an admin changes of an account: its Role (nil: kept) and the
// cinemas it works for (CinemaIDs nil: kept; empty: every cinema; duplicates count
// once; the limit applies while the account is staff).
type UserChange struct {
	Role      *string
	CinemaIDs []int64
}

// SetRole gives account userID the role role for admin actorID: Change with Role only.
func (u *UserAdmin) SetRole(ctx context.Context, actorID, userID int64, role string) (*UserAccount, error) {
	return u.Change(ctx, actorID, userID, UserChange{Role: &role})
}

// cinemasAudit is how a change of a staff member's cinemas appears in the audit log.
type cinemasAudit struct {
	ID        string   `json:"id"`
	Email     string   `json:"email"`
	CinemaIDs []string `json:"cinema_ids"`
}

// Change applies ch to account userID for admin actorID in one transaction and returns
// the account as it is now: all of it or, on an error, none of it. A role change is
// audited as "user.role", a change of cinemas as "user.cinemas" (entity "user", the
// account before and after), each in the same transaction; setting what the account
// already has records nothing. The sessions of that account see the change on their
// next request: Authenticate reads the role with the session and the cinemas per
// request, and the changed hook is told after a role change commits.
// Errors: INVALID_REQUEST (unknown role), FORBIDDEN (actorID is no longer an admin),
// NOT_FOUND (the account, or a cinema: the message names it), CONFLICT (one's own
// role, or the last admin would be left without the role), UNAVAILABLE.
func (u *UserAdmin) Change(ctx context.Context, actorID, userID int64, ch UserChange) (*UserAccount, error) {
	if ch.Role != nil && !validRole(*ch.Role) {
		return nil, services.Errorf(services.CodeInvalidRequest, "role must be one of customer, staff, admin")
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), store.DBTimeout)
	defer cancel()
	var acc UserAccount
	var changedRole bool
	err := store.InTx(ctx, u.db, func(tx *sqlx.Tx) error {
		changedRole = false
		// every admin row locked first, in id order, so two demotions of different
		// admins queue behind each other and cannot both see "another admin is left"
		admins, err := store.LockAdminIDs(ctx, tx)
		if err != nil {
			return err
		}
		if !containsID(admins, actorID) {
			return services.Errorf(services.CodeForbidden, "only an admin may change accounts")
		}
		if acc, err = store.LockUserAccount(ctx, tx, userID); err != nil {
			if store.IsNoRows(err) {
				return services.Errorf(services.CodeNotFound, "user %d not found", userID)
			}
			return err
		}
		if ch.Role != nil {
			if changedRole, err = u.changeRole(ctx, tx, actorID, &acc, *ch.Role, admins); err != nil {
				return err
			}
		}
		if ch.CinemaIDs != nil {
			return u.changeCinemas(ctx, tx, actorID, &acc, ch.CinemaIDs)
		}
		return nil
	})
	if err != nil {
		if services.ErrorCode(err) != "" {
			return nil, err
		}
		return nil, store.Unavailable("the database", err)
	}
	if changedRole && u.changed != nil {
		u.changed(ctx, userID)
	}
	if err := u.fillCinemas(ctx, &acc); err != nil {
		return nil, err
	}
	return &acc, nil
}

// changeRole gives the locked account acc role in tx, audited; false when it has it.
func (u *UserAdmin) changeRole(ctx context.Context, tx *sqlx.Tx, actorID int64, acc *UserAccount, role string, admins []int64) (bool, error) {
	if acc.Role == role {
		return false, nil
	}
	if acc.Role == services.RoleAdmin && len(admins) <= 1 {
		return false, services.Errorf(services.CodeConflict, "cannot take the admin role from %s: it is the last admin; make another account admin first", acc.Email)
	}
	if acc.ID == actorID {
		return false, services.Errorf(services.CodeConflict, "you cannot change your own role; ask another admin to do it")
	}
	if err := store.SetUserRole(ctx, tx, acc.ID, role); err != nil {
		return false, err
	}
	id := strconv.FormatInt(acc.ID, 10)
	before := roleAudit{ID: id, Email: acc.Email, Role: acc.Role}
	after := before
	after.Role = role
	acc.Role = role
	return true, u.audit.Record(ctx, tx, actorID, "user.role", "user", id, before, after)
}

// changeCinemas limits the locked account acc to cinemaIDs in tx, audited.
func (u *UserAdmin) changeCinemas(ctx context.Context, tx *sqlx.Tx, actorID int64, acc *UserAccount, cinemaIDs []int64) error {
	want := append([]int64{}, cinemaIDs...)
	slices.Sort(want)
	want = slices.Compact(want)
	for _, id := range want {
		if _, err := store.CinemaByID(ctx, tx, id); err != nil {
			if store.IsNoRows(err) {
				return services.Errorf(services.CodeNotFound, "cinema %d not found", id)
			}
			return err
		}
	}
	before, err := store.StaffCinemaIDs(ctx, tx, acc.ID)
	if err != nil {
		return err
	}
	if slices.Equal(before, want) {
		return nil
	}
	if err := store.SetStaffCinemas(ctx, tx, acc.ID, want); err != nil {
		return err
	}
	id := strconv.FormatInt(acc.ID, 10)
	return u.audit.Record(ctx, tx, actorID, "user.cinemas", "user", id,
		cinemasAudit{ID: id, Email: acc.Email, CinemaIDs: idStrings(before)},
		cinemasAudit{ID: id, Email: acc.Email, CinemaIDs: idStrings(want)})
}

func containsID(ids []int64, id int64) bool {
	return slices.Contains(ids, id)
}

// idStrings writes ids as the contract's decimal strings.
func idStrings(ids []int64) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strconv.FormatInt(id, 10)
	}
	return out
}
