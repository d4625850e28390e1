package accounts

import (
	"context"
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
	return out, nil
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
	return acc, nil
}

// roleAudit is how a role change appears in the audit log.
type roleAudit struct {
	ID    string `json:"id"`
	Email string `json:"email"`
	Role  string `json:"role"`
}

// SetRole gives account userID the role role for admin actorID and returns the account
// as it is now. The change and its audit entry (action "user.role", entity "user", the
// account before and after) commit together. Setting the role it already has changes
// nothing and records nothing. The sessions of that account see the new role on their
// next request: Authenticate reads the role with the session, and the changed hook is
// told after the commit.
// Errors: INVALID_REQUEST (unknown role), FORBIDDEN (actorID is no longer an admin),
// NOT_FOUND, CONFLICT (one's own role, or the last admin would be left without the
// role), UNAVAILABLE.
func (u *UserAdmin) SetRole(ctx context.Context, actorID, userID int64, role string) (*UserAccount, error) {
	if !validRole(role) {
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
			return services.Errorf(services.CodeForbidden, "only an admin may change roles")
		}
		if acc, err = store.LockUserAccount(ctx, tx, userID); err != nil {
			if store.IsNoRows(err) {
				return services.Errorf(services.CodeNotFound, "user %d not found", userID)
			}
			return err
		}
		if acc.Role == role {
			return nil
		}
		if acc.Role == services.RoleAdmin && len(admins) <= 1 {
			return services.Errorf(services.CodeConflict, "cannot take the admin role from %s: it is the last admin; make another account admin first", acc.Email)
		}
		if userID == actorID {
			return services.Errorf(services.CodeConflict, "you cannot change your own role; ask another admin to do it")
		}
		if err := store.SetUserRole(ctx, tx, userID, role); err != nil {
			return err
		}
		id := strconv.FormatInt(userID, 10)
		before := roleAudit{ID: id, Email: acc.Email, Role: acc.Role}
		after := before
		after.Role = role
		acc.Role, changedRole = role, true
		return u.audit.Record(ctx, tx, actorID, "user.role", "user", id, before, after)
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
	return &acc, nil
}

func containsID(ids []int64, id int64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
