package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCIServices_MaxConnectionsOnlyForTests runs .ci/services against stand-ins for
// redis-cli and mariadb that record what they are asked: without --for-tests (make run,
// make services) it must not change MariaDB's global settings; with it (make test, CI)
// it raises max_connections. It also checks that the Makefile's run target does not
// reach the test variant and its test target does.
func TestCIServices_MaxConnectionsOnlyForTests(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	for _, tc := range []struct {
		args  []string
		raise bool
	}{{nil, false}, {[]string{"--for-tests"}, true}} {
		dir := t.TempDir()
		log := filepath.Join(dir, "calls.log")
		stub := func(name, body string) {
			if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/bash\necho \""+name+" $*\" >>"+log+"\n"+body), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		stub("redis-server", "exit 0\n")
		stub("mariadbd", "exit 0\n")
		stub("redis-cli", "echo PONG\n")
		stub("mariadb", "case \"$*\" in *@@max_connections*) echo 151;; esac\n")
		cmd := exec.Command("bash", append([]string{".ci/services"}, tc.args...)...)
		cmd.Env = append(os.Environ(), "PATH="+dir+":/usr/bin:/bin")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf(".ci/services %v: %v\n%s", tc.args, err, out)
		}
		calls, _ := os.ReadFile(log)
		raised := strings.Contains(string(calls), "SET GLOBAL")
		if raised != tc.raise {
			t.Errorf(".ci/services %v: changed a global setting = %v, want %v; calls:\n%s", tc.args, raised, tc.raise, calls)
		}
	}

	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	reaches := func(target string) bool { return makeTargetRuns(string(mk), target, "--for-tests", map[string]bool{}) }
	if reaches("run") {
		t.Error("make run reaches .ci/services --for-tests: it must leave MariaDB's settings alone")
	}
	if !reaches("test") {
		t.Error("make test does not reach .ci/services --for-tests")
	}
	if ci, _ := os.ReadFile(".ci/run"); !strings.Contains(string(ci), ".ci/services --for-tests") {
		t.Error(".ci/run (CI) does not start the services with --for-tests")
	}
}

// makeTargetRuns reports whether target's recipe, or that of a prerequisite it
// reaches, contains want (a plain reading of the Makefile's rules).
func makeTargetRuns(mk, target, want string, seen map[string]bool) bool {
	if seen[target] {
		return false
	}
	seen[target] = true
	rule := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(target) + `:([^=\n]*)\n((?:\t.*\n)*)`)
	m := rule.FindStringSubmatch(mk)
	if m == nil {
		return false
	}
	if strings.Contains(m[2], want) {
		return true
	}
	for _, dep := range strings.Fields(m[1]) {
		if makeTargetRuns(mk, dep, want, seen) {
			return true
		}
	}
	return false
}
