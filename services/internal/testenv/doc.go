// Package testenv builds the whole service layer over the real MariaDB and Redis for
// the tests under services/: a test database and Redis database emptied per test
// (LockStores makes test processes take turns on them), a hall and an on-sale show,
// a clock tests move by hand, and helpers that compare both stores with the invariants
// (CheckInvariants). Only tests import it.
package testenv
