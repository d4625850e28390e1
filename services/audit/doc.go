// Package audit is the audit log: every staff or admin write records who did it, when,
// to what, and the before and after (invariant 11), and admins list and filter it.
//
// It keeps the audit_log table (its SQL is in package store). It imports services and
// store only, so every domain package that writes on behalf of staff can record into it.
package audit
