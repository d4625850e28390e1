// Package accounts holds user accounts: registration and login (Users), sessions and
// their cross-process cache (SessionCache), password reset links (Resets), and the
// admin's user list and role changes (UserAdmin, audited).
//
// It keeps the rules of the users, sessions and password_resets tables (their SQL is in
// package store). It imports services, store, audit and mail (a reset link's e-mail is
// queued in the outbox with its row). E-mail addresses are compared in their canonical
// form (services.CanonicalEmail).
package accounts
