// Package reconcile compares every loaded seat map in Redis with MySQL, the truth, and
// repairs what drifted (Reconciler): it ends overdue orders, cancels the orders of
// cancelled shows, rebuilds missing maps and fixes seat values and counters, one run at
// a time under the Redis lease, recording each run and its findings.
//
// It keeps the reconcile_runs and reconcile_findings tables (their SQL is in package
// store). It imports services, store, catalog, seats, orders and mail. It is the guarantee of invariant 8 (every hold ends) and
// restores invariant 3 (DESIGN.md "Reconciliation").
package reconcile
