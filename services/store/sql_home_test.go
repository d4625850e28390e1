package store_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
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
	root := filepath.Join("..", "..")
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			for _, home := range sqlHomes {
				if rel == home {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || strings.HasSuffix(rel, "_templ.go") {
			return nil
		}
		lit, ok := firstSQL(t, path)
		if !ok {
			return nil
		}
		found = append(found, rel+": "+lit)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("SQL outside the storage layer (move it into services/store): %s", f)
	}
}

// firstSQL returns the first string literal of the Go file at path that holds SQL.
func firstSQL(t *testing.T, path string) (string, bool) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
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
