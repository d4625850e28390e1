// Package accounts holds user accounts: registration and login (Users), sessions and
// their cross-process cache (SessionCache), and the admin's user list and role changes
// (UserAdmin, audited).
//
// It owns the users and sessions tables. It imports services, store and audit.
// E-mail addresses are compared in their canonical form (services.CanonicalEmail).
package accounts
