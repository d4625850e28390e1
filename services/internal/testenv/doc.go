// Package testenv builds the whole service layer over the real MariaDB and Redis for
// the tests under services/: each test package has a database and a Redis DB of its own
// (stores.go: TestDBName, RedisDBs), emptied per test, so the packages run side by side;
// a hall and an on-sale show, a clock tests move by hand, and helpers that compare both
// stores with the invariants (CheckInvariants). Only tests import it.
package testenv
