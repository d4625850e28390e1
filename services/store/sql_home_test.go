package store_test

import (
	"go/ast"
	"go/token"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// sqlText matches a string literal that is (part of) an SQL statement: an upper-case
// statement keyword followed by white space. seatflow writes its SQL in upper case and
// its prose in sentence case, so messages such as "Update the show" do not match.
var sqlText = regexp.MustCompile(`(^|\s|\()(SELECT|INSERT INTO|INSERT IGNORE|UPDATE|DELETE FROM|REPLACE INTO|TRUNCATE|CREATE DATABASE|WHERE|JOIN|ON DUPLICATE KEY)\s`)

// sqlHomes are the folders whose Go files may hold SQL: the storage layer itself and
// the test helpers that set up and inspect the test databases.
var sqlHomes = []string{"services/store", "services/internal/testenv"}

// TestSQLLivesInStorage fails when a Go file outside the storage layer (services/store)
// and the test helpers holds an SQL statement: every table's SQL has one home, the way
// TestInvariant9_EveryScriptIsKnown keeps every Lua script known (DESIGN.md "Packages and storage").
func TestSQLLivesInStorage(t *testing.T) {
	var found []string
	eachSourceFile(t, func(rel string) bool { return slices.Contains(sqlHomes, rel) }, func(rel string, f *ast.File) {
		if lit, ok := firstSQL(f); ok {
			found = append(found, rel+": "+lit)
		}
	})
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("SQL outside the storage layer (move it into services/store): %s", f)
	}
}

// firstSQL returns the first string literal of the Go file f that holds SQL.
func firstSQL(f *ast.File) (string, bool) {
	var hit string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING || hit != "" {
			return hit == ""
		}
		s, err := strconv.Unquote(lit.Value)
		if err == nil && sqlText.MatchString(s) {
			hit = strings.Join(strings.Fields(s), " ")
			if len(hit) > 80 {
				hit = hit[:80] + "…"
			}
		}
		return true
	})
	return hit, hit != ""
}
