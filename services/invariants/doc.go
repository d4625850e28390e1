// Package invariants holds the tests of DESIGN.md's invariants that span the domain
// packages (TestInvariantN_*), the fault tests (TestFault_*: MySQL and Redis cut,
// flushed, restarted) and the soak test (make soak), all against the real MariaDB and
// Redis through services/internal/testenv. It has no code of its own.
//
// The first test of each invariantN_test.go says in its doc comment what keeps
// invariant N in the code and which tests in other packages prove it too; DESIGN.md
// "Invariants" states each rule and why.
package invariants
